package dev.cadre.platform.runs;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a run event's JSON is kept in {@code cadre_run_event.data} (issue #18, bytes per run). The
 * wire form starts with the envelope {@code type, runId, sessionId, parentSessionId} and ends with
 * {@code seq}: five values the row already holds in its columns, about a third of an average
 * event's bytes. {@link #COMPACT} rows store the JSON without them and {@link #expand} puts them
 * back in the same places, so readers get the same JSON, byte for byte. An event whose JSON does not
 * have exactly that shape (or whose envelope differs from its columns) is stored {@link #WHOLE}, as
 * every row was before V18; the choice is checked on every write by expanding what would be stored.
 */
final class StoredEventFormat {

    /** {@code data} is the wire JSON as is (every row written before V18). */
    static final int WHOLE = 0;

    /** {@code data} lacks the envelope fields its columns hold; see {@link #expand}. */
    static final int COMPACT = 1;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private StoredEventFormat() {}

    /** What to store for an event: its compact form when that expands to exactly {@code wire}. */
    record Stored(String data, int format) {}

    static Stored of(
            ObjectNode wire, String runId, long seq, String type, String sessionId, @Nullable String parentSessionId) {
        String whole = wire.toString();
        ObjectNode compact = wire.deepCopy();
        compact.remove(java.util.List.of("type", "runId", "sessionId", "parentSessionId", "seq"));
        // Equal text, not only equal trees: the field order is what an SSE client reads.
        if (expand(compact, runId, seq, type, sessionId, parentSessionId)
                .toString()
                .equals(whole)) {
            return new Stored(compact.toString(), COMPACT);
        }
        return new Stored(whole, WHOLE);
    }

    /** The wire JSON of a stored event, given its row's columns. */
    static JsonNode read(
            JsonNode data,
            int format,
            String runId,
            long seq,
            String type,
            String sessionId,
            @Nullable String parentSessionId) {
        return switch (format) {
            case WHOLE -> data;
            case COMPACT -> expand((ObjectNode) data, runId, seq, type, sessionId, parentSessionId);
            default ->
                throw new IllegalStateException("event " + seq + " of run " + runId + " has unknown stored format "
                        + format + " (written by a newer Cadre?)");
        };
    }

    private static ObjectNode expand(
            ObjectNode compact,
            String runId,
            long seq,
            String type,
            String sessionId,
            @Nullable String parentSessionId) {
        ObjectNode o = NODES.objectNode();
        o.put("type", type);
        o.put("runId", runId);
        o.put("sessionId", sessionId);
        o.put("parentSessionId", parentSessionId);
        o.setAll(compact);
        o.put("seq", seq);
        return o;
    }
}
