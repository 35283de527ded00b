package dev.cadre.agent.bench;

import java.time.Duration;

/**
 * One framework's side of the orchestration comparison (docs/benchmarks/orchestration.md): N workers,
 * each making {@code turns} model calls of a fixed simulated latency ({@code turns - 1} turns that call
 * a {@code read_file} tool, then an answer quoting its result), their answers aggregated into one text
 * in worker order. Built once; {@link #run} is what is timed.
 */
interface ParallelWorkload extends AutoCloseable {

    /** The answer every worker gives; the aggregate must hold it once per worker. */
    String WORKER_ANSWER = "edited: VALUE = 42";

    /** What the tool returns. */
    String TOOL_RESULT = "VALUE = 42";

    /** Runs the N workers once, one at a time or all at once, and returns the aggregated text. */
    String run(boolean parallel) throws Exception;

    @Override
    default void close() throws Exception {}

    /** Builds a framework's workload. */
    @FunctionalInterface
    interface Factory {
        ParallelWorkload create(int n, Duration latency, int turns) throws Exception;
    }

    /** Fails unless {@code text} holds the worker answer exactly {@code n} times. */
    static String checked(String text, int n) {
        int count = 0;
        for (int at = text.indexOf(WORKER_ANSWER); at >= 0; at = text.indexOf(WORKER_ANSWER, at + 1)) {
            count++;
        }
        if (count != n) {
            throw new IllegalStateException(
                    "the aggregate holds " + count + " worker answers, expected " + n + ": " + abbreviate(text));
        }
        return text;
    }

    private static String abbreviate(String text) {
        return text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }
}
