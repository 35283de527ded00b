package dev.cadre.platform.evals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A routing evaluation: cases given to one orchestrator, each run {@code repeat} times so that
 * consistency can be measured, with the workers (and optionally the order) each case should reach.
 *
 * @param name the suite's name (a label of its metrics when it is a shipped suite)
 * @param agent the orchestrator (agent or workflow) every case is submitted to
 * @param repeat runs per case (k), 1 to {@link EvalSuites#MAX_REPEAT}
 * @param caseTimeoutSeconds how long one run may take before it is cancelled and scored as timed out
 */
public record EvalSuite(String name, String agent, int repeat, long caseTimeoutSeconds, List<Case> cases) {

    public EvalSuite {
        cases = List.copyOf(cases);
    }

    /** The same suite run {@code k} times per case instead. */
    public EvalSuite withRepeat(int k) {
        return new EvalSuite(name, agent, k, caseTimeoutSeconds, cases);
    }

    /**
     * One input and what a good answer to it looks like.
     *
     * @param workers the workers the orchestrator should delegate to, as a set (empty: none at all;
     *     null: routing is not judged for this case)
     * @param path the expected decomposition, in order; each step is one worker or a set of workers
     *     called together (in any order among themselves); empty when the order is not judged
     * @param facts phrases the final answer should contain (case-insensitive)
     * @param tasks per worker, phrases the tasks the orchestrator sends it must mention
     *     (case-insensitive): the content side of decomposition, judged from the delegations'
     *     arguments; empty when not judged
     */
    public record Case(
            String name,
            String input,
            @Nullable String context,
            @Nullable List<String> workers,
            List<List<String>> path,
            List<String> facts,
            Map<String, List<String>> tasks) {

        public Case {
            workers = workers == null ? null : List.copyOf(workers);
            path = path.stream().map(List::copyOf).toList();
            facts = List.copyOf(facts);
            Map<String, List<String>> copy = new LinkedHashMap<>();
            tasks.forEach((w, f) -> copy.put(w, List.copyOf(f)));
            tasks = java.util.Collections.unmodifiableMap(copy);
        }
    }
}
