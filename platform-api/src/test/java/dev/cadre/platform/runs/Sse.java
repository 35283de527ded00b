package dev.cadre.platform.runs;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Parses a complete text/event-stream body into events (tests only). */
final class Sse {

    record Event(long id, String name, JsonNode data) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static List<Event> parse(String body) {
        List<Event> out = new ArrayList<>();
        String id = null;
        String name = "message";
        StringBuilder data = new StringBuilder();
        for (String line : (body + "\n\n").split("\n", -1)) {
            if (line.isEmpty()) {
                if (!data.isEmpty()) {
                    out.add(new Event(id == null ? -1 : Long.parseLong(id), name, JSON.readTree(data.toString())));
                }
                id = null;
                name = "message";
                data.setLength(0);
            } else if (line.startsWith("id:")) {
                id = line.substring(3).trim();
            } else if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                data.append(line.substring(5).trim());
            }
        }
        return out;
    }
}
