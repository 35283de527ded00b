package dev.cadre.platform.incidents;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One incident as stored in shared memory (namespace {@code incidents}, key = id) with the version
 * it was read at. The value is JSON so agents read it as is through {@code incident_find} and the
 * memory API; this record only names the fields the platform itself acts on.
 */
public record Incident(ObjectNode value, long version) {

    public static final String OPEN = "open";
    public static final String ESCALATED = "escalated";
    public static final String RESOLVED = "resolved";

    public String id() {
        return value.path("id").asString();
    }

    public String fingerprint() {
        return value.path("fingerprint").asString();
    }

    public String status() {
        return value.path("status").asString(OPEN);
    }

    /** Open or escalated: someone (an agent or a human) still owns it. */
    public boolean active() {
        return !RESOLVED.equals(status());
    }

    public boolean escalated() {
        return ESCALATED.equals(status()) || value.path("escalatedAt").isString();
    }

    public int occurrences() {
        return value.path("occurrences").asInt(1);
    }

    public List<String> runs() {
        List<String> out = new ArrayList<>();
        for (JsonNode r : value.path("runs")) {
            out.add(r.asString());
        }
        return out;
    }

    /** The value with the version, as tools show it. */
    public ObjectNode view() {
        ObjectNode v = value.deepCopy();
        v.put("version", version);
        return v;
    }
}
