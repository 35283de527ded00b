package dev.cadre.platform.evals;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an evaluation found. Ratios are in [0, 1] and null where nothing was there to judge (no case
 * expected an order, say), so "not measured" never reads as "perfect" or "zero".
 */
public record EvalReport(
        String suite, String agent, int repeat, Summary summary, List<WorkerScore> workers, List<CaseScore> cases) {

    /**
     * Over all runs of the suite.
     *
     * @param routingAccuracy runs that reached exactly the expected set of workers / runs judged for routing
     * @param misrouteRate delegations to a worker the case did not expect (or to no worker at all) / all delegations
     * @param decompositionAccuracy runs whose delegations followed the expected path and whose tasks
     *     mentioned what each worker was expected to be told / runs with a path or tasks to judge
     * @param consistency mean over cases of the share of its k runs that routed like the case's most common routing
     * @param factRecall mean share of the expected facts found in the answers
     */
    public record Summary(
            int cases,
            int runs,
            int failedRuns,
            @Nullable Double routingAccuracy,
            @Nullable Double misrouteRate,
            @Nullable Double decompositionAccuracy,
            double consistency,
            @Nullable Double factRecall,
            long delegations,
            long misroutes,
            long missed,
            double meanInputTokens,
            double meanOutputTokens,
            @Nullable Double meanCost) {}

    /**
     * One worker over all runs (seed 004's per-worker misroute rate).
     *
     * @param expected runs whose case expected the worker
     * @param routed runs that delegated to it
     * @param correct runs that expected it and delegated to it
     * @param misrouted runs that delegated to it although their case did not expect it
     * @param missed runs that expected it and never delegated to it
     */
    public record WorkerScore(
            String worker,
            boolean known,
            int expected,
            int routed,
            int correct,
            int misrouted,
            int missed,
            @Nullable Double misrouteRate,
            @Nullable Double recall) {}

    /** One case over its k runs. */
    public record CaseScore(
            String name,
            int runs,
            int failedRuns,
            @Nullable Double routingAccuracy,
            @Nullable Double decompositionAccuracy,
            double consistency,
            @Nullable Double factRecall,
            long misroutes,
            long missed,
            double meanInputTokens,
            double meanOutputTokens,
            @Nullable Double meanCost,
            List<RunScore> attempts) {}

    /**
     * One run of a case.
     *
     * @param delegated the workers it delegated to, in call order
     * @param refused names the model called as workers that are not its workers (nor its tools)
     * @param pathCorrect whether the delegations followed the expected order (null: not judged)
     * @param tasksCorrect whether the tasks sent mentioned every expected phrase (null: not judged)
     * @param taskMisses the expected phrases no task to their worker mentioned, as {@code worker: phrase}
     */
    public record RunScore(
            String runId,
            String status,
            List<String> delegated,
            List<String> refused,
            @Nullable Boolean routingCorrect,
            @Nullable Boolean pathCorrect,
            @Nullable Boolean tasksCorrect,
            List<String> taskMisses,
            @Nullable Double factRecall,
            List<String> misrouted,
            List<String> missed,
            long inputTokens,
            long outputTokens,
            @Nullable Double cost,
            long durationMs) {}
}
