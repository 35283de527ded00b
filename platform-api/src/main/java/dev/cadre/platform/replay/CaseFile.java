package dev.cadre.platform.replay;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cadre.platform.replay.IncidentCase.ActionRef;
import dev.cadre.platform.replay.IncidentCase.Expectations;
import dev.cadre.platform.replay.IncidentCase.FindingRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * Reads, validates and writes incident case files (YAML, docs/replay.md). Reading collects every
 * wrong field before failing, each error naming the file and the field path, e.g. {@code
 * cases/x.yaml: expect.actions[1].tool: unknown tool 'foo'}; tool names are checked against the
 * tools a team knows (any name is accepted when that set is empty).
 */
public final class CaseFile {

    private static final Set<String> TOP = Set.of(
            "version",
            "name",
            "recordedFrom",
            "input",
            "calls",
            "subagents",
            "findings",
            "incident",
            "actions",
            "decisions",
            "result",
            "expect");
    private static final Set<String> EXPECT =
            Set.of("rootCause", "mustFind", "mustNotFind", "actions", "forbiddenActions", "ignoreArguments");

    // Fields in declaration order, no nulls, quotes only where YAML needs them and multi-line text
    // (tool outputs, alerts) as literal blocks: a case is read and diffed by people.
    private final YAMLMapper yaml = YAMLMapper.builder()
            .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .changeDefaultPropertyInclusion(
                    i -> JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
            .enable(YAMLWriteFeature.LITERAL_BLOCK_STYLE)
            .build();
    private final Predicate<String> knownTool;

    /** A reader checking tool names with {@code knownTool} (e.g. the catalog's tools and workers). */
    public CaseFile(Predicate<String> knownTool) {
        this.knownTool = knownTool;
    }

    /** Writes a case as YAML: fields in the format's order, so a case diffs well under version control. */
    public String write(IncidentCase c) {
        return yaml.writeValueAsString(c);
    }

    /** Parses and validates YAML text; {@code source} (a file name) prefixes every error. */
    public IncidentCase read(String source, String text) {
        JsonNode root;
        try {
            root = yaml.readTree(text);
        } catch (JacksonException e) {
            String message = e.getOriginalMessage() == null ? e.getMessage() : e.getOriginalMessage();
            throw new CaseFormatException(List.of(source + ": not readable YAML: "
                    + String.valueOf(message).lines().findFirst().orElse("")));
        }
        Reader r = new Reader(source);
        IncidentCase c = r.incidentCase(root);
        if (!r.errors.isEmpty()) {
            throw new CaseFormatException(r.errors);
        }
        return c;
    }

    /** Validates expectations alone (the body of {@code POST /runs/{id}/case}); {@code source} prefixes errors. */
    public Expectations readExpectations(String source, @Nullable JsonNode node) {
        Reader r = new Reader(source);
        Expectations e = node == null || node.isNull() || node.isMissingNode()
                ? Expectations.NONE
                : r.expectations(node, "expect");
        if (!r.errors.isEmpty()) {
            throw new CaseFormatException(r.errors);
        }
        return e;
    }

    /** One pass over a tree, collecting errors by field path. */
    private final class Reader {
        private final String source;
        final List<String> errors = new ArrayList<>();

        Reader(String source) {
            this.source = source;
        }

        void error(String path, String message) {
            errors.add(source + ": " + path + ": " + message);
        }

        IncidentCase incidentCase(JsonNode root) {
            if (!root.isObject()) {
                throw new CaseFormatException(
                        List.of(source + ": (root): must be a mapping with 'version', 'name', 'input', ..."));
            }
            unknownFields(root, "", TOP);
            JsonNode v = root.path("version");
            if (!v.isInt() || v.asInt() != IncidentCase.VERSION) {
                error("version", "must be " + IncidentCase.VERSION + " (was " + describe(v) + ")");
            }
            String name = required(root, "name", "name");
            JsonNode in = root.path("input");
            IncidentCase.Input input = new IncidentCase.Input("", "", null);
            if (!in.isObject()) {
                error("input", "must be a mapping with 'agent' and 'input'");
            } else {
                unknownFields(in, "input.", Set.of("agent", "input", "context"));
                input = new IncidentCase.Input(
                        required(in, "agent", "input.agent"),
                        required(in, "input", "input.input"),
                        optional(in, "context", "input.context"));
            }
            List<IncidentCase.Call> calls = list(root, "calls", (n, p) -> {
                String tool = tool(n, p);
                return new IncidentCase.Call(
                        required(n, "session", p + ".session"),
                        required(n, "agent", p + ".agent"),
                        tool,
                        arguments(n, p),
                        required(n, "risk", p + ".risk"),
                        required(n, "status", p + ".status"),
                        text(n, "output", p + ".output"));
            });
            List<IncidentCase.Subagent> subagents = list(
                    root,
                    "subagents",
                    (n, p) -> new IncidentCase.Subagent(
                            required(n, "session", p + ".session"),
                            required(n, "parent", p + ".parent"),
                            required(n, "worker", p + ".worker"),
                            required(n, "status", p + ".status")));
            List<JsonNode> findings = list(root, "findings", (n, p) -> {
                if (!n.isObject()) {
                    error(p, "must be a finding (a mapping with id, category, target, ...)");
                }
                return n;
            });
            JsonNode incident = root.get("incident");
            if (incident != null && !incident.isNull() && !incident.isObject()) {
                error("incident", "must be a mapping (the incident record) or absent");
            }
            List<IncidentCase.Action> actions =
                    list(root, "actions", (n, p) -> new IncidentCase.Action(tool(n, p), arguments(n, p)));
            List<IncidentCase.Decision> decisions = list(
                    root,
                    "decisions",
                    (n, p) -> new IncidentCase.Decision(
                            tool(n, p),
                            arguments(n, p),
                            required(n, "decision", p + ".decision"),
                            optional(n, "comment", p + ".comment")));
            String result = optional(root, "result", "result");
            JsonNode expect = root.get("expect");
            Expectations expectations =
                    expect == null || expect.isNull() ? Expectations.NONE : expectations(expect, "expect");
            return new IncidentCase(
                    IncidentCase.VERSION,
                    name,
                    optional(root, "recordedFrom", "recordedFrom"),
                    input,
                    calls,
                    subagents,
                    findings,
                    incident == null || incident.isNull() ? null : incident,
                    actions,
                    decisions,
                    result,
                    expectations);
        }

        Expectations expectations(JsonNode e, String path) {
            if (!e.isObject()) {
                error(path, "must be a mapping");
                return Expectations.NONE;
            }
            unknownFields(e, path + ".", EXPECT);
            JsonNode rc = e.get("rootCause");
            FindingRef rootCause = rc == null || rc.isNull() ? null : finding(rc, path + ".rootCause");
            Map<String, List<String>> ignore = new LinkedHashMap<>();
            JsonNode ig = e.get("ignoreArguments");
            if (ig != null && !ig.isNull()) {
                if (!ig.isObject()) {
                    error(path + ".ignoreArguments", "must map a tool name (or '*') to argument names");
                } else {
                    for (var entry : ig.properties()) {
                        String p = path + ".ignoreArguments." + entry.getKey();
                        if (!entry.getKey().equals("*") && !knownTool.test(entry.getKey())) {
                            error(p, "unknown tool '" + entry.getKey() + "'");
                        }
                        List<String> names = new ArrayList<>();
                        if (!entry.getValue().isArray()) {
                            error(p, "must be a list of argument names");
                        } else {
                            entry.getValue().valueStream().forEach(n -> {
                                if (n.isString() && !n.asString().isBlank()) {
                                    names.add(n.asString());
                                } else {
                                    error(p, "argument names must be non-blank strings");
                                }
                            });
                        }
                        ignore.put(entry.getKey(), List.copyOf(names));
                    }
                }
            }
            return new Expectations(
                    rootCause,
                    list(e, "mustFind", path + ".mustFind", this::finding),
                    list(e, "mustNotFind", path + ".mustNotFind", this::finding),
                    list(e, "actions", path + ".actions", this::action),
                    list(e, "forbiddenActions", path + ".forbiddenActions", this::action),
                    Collections.unmodifiableMap(ignore));
        }

        FindingRef finding(JsonNode n, String p) {
            if (!n.isObject()) {
                error(p, "must be a mapping with id, category and/or target");
                return new FindingRef(null, null, null);
            }
            unknownFields(n, p + ".", Set.of("id", "category", "target"));
            FindingRef f = new FindingRef(
                    optional(n, "id", p + ".id"),
                    optional(n, "category", p + ".category"),
                    optional(n, "target", p + ".target"));
            if (f.id() == null && f.category() == null && f.target() == null) {
                error(p, "give at least one of id, category, target");
            }
            return f;
        }

        ActionRef action(JsonNode n, String p) {
            if (!n.isObject()) {
                error(p, "must be a mapping with 'tool' and 'arguments'");
                return new ActionRef("", JsonNodeFactory.instance.objectNode());
            }
            unknownFields(n, p + ".", Set.of("tool", "arguments"));
            return new ActionRef(tool(n, p), arguments(n, p));
        }

        String tool(JsonNode n, String p) {
            String tool = required(n, "tool", p + ".tool");
            if (!tool.isEmpty() && !knownTool.test(tool)) {
                error(p + ".tool", "unknown tool '" + tool + "'");
            }
            return tool;
        }

        JsonNode arguments(JsonNode n, String p) {
            JsonNode a = n.get("arguments");
            if (a == null || a.isNull()) {
                return JsonNodeFactory.instance.objectNode();
            }
            if (!a.isObject()) {
                error(p + ".arguments", "must be a mapping of argument names to values");
                return JsonNodeFactory.instance.objectNode();
            }
            return a;
        }

        <T> List<T> list(JsonNode parent, String field, BiFunction<JsonNode, String, T> each) {
            return list(parent, field, field, each);
        }

        <T> List<T> list(JsonNode parent, String field, String path, BiFunction<JsonNode, String, T> each) {
            JsonNode a = parent.get(field);
            if (a == null || a.isNull()) {
                return List.of();
            }
            if (!a.isArray()) {
                error(path, "must be a list");
                return List.of();
            }
            List<T> out = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                JsonNode n = a.get(i);
                String p = path + "[" + i + "]";
                if (!n.isObject()) {
                    error(p, "must be a mapping");
                    continue;
                }
                out.add(each.apply(n, p));
            }
            return List.copyOf(out);
        }

        String required(JsonNode n, String field, String path) {
            JsonNode v = n.get(field);
            if (v == null || !v.isString() || v.asString().isBlank()) {
                error(path, "required, a non-blank string (was " + describe(v) + ")");
                return "";
            }
            return v.asString();
        }

        String text(JsonNode n, String field, String path) {
            JsonNode v = n.get(field);
            if (v == null || !v.isString()) {
                error(path, "required, a string (was " + describe(v) + ")");
                return "";
            }
            return v.asString();
        }

        @Nullable
        String optional(JsonNode n, String field, String path) {
            JsonNode v = n.get(field);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isString()) {
                error(path, "must be a string (was " + describe(v) + ")");
                return null;
            }
            return v.asString();
        }

        void unknownFields(JsonNode n, String prefix, Set<String> allowed) {
            for (String name : n.propertyNames()) {
                if (!allowed.contains(name)) {
                    error(
                            prefix + name,
                            "unknown field (known: " + allowed.stream().sorted().toList() + ")");
                }
            }
        }
    }

    private static String describe(@Nullable JsonNode v) {
        if (v == null || v.isMissingNode()) {
            return "missing";
        }
        return (v.isObject() || v.isArray()) ? v.getNodeType().name().toLowerCase(java.util.Locale.ROOT) : v.toString();
    }
}
