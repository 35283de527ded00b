package dev.cadre.platform.replay;

import dev.cadre.agent.approval.CanonicalJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The recorded answers of one case, looked up by tool name and canonical arguments ({@link
 * CanonicalJson}). A call that matches no recording exactly is matched again without the arguments
 * the case declares ignorable for that tool ({@code expect.ignoreArguments}, {@code *} for every
 * tool), e.g. a log query with another {@code tailLines}. Repeated identical calls get the recorded
 * answers in order, the last one again once they run out. Thread-safe: a turn's calls run
 * concurrently.
 */
public final class Recordings {

    /** What a replayed call gets: the recorded answer, or none (a deviation). */
    public sealed interface Answer {
        /** The recorded call answering, and whether it matched only with ignored arguments. */
        record Recorded(IncidentCase.Call call, boolean nearMatch) implements Answer {}

        /** No recording: the error text the model reads. */
        record Missing(String message) implements Answer {}
    }

    private final Map<String, List<String>> ignore;
    private final Map<String, List<IncidentCase.Call>> exact = new HashMap<>();
    private final Map<String, List<IncidentCase.Call>> near = new HashMap<>();
    private final Map<String, Integer> used = new HashMap<>();
    private final List<String> deviations = new ArrayList<>();
    private final Map<String, List<IncidentCase.Decision>> decisions = new HashMap<>();
    private final Map<String, Integer> decided = new HashMap<>();

    public Recordings(IncidentCase c) {
        this.ignore = c.expect().ignoreArguments();
        for (IncidentCase.Decision d : c.decisions()) {
            decisions
                    .computeIfAbsent(key(d.tool(), d.arguments(), Set.of()), k -> new ArrayList<>())
                    .add(d);
        }
        for (IncidentCase.Call call : c.calls()) {
            exact.computeIfAbsent(key(call.tool(), call.arguments(), Set.of()), k -> new ArrayList<>())
                    .add(call);
            near.computeIfAbsent(key(call.tool(), call.arguments(), ignored(call.tool())), k -> new ArrayList<>())
                    .add(call);
        }
    }

    /** The answer to {@code tool} called with {@code arguments}; a miss is recorded as a deviation. */
    public synchronized Answer answer(String tool, JsonNode arguments) {
        String k = key(tool, arguments, Set.of());
        List<IncidentCase.Call> hits = exact.get(k);
        boolean nearMatch = false;
        if (hits == null) {
            k = "~" + key(tool, arguments, ignored(tool));
            hits = near.get(k.substring(1));
            nearMatch = true;
        }
        if (hits == null) {
            String message = "no recording for " + tool + " " + CanonicalJson.write(arguments);
            deviations.add(message);
            return new Answer.Missing(message);
        }
        int n = used.merge(k, 1, Integer::sum) - 1;
        return new Answer.Recorded(hits.get(Math.min(n, hits.size() - 1)), nearMatch);
    }

    /**
     * The humans' recorded decision on an approval of {@code tool} with {@code arguments} (tool and
     * canonical arguments, the recorded decisions in order for repeated identical requests), or empty:
     * a deviation, which the caller answers with a rejection.
     */
    public synchronized java.util.Optional<IncidentCase.Decision> decision(String tool, JsonNode arguments) {
        String k = key(tool, arguments, Set.of());
        List<IncidentCase.Decision> hits = decisions.get(k);
        if (hits == null) {
            deviations.add("no recorded decision for " + k);
            return java.util.Optional.empty();
        }
        int n = decided.merge(k, 1, Integer::sum) - 1;
        return java.util.Optional.of(hits.get(Math.min(n, hits.size() - 1)));
    }

    /**
     * The name a recorded denial of {@code tool} with {@code arguments} gave its rejecter (the recorded
     * output the model read: {@code "comment":"rejected by NAME: ..."}), or empty when the recording has
     * no such denial. A replay's rejection names the same person, so the model reads the recorded text.
     */
    public synchronized java.util.Optional<String> rejecter(String tool, JsonNode arguments) {
        for (IncidentCase.Call call : exact.getOrDefault(key(tool, arguments, Set.of()), List.of())) {
            if (call.status().equals("denied")) {
                java.util.regex.Matcher m = REJECTED_BY.matcher(call.output());
                if (m.find()) {
                    return java.util.Optional.of(m.group(1));
                }
            }
        }
        return java.util.Optional.empty();
    }

    private static final java.util.regex.Pattern REJECTED_BY =
            java.util.regex.Pattern.compile("\"comment\":\"rejected by ([^\":\\\\]{1,200}): ");

    /** The calls that found no recording so far, in order. */
    public synchronized List<String> deviations() {
        return List.copyOf(deviations);
    }

    private Set<String> ignored(String tool) {
        Set<String> names = new TreeSet<>(ignore.getOrDefault("*", List.of()));
        names.addAll(ignore.getOrDefault(tool, List.of()));
        return names;
    }

    private static String key(String tool, JsonNode arguments, Set<String> without) {
        JsonNode args = jsonTextsCanonical(arguments.deepCopy());
        if (!without.isEmpty() && args instanceof ObjectNode o) {
            o.remove(without);
        }
        return tool + " " + CanonicalJson.write(args);
    }

    /**
     * {@code node} with every string argument that holds a JSON object or array replaced by that JSON's
     * canonical text: such a text is compared by its content, not its spacing. The stored events (so the
     * case) hold such a string compact while the live call may space it (e.g. {@code ask_human}'s
     * {@code context} as a scripted model writes it), and the approval request of the same call would
     * otherwise find no recorded decision.
     */
    private static JsonNode jsonTextsCanonical(JsonNode node) {
        if (node instanceof ObjectNode o) {
            for (String name : List.copyOf(o.propertyNames())) {
                o.set(name, jsonTextsCanonical(o.get(name)));
            }
            return o;
        }
        if (node instanceof tools.jackson.databind.node.ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                a.set(i, jsonTextsCanonical(a.get(i)));
            }
            return a;
        }
        if (node.isString()) {
            String text = node.asString().strip();
            if ((text.startsWith("{") && text.endsWith("}")) || (text.startsWith("[") && text.endsWith("]"))) {
                try {
                    return tools.jackson.databind.node.JsonNodeFactory.instance.stringNode(
                            CanonicalJson.write(JSON.readTree(text)));
                } catch (tools.jackson.core.JacksonException e) {
                    return node; // not JSON after all: compared as it is
                }
            }
        }
        return node;
    }

    private static final tools.jackson.databind.json.JsonMapper JSON =
            tools.jackson.databind.json.JsonMapper.builder().build();
}
