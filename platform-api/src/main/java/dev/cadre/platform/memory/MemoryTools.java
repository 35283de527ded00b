package dev.cadre.platform.memory;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.Tools;
import dev.cadre.memory.InvalidMemoryRequestException;
import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import dev.cadre.platform.agents.AgentCatalog;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shared-memory tools agents get: {@code memory_get}, {@code memory_put} (with the version the
 * agent read) and {@code memory_update} (merge or append, retried on conflicts). A conflict is a
 * result the model reads — current version and value included — so it can re-decide; only an
 * update that keeps losing becomes {@code STATE_INCONSISTENCY}.
 */
public final class MemoryTools {

    static final int UPDATE_RETRIES = 8;

    /** Namespaces the platform itself keeps (incident records): no agent's memory tools may touch them. */
    static final java.util.Set<String> PLATFORM_NAMESPACES = AgentCatalog.PLATFORM_NAMESPACES;

    /** Which namespaces an agent may use: its YAML {@code memory} entries (names, or prefixes ending in *). */
    @FunctionalInterface
    public interface NamespaceAccess {
        List<String> namespacesOf(String agent);
    }

    private final SharedMemory memory;
    private final JsonMapper json;
    private final NamespaceAccess access;
    private final List<Tool> tools;

    public MemoryTools(SharedMemory memory, JsonMapper json, NamespaceAccess access) {
        this.memory = memory;
        this.json = json;
        this.access = access;
        this.tools = List.of(
                Tools.of(
                        "memory_get",
                        "Read an entry of the shared memory: its JSON value and version. Pass the version to memory_put"
                                + " to write it back safely.",
                        schema("{" + NS_KEY + "}", "namespace", "key"),
                        Risk.AUTO,
                        this::get),
                Tools.of(
                        "memory_put",
                        "Write a JSON value to the shared memory if the entry is still at expectedVersion (0 = create only"
                                + " if absent). On a conflict you get the current version and value: re-decide, do not overwrite blindly.",
                        schema(
                                "{" + NS_KEY + ",\"value\":{\"description\":\"any JSON value\"},"
                                        + "\"expectedVersion\":{\"type\":\"integer\",\"minimum\":0}}",
                                "namespace",
                                "key",
                                "value",
                                "expectedVersion"),
                        Risk.AUTO,
                        this::put),
                Tools.of(
                        "memory_update",
                        "Change an entry without losing concurrent updates: 'merge' applies a JSON merge patch to an object"
                                + " value, 'append' adds an element to an array value (created if absent). Retried on conflicts.",
                        schema(
                                "{" + NS_KEY
                                        + ",\"merge\":{\"type\":\"object\"},\"append\":{\"description\":\"element to append\"}}",
                                "namespace",
                                "key"),
                        Risk.AUTO,
                        this::update));
    }

    /** The three tools, built once (their schemas are parsed here, not on every model call). */
    public List<Tool> tools() {
        return tools;
    }

    private ObjectNode schema(String props, String... required) {
        ObjectNode schema = (ObjectNode) json.readTree("{\"type\":\"object\",\"properties\":" + props + "}");
        ArrayNode req = schema.putArray("required");
        for (String r : required) {
            req.add(r);
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    private static final String NS_KEY =
            "\"namespace\":{\"type\":\"string\",\"minLength\":1,\"description\":\"memory namespace (one of those this agent may use)\"},"
                    + "\"key\":{\"type\":\"string\",\"minLength\":1,\"description\":\"entry key\"}";

    private ObjectNode entryJson(MemoryEntry e) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("found", true);
        o.put("namespace", e.namespace());
        o.put("key", e.key());
        o.put("version", e.version());
        o.set("value", json.readTree(e.value()));
        o.put("updatedBy", e.updatedBy().id());
        o.put("updatedAt", e.updatedAt().toString());
        return o;
    }

    private String conflictJson(String ns, String key, WriteOutcome.Conflict c) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("status", "conflict");
        o.put("message", "the entry changed since you read it: re-read the current value and decide again");
        o.put("currentVersion", c.currentVersion());
        o.set(
                "currentValue",
                c.current() == null ? null : json.readTree(c.current().value()));
        o.put("namespace", ns);
        o.put("key", key);
        return o.toString();
    }

    private static ToolException invalid(InvalidMemoryRequestException e) {
        return new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_memory_request", e.getMessage());
    }

    /** Refuses a namespace the agent's YAML does not list, and the platform's own, whatever the YAML says. */
    private void checkAccess(String ns, ToolContext ctx) throws ToolException {
        List<String> allowed = access.namespacesOf(ctx.agent());
        boolean listed = allowed.stream()
                .anyMatch(a -> a.endsWith("*") ? ns.startsWith(a.substring(0, a.length() - 1)) : a.equals(ns));
        if (PLATFORM_NAMESPACES.contains(ns) || !listed) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "namespace_not_allowed",
                    "agent " + ctx.agent() + " may not use memory namespace '" + ns + "'"
                            + (PLATFORM_NAMESPACES.contains(ns)
                                    ? ": it holds the platform's incident records (use the incident_* tools)"
                                    : " (allowed: " + allowed + "; the agent's YAML field 'memory' lists them)"));
        }
    }

    private String get(JsonNode args, ToolContext ctx) throws ToolException {
        String ns = args.get("namespace").asString();
        checkAccess(ns, ctx);
        String key = args.get("key").asString();
        try {
            return memory.get(ns, key)
                    .map(e -> entryJson(e).toString())
                    .orElseGet(() -> json.writeValueAsString(Map.of("found", false, "namespace", ns, "key", key)));
        } catch (InvalidMemoryRequestException e) {
            throw invalid(e);
        }
    }

    private String put(JsonNode args, ToolContext ctx) throws ToolException {
        String ns = args.get("namespace").asString();
        checkAccess(ns, ctx);
        String key = args.get("key").asString();
        try {
            WriteOutcome outcome = memory.put(
                    ns,
                    key,
                    args.get("value").toString(),
                    args.get("expectedVersion").asLong(),
                    Writer.agent(ctx.agent(), ctx.runId()),
                    requestId(ctx));
            return switch (outcome) {
                case WriteOutcome.Written w ->
                    json.writeValueAsString(Map.of("status", "written", "version", w.version()));
                case WriteOutcome.Conflict c -> conflictJson(ns, key, c);
            };
        } catch (InvalidMemoryRequestException e) {
            throw invalid(e);
        }
    }

    private String update(JsonNode args, ToolContext ctx) throws ToolException {
        String ns = args.get("namespace").asString();
        checkAccess(ns, ctx);
        String key = args.get("key").asString();
        JsonNode merge = args.get("merge");
        JsonNode append = args.get("append");
        if ((merge == null) == (append == null)) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR, "invalid_arguments", "give exactly one of 'merge' or 'append'");
        }
        try {
            WriteOutcome outcome = memory.update(
                    ns,
                    key,
                    current -> {
                        JsonNode base = current == null ? null : json.readTree(current.value());
                        return (merge != null ? mergePatch(base, merge) : appended(base, append)).toString();
                    },
                    UPDATE_RETRIES,
                    Writer.agent(ctx.agent(), ctx.runId()));
            return switch (outcome) {
                case WriteOutcome.Written w ->
                    json.writeValueAsString(Map.of("status", "written", "version", w.version()));
                case WriteOutcome.Conflict c ->
                    throw new ToolException(
                            FailureCategory.STATE_INCONSISTENCY,
                            "memory_conflict",
                            ns + "/" + key + " kept changing: " + (UPDATE_RETRIES + 1)
                                    + " attempts lost to concurrent writers (now at version " + c.currentVersion()
                                    + ")");
            };
        } catch (InvalidMemoryRequestException e) {
            throw invalid(e);
        } catch (IllegalArgumentException e) {
            throw new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_arguments", e.getMessage());
        }
    }

    /** The same tool call (e.g. replayed after a resume) writes at most once. */
    static String requestId(ToolContext ctx) {
        String id = ctx.runId() + "/" + ctx.sessionId() + "/" + ctx.callId();
        if (id.length() <= 128) {
            return id;
        }
        try {
            var sha = java.security.MessageDigest.getInstance("SHA-256");
            return "sha256:"
                    + java.util.HexFormat.of()
                            .formatHex(sha.digest(id.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** RFC 7386 JSON merge patch. */
    static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode result = target != null && target.isObject()
                ? ((ObjectNode) target).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> field : patch.properties()) {
            if (field.getValue().isNull()) {
                result.remove(field.getKey());
            } else {
                result.set(field.getKey(), mergePatch(result.get(field.getKey()), field.getValue()));
            }
        }
        return result;
    }

    private static JsonNode appended(JsonNode base, JsonNode element) {
        if (base != null && !base.isArray()) {
            throw new IllegalArgumentException(
                    "append needs an array value, but the entry holds " + base.getNodeType());
        }
        ArrayNode array = base == null ? JsonNodeFactory.instance.arrayNode() : ((ArrayNode) base).deepCopy();
        array.add(element);
        return array;
    }
}
