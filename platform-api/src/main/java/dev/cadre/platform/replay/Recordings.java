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
        JsonNode args = arguments;
        if (!without.isEmpty() && arguments instanceof ObjectNode o) {
            ObjectNode copy = o.deepCopy();
            copy.remove(without);
            args = copy;
        }
        return tool + " " + CanonicalJson.write(args);
    }
}
