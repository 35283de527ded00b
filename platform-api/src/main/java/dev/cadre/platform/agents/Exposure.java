package dev.cadre.platform.agents;

import dev.cadre.platform.agents.AgentCatalog.Channel;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.core.io.Resource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads the {@code expose} field of agents and workflows: the channels besides REST (A2A, MCP) over
 * which they may be started. Absent means none — a peer reaches only what a YAML declares for it.
 */
final class Exposure {

    /** What the files declare, by agent or workflow name, and the problems found. */
    record Loaded(Map<String, Set<Channel>> exposed, List<String> problems) {}

    private final YAMLMapper yaml = YAMLMapper.builder().build();

    Loaded load(List<Resource> files) {
        Map<String, Set<Channel>> exposed = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Resource file : files) {
            String where = file.getFilename() == null ? file.getDescription() : file.getFilename();
            JsonNode root;
            try (InputStream in = file.getInputStream()) {
                root = yaml.readTree(in);
            } catch (IOException | JacksonException e) {
                continue; // the agent loader reports unreadable files
            }
            if (root == null || !root.isObject()) {
                continue;
            }
            for (String section : List.of("agents", "workflows")) {
                for (JsonNode node : root.path(section)) {
                    JsonNode field = node.path("expose");
                    if (field.isMissingNode() || field.isNull()) {
                        continue;
                    }
                    String name = node.path("name").asString("");
                    String at = where + ": " + (section.equals("agents") ? "agent '" : "workflow '") + name
                            + "': field 'expose': ";
                    if (!field.isArray()) {
                        problems.add(at + "must be a list of channels " + channels());
                        continue;
                    }
                    if (node.path("internal").asBoolean(false) && !field.isEmpty()) {
                        problems.add(at + "an internal agent or workflow is a worker or step only and is never"
                                + " exposed; remove 'internal' or 'expose'");
                        continue;
                    }
                    Set<Channel> set = EnumSet.noneOf(Channel.class);
                    for (JsonNode c : field) {
                        String text = c.asString("").trim().toUpperCase(Locale.ROOT);
                        try {
                            set.add(Channel.valueOf(text));
                        } catch (IllegalArgumentException e) {
                            problems.add(at + "'" + c.asString("") + "' is not a channel " + channels());
                        }
                    }
                    exposed.put(name, Set.copyOf(set));
                }
            }
        }
        return new Loaded(exposed, problems);
    }

    private static List<String> channels() {
        return List.of(Channel.values()).stream()
                .map(c -> c.name().toLowerCase(Locale.ROOT))
                .toList();
    }
}
