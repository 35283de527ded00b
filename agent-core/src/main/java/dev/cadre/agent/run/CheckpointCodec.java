package dev.cadre.agent.run;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.SystemMessage;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UserMessage;
import dev.cadre.agent.tool.ToolResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes and reads {@link Checkpoint}s (and journalled {@link ToolResult}s) as JSON with an explicit
 * format version. The mapping is written by hand rather than derived from the records, so renaming a
 * Java component can never silently change what is persisted; old versions keep loading (a golden
 * file test holds version 1).
 */
public final class CheckpointCodec {

    /** The version {@link #write} produces. */
    public static final int FORMAT_VERSION = 1;

    private static final String FORMAT = "cadre.checkpoint";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final JsonMapper mapper = JsonMapper.builder().build();

    /** The checkpoint as JSON text. */
    public String write(Checkpoint checkpoint) {
        ObjectNode root = NODES.objectNode();
        root.put("format", FORMAT);
        root.put("version", FORMAT_VERSION);
        root.put("runId", checkpoint.runId());
        root.put("sessionId", checkpoint.sessionId());
        root.put("agent", checkpoint.agent());
        ArrayNode history = root.putArray("history");
        checkpoint.history().forEach(m -> history.add(writeMessage(m)));
        ArrayNode pending = root.putArray("pendingCalls");
        checkpoint.pendingCalls().forEach(c -> pending.add(writeCall(c)));
        root.put("iterations", checkpoint.iterations());
        ObjectNode usage = root.putObject("usage");
        usage.put("inputTokens", checkpoint.usage().inputTokens());
        usage.put("outputTokens", checkpoint.usage().outputTokens());
        // Written only when there are any, so checkpoints without prompt caching keep their old form.
        if (checkpoint.usage().cacheReadTokens() > 0) {
            usage.put("cacheReadTokens", checkpoint.usage().cacheReadTokens());
        }
        if (checkpoint.usage().cacheWriteTokens() > 0) {
            usage.put("cacheWriteTokens", checkpoint.usage().cacheWriteTokens());
        }
        root.put("elapsedMillis", checkpoint.elapsedMillis());
        ObjectNode counters = root.putObject("subagentCounters");
        checkpoint.subagentCounters().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> counters.put(e.getKey(), e.getValue()));
        root.put("nextSequence", checkpoint.nextSequence());
        ArrayNode tools = root.putArray("toolsCalled");
        checkpoint.toolsCalled().forEach(tools::add);
        return root.toString();
    }

    /**
     * Reads a checkpoint of this or an older format version.
     *
     * @throws IllegalArgumentException when the text is not a checkpoint or comes from a newer version
     */
    public Checkpoint read(String json) {
        JsonNode root = tree(json);
        if (!FORMAT.equals(root.path("format").asString(""))) {
            throw new IllegalArgumentException("not a Cadre checkpoint (format field missing)");
        }
        int version = root.path("version").asInt(0);
        if (version < 1 || version > FORMAT_VERSION) {
            throw new IllegalArgumentException("checkpoint format version " + version
                    + " is not supported (this build reads 1.." + FORMAT_VERSION + ")");
        }
        List<Message> history = new ArrayList<>();
        for (JsonNode m : root.path("history")) {
            history.add(readMessage(m));
        }
        List<ToolCall> pending = new ArrayList<>();
        for (JsonNode c : root.path("pendingCalls")) {
            pending.add(readCall(c));
        }
        Map<String, Integer> counters = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : root.path("subagentCounters").properties()) {
            counters.put(e.getKey(), e.getValue().asInt());
        }
        List<String> tools = new ArrayList<>();
        for (JsonNode t : root.path("toolsCalled")) {
            tools.add(t.asString());
        }
        JsonNode usage = root.path("usage");
        return new Checkpoint(
                text(root, "runId"),
                text(root, "sessionId"),
                text(root, "agent"),
                history,
                pending,
                root.path("iterations").asInt(0),
                new TokenUsage(
                        usage.path("inputTokens").asLong(0),
                        usage.path("outputTokens").asLong(0),
                        usage.path("cacheReadTokens").asLong(0),
                        usage.path("cacheWriteTokens").asLong(0)),
                root.path("elapsedMillis").asLong(0),
                counters,
                root.path("nextSequence").asLong(1),
                tools);
    }

    /** A journalled tool result as JSON text (for journals that persist, like platform-api's JDBC one). */
    public String writeToolResult(ToolResult result) {
        ObjectNode node = NODES.objectNode();
        node.put("callId", result.callId());
        node.put("toolName", result.toolName());
        node.put("status", result.status().wireName());
        node.put("content", result.content());
        Failure failure = result.failure();
        if (failure != null) {
            ObjectNode f = node.putObject("failure");
            f.put("category", failure.category().name());
            f.put("code", failure.code());
            f.put("message", failure.message());
        }
        return node.toString();
    }

    /** Reads what {@link #writeToolResult} wrote. */
    public ToolResult readToolResult(String json) {
        JsonNode node = tree(json);
        JsonNode f = node.get("failure");
        Failure failure = f == null || f.isNull()
                ? null
                : new Failure(
                        FailureCategory.valueOf(text(f, "category")),
                        f.path("code").asString(""),
                        f.path("message").asString(""));
        return new ToolResult(
                text(node, "callId"),
                text(node, "toolName"),
                OutcomeStatus.fromWireName(text(node, "status")),
                node.path("content").asString(""),
                failure);
    }

    private JsonNode tree(String json) {
        try {
            return mapper.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("invalid JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static ObjectNode writeMessage(Message message) {
        ObjectNode node = NODES.objectNode();
        switch (message) {
            case SystemMessage m -> {
                node.put("role", "system");
                node.put("text", m.text());
            }
            case UserMessage m -> {
                node.put("role", "user");
                node.put("text", m.text());
            }
            case AssistantMessage m -> {
                node.put("role", "assistant");
                if (m.text() != null) {
                    node.put("text", m.text());
                }
                ArrayNode calls = node.putArray("toolCalls");
                m.toolCalls().forEach(c -> calls.add(writeCall(c)));
            }
            case ToolResultMessage m -> {
                node.put("role", "tool");
                node.put("callId", m.callId());
                node.put("toolName", m.toolName());
                node.put("content", m.content());
                node.put("error", m.error());
            }
        }
        return node;
    }

    private static Message readMessage(JsonNode node) {
        String role = text(node, "role");
        return switch (role) {
            case "system" -> new SystemMessage(text(node, "text"));
            case "user" -> new UserMessage(text(node, "text"));
            case "assistant" -> {
                List<ToolCall> calls = new ArrayList<>();
                for (JsonNode c : node.path("toolCalls")) {
                    calls.add(readCall(c));
                }
                JsonNode t = node.get("text");
                yield new AssistantMessage(t == null || t.isNull() ? null : t.asString(), calls);
            }
            case "tool" ->
                new ToolResultMessage(
                        text(node, "callId"),
                        text(node, "toolName"),
                        text(node, "content"),
                        node.path("error").asBoolean(false));
            default -> throw new IllegalArgumentException("unknown message role '" + role + "' in checkpoint");
        };
    }

    private static ObjectNode writeCall(ToolCall call) {
        ObjectNode node = NODES.objectNode();
        node.put("id", call.id());
        node.put("name", call.name());
        node.set("arguments", call.arguments());
        if (call.providerId() != null) {
            node.put("providerId", call.providerId());
        }
        return node;
    }

    private static ToolCall readCall(JsonNode node) {
        JsonNode args = node.get("arguments");
        JsonNode providerId = node.get("providerId");
        return new ToolCall(
                text(node, "id"),
                text(node, "name"),
                args == null ? NODES.objectNode() : args,
                providerId == null || providerId.isNull() ? null : providerId.asString());
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("checkpoint field '" + field + "' is missing");
        }
        return value.asString();
    }
}
