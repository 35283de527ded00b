package dev.cadre.agent.scripted;

import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.internal.JsonText;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.TokenEstimator;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UntrustedText;
import dev.cadre.agent.model.UserMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A deterministic model: replies per agent from a script, with simulated latency, and a record of
 * every request it received (so a test can assert what a subagent saw).
 *
 * <p>The turn a request gets is the number of assistant messages already in its history, so
 * concurrent sessions of one agent and resumed runs each follow the script from their own position.
 *
 * <p>Script format (JSON, or the same structure as plain Java maps and lists, e.g. from YAML):
 *
 * <pre>{@code
 * {"defaults": {"latencyMillis": 80},
 *  "agents": {
 *    "orchestrator": {
 *      "turns": [
 *        {"text": "Checking both.", "toolCalls": [
 *           {"name": "metrics_worker", "arguments": {"task": "CPU of {{input}}"}},
 *           {"name": "logs_worker", "arguments": {"task": "errors on api"}}]},
 *        {"text": "Metrics: {{result[0]}}\nLogs: {{results.logs_worker}}"}]},
 *    "metrics_worker": {
 *      "latencyMillis": 10,
 *      "whenExhausted": "no more data",
 *      "variants": [
 *        {"when": "api", "turns": [{"text": "api: 93% CPU"}]},
 *        {"turns": [{"text": "normal"}]}]}}}
 * }</pre>
 *
 * Turn fields: {@code text}, {@code toolCalls} ({@code name}, {@code arguments}, optional {@code id}),
 * {@code latencyMillis}, {@code usage} ({@code {"input": n, "output": n}}, else estimated at four
 * characters a token), {@code fail} (a message: the provider fails with {@code COMMUNICATION_ERROR}).
 * An agent holds {@code turns} or {@code variants}: the first whose {@code when} matches the task
 * wins; one without {@code when} matches anything. {@code when} is a text that occurs in the task
 * outside fenced data ({@link UntrustedText}), or {@code {"field": "/json/pointer", "equals": "value"}}
 * for a field of the task's structured data (see {@link AgentScript.FieldIs}); plus optional
 * {@code latencyMillis} and {@code whenExhausted}
 * (the final answer once the turns run out; without it running out is a {@code COMMUNICATION_ERROR}
 * with code {@code script_exhausted}).
 *
 * <p>Templates, in texts and in string argument values, quote the session's conversation:
 * {@code {{input}}} the task (first user message); {@code {{result[i]}}} the i-th tool result of the
 * previous turn (0-based, call order); {@code {{results.NAME}}} the previous turn's results of tool
 * or worker NAME (joined by newlines); {@code {{results}}} all of them as {@code name: content} lines;
 * {@code {{last.NAME}}} the latest result of tool or worker NAME in the whole conversation. Any of
 * them followed by a JSON pointer ({@code {{input/kubernetes/namespace}}}, {@code {{result[0]/revision}}})
 * stands for that field of the text's structured data (the JSON it starts with, else the JSON after its
 * last {@code Context:} line; the task's fenced data never counts): a value as its text, an object or
 * array as JSON, nothing when the field is absent.
 * A call with {@code "forEach": "{{result[0]}}"} is repeated once per element of that JSON array,
 * {@code {{item}}} in its arguments standing for the element (see {@link ScriptedCall}).
 * A reference to nothing is left as written, so a script mistake shows in the output.
 */
public final class ScriptedModel implements ModelPort {

    private static final Pattern TEMPLATE = Pattern.compile(
            "\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_\\-]*(?:\\[\\d+]|\\.[a-zA-Z0-9_\\-]+)?(?:/[A-Za-z0-9_.~\\-/]*)?)\\s*}}");
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final tools.jackson.databind.ObjectReader FIRST_VALUE = MAPPER.readerFor(JsonNode.class)
            .without(tools.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final Map<String, AgentScript> scripts;
    private final boolean recordRequests;
    private final ConcurrentLinkedQueue<ModelRequest> requests = new ConcurrentLinkedQueue<>();
    // Templates parsed once per distinct text: a regex per reply was a tenth of a benchmark worker's cost.
    private final Map<String, List<Part>> templates = new java.util.concurrent.ConcurrentHashMap<>();

    /** A literal piece of a template, or a reference ({@code text} is then how it was written). */
    private record Part(String text, @Nullable String reference) {}

    private static List<Part> compile(String template) {
        List<Part> parts = new ArrayList<>();
        Matcher m = TEMPLATE.matcher(template);
        int last = 0;
        while (m.find()) {
            if (m.start() > last) {
                parts.add(new Part(template.substring(last, m.start()), null));
            }
            parts.add(new Part(m.group(), m.group(1)));
            last = m.end();
        }
        if (last < template.length()) {
            parts.add(new Part(template.substring(last), null));
        }
        return List.copyOf(parts);
    }

    /** A model answering each agent from its script, recording requests. */
    public ScriptedModel(Map<String, AgentScript> scripts) {
        this(scripts, true);
    }

    /** A model answering each agent from its script; benchmarks turn recording off. */
    public ScriptedModel(Map<String, AgentScript> scripts, boolean recordRequests) {
        this.scripts = Map.copyOf(scripts);
        this.recordRequests = recordRequests;
    }

    /** Parses a script in the JSON format described above. */
    public static ScriptedModel fromJson(String json) {
        return fromTree(MAPPER.readTree(json));
    }

    /** Builds a script from plain maps and lists in the format described above (e.g. parsed YAML). */
    public static ScriptedModel fromMap(Map<String, ?> script) {
        return fromTree(MAPPER.valueToTree(script));
    }

    private static ScriptedModel fromTree(JsonNode root) {
        return new ScriptedModel(ScriptParser.scripts(root));
    }

    @Override
    public ModelResponse call(ModelRequest request) throws InterruptedException {
        if (recordRequests) {
            requests.add(request);
        }
        AgentScript script = scripts.get(request.agent());
        if (script == null) {
            throw new ModelException(
                    "no_script", "the scripted model has no script for agent '" + request.agent() + "'");
        }
        Conversation conversation = Conversation.of(request.messages(), templates);
        AgentScript.Variant variant = choose(script, conversation.input());
        if (variant == null) {
            throw new ModelException(
                    "no_script", "no script variant of agent '" + request.agent() + "' matches its task");
        }
        int index = conversation.turn();
        ScriptedTurn turn;
        if (index < variant.turns().size()) {
            turn = variant.turns().get(index);
        } else if (script.whenExhausted() != null) {
            turn = ScriptedTurn.text(script.whenExhausted());
        } else {
            throw new ModelException(
                    "script_exhausted",
                    "the script of agent '" + request.agent() + "' has "
                            + variant.turns().size() + " turns; turn " + (index + 1) + " was requested");
        }
        Duration latency = turn.latency() != null ? turn.latency() : script.latency();
        if (!latency.isZero()) {
            Thread.sleep(latency);
        }
        if (turn.failure() != null) {
            throw new ModelException("scripted_failure", turn.failure());
        }
        String text = turn.text() == null ? null : conversation.render(turn.text());
        List<ToolCall> calls = new ArrayList<>(turn.toolCalls().size());
        for (int k = 0; k < turn.toolCalls().size(); k++) {
            ScriptedCall call = turn.toolCalls().get(k);
            String id = call.id() != null ? call.id() : "call_" + (index + 1) + "_" + (k + 1);
            JsonNode arguments = conversation.render(call.arguments());
            if (call.forEach() == null) {
                calls.add(new ToolCall(id, call.name(), arguments));
                continue;
            }
            List<JsonNode> items = items(request.agent(), call, conversation.render(call.forEach()));
            for (int i = 0; i < items.size(); i++) {
                calls.add(new ToolCall(id + "_" + (i + 1), call.name(), withItem(arguments, items.get(i))));
            }
        }
        TokenUsage usage = turn.usage();
        if (usage == null) {
            long output = text == null ? 0 : TokenEstimator.ofText(text);
            for (ToolCall call : calls) {
                output += (call.name().length() + JsonText.approximateLength(call.arguments()) + 3) / 4;
            }
            usage = new TokenUsage(
                    TokenEstimator.CHARACTERS_DIV_4.estimate(request.messages(), request.tools()), output);
        }
        if (usage.outputTokens() > request.maxOutputTokens()) {
            // What a provider does at its max-tokens limit: stop there and say so.
            return new ModelResponse(text, calls, new TokenUsage(usage.inputTokens(), request.maxOutputTokens()), true);
        }
        return new ModelResponse(text, calls, usage);
    }

    /** The elements a {@code forEach} call repeats over: its rendered template must be a JSON array. */
    private static List<JsonNode> items(String agent, ScriptedCall call, String rendered) {
        JsonNode array;
        try {
            array = MAPPER.readTree(rendered);
        } catch (RuntimeException e) {
            array = null;
        }
        if (array == null || !array.isArray()) {
            throw new ModelException(
                    "script_error",
                    "forEach of agent '" + agent + "', call " + call.name() + ": '" + call.forEach()
                            + "' is not a JSON array: "
                            + (rendered.length() > 200 ? rendered.substring(0, 200) + "…" : rendered));
        }
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    /** The arguments with {@code {{item}}} replaced by the element (its text, or its JSON). */
    private static JsonNode withItem(JsonNode node, JsonNode item) {
        if (node.isString()) {
            String value = item.isString() ? item.asString() : item.toString();
            return JsonNodeFactory.instance.stringNode(node.asString().replace("{{item}}", value));
        }
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                copy.set(e.getKey(), withItem(e.getValue(), item));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            for (JsonNode e : node) {
                copy.add(withItem(e, item));
            }
            return copy;
        }
        return node;
    }

    private static AgentScript.@Nullable Variant choose(AgentScript script, String input) {
        // Fenced data (an alert's annotations, a remote agent's message) never chooses a variant.
        String own = UntrustedText.withoutFences(input);
        JsonNode data = null;
        boolean parsed = false;
        for (AgentScript.Variant v : script.variants()) {
            if (v.whenField() != null) {
                if (!parsed) {
                    data = structured(own);
                    parsed = true;
                }
                JsonNode at = data == null ? null : data.at(v.whenField().pointer());
                if (at != null
                        && at.isValueNode()
                        && at.asString().equals(v.whenField().value())) {
                    return v;
                }
            } else if (v.when() == null || own.contains(v.when())) {
                return v;
            }
        }
        return null;
    }

    /** The task's structured data: the JSON value it starts with, else the JSON after its last Context line. */
    private static @Nullable JsonNode structured(String task) {
        JsonNode leading = firstJsonValue(task.stripLeading());
        if (leading != null && leading.isContainer()) {
            return leading;
        }
        int context = task.lastIndexOf("\n\nContext:\n");
        return context < 0 ? null : firstJsonValue(task.substring(context + 11));
    }

    private static @Nullable JsonNode firstJsonValue(String text) {
        if (!text.startsWith("{") && !text.startsWith("[")) {
            return null;
        }
        try {
            // Only the first value: a worker's task may go on in prose (inputs, a budget note).
            return FIRST_VALUE.readValue(text);
        } catch (RuntimeException notJson) {
            return null;
        }
    }

    /** Every request received, in arrival order. */
    public List<ModelRequest> requests() {
        return List.copyOf(requests);
    }

    /** The requests an agent's sessions sent. */
    public List<ModelRequest> requestsOf(String agent) {
        List<ModelRequest> out = new ArrayList<>();
        for (ModelRequest r : requests) {
            if (r.agent().equals(agent)) {
                out.add(r);
            }
        }
        return out;
    }

    /** What the templates of one reply can quote. */
    private record Conversation(
            String input,
            int turn,
            List<ToolResultMessage> lastResults,
            List<Message> messages,
            Map<String, List<Part>> templates) {

        static Conversation of(List<Message> messages, Map<String, List<Part>> templates) {
            String input = "";
            int turn = 0;
            for (Message m : messages) {
                if (m instanceof UserMessage u && input.isEmpty()) {
                    input = u.text();
                } else if (m instanceof AssistantMessage) {
                    turn++;
                }
            }
            List<ToolResultMessage> results = new ArrayList<>();
            for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolResultMessage r; i--) {
                results.addFirst(r);
            }
            return new Conversation(input, turn, results, messages, templates);
        }

        String render(String template) {
            if (!template.contains("{{")) {
                return template;
            }
            StringBuilder out = new StringBuilder(template.length() + 64);
            for (Part part : templates.computeIfAbsent(template, ScriptedModel::compile)) {
                if (part.reference() == null) {
                    out.append(part.text());
                } else {
                    String value = resolve(part.reference());
                    out.append(value == null ? part.text() : value);
                }
            }
            return out.toString();
        }

        JsonNode render(JsonNode node) {
            if (node.isString()) {
                // An argument that is exactly one field template keeps a number or boolean as one (JSON stays text).
                Matcher whole = TEMPLATE.matcher(node.asString().strip());
                if (whole.matches() && whole.group(1).indexOf('/') > 0) {
                    JsonNode at = field(whole.group(1));
                    if (at != null && at.isValueNode()) {
                        return at;
                    }
                }
                return JsonNodeFactory.instance.stringNode(render(node.asString()));
            }
            if (node.isObject()) {
                ObjectNode copy = JsonNodeFactory.instance.objectNode();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    copy.set(e.getKey(), render(e.getValue()));
                }
                return copy;
            }
            if (node.isArray()) {
                ArrayNode copy = JsonNodeFactory.instance.arrayNode();
                for (JsonNode e : node) {
                    copy.add(render(e));
                }
                return copy;
            }
            return node;
        }

        /** A field of the referenced text's structured data ({@code input/kubernetes/namespace}), or null. */
        private @Nullable JsonNode field(String reference) {
            int slash = reference.indexOf('/');
            String text = resolve(reference.substring(0, slash));
            if (text == null) {
                return null;
            }
            JsonNode data = structured(reference.startsWith("input/") ? UntrustedText.withoutFences(text) : text);
            JsonNode at = data == null ? null : data.at(reference.substring(slash));
            return at == null || at.isMissingNode() || at.isNull() ? null : at;
        }

        private @Nullable String resolve(String reference) {
            if (reference.indexOf('/') > 0) {
                // A field the data does not have is empty text: a script can quote an error that may be absent.
                JsonNode at = field(reference);
                return at == null ? "" : at.isValueNode() ? at.asString() : at.toString();
            }
            if (reference.equals("input")) {
                return input;
            }
            if (reference.equals("results")) {
                StringBuilder all = new StringBuilder();
                for (ToolResultMessage r : lastResults) {
                    if (!all.isEmpty()) {
                        all.append('\n');
                    }
                    all.append(r.toolName()).append(": ").append(r.content());
                }
                return all.toString();
            }
            if (reference.startsWith("result[")) {
                int i = Integer.parseInt(reference.substring(7, reference.length() - 1));
                return i < lastResults.size() ? lastResults.get(i).content() : null;
            }
            if (reference.startsWith("last.")) {
                // The latest result of that tool in the whole conversation, not only the previous turn.
                String name = reference.substring(5);
                for (int i = messages.size() - 1; i >= 0; i--) {
                    if (messages.get(i) instanceof ToolResultMessage r
                            && r.toolName().equals(name)) {
                        return r.content();
                    }
                }
                return null;
            }
            if (reference.startsWith("results.")) {
                String name = reference.substring(8);
                StringBuilder joined = new StringBuilder();
                boolean found = false;
                for (Iterator<ToolResultMessage> it = lastResults.iterator(); it.hasNext(); ) {
                    ToolResultMessage r = it.next();
                    if (r.toolName().equals(name)) {
                        if (found) {
                            joined.append('\n');
                        }
                        joined.append(r.content());
                        found = true;
                    }
                }
                return found ? joined.toString() : null;
            }
            return null;
        }
    }
}
