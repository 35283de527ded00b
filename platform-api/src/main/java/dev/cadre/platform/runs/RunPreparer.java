package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import dev.cadre.agent.run.AgentRunner;

/**
 * Asked before a run executes (or is resumed by the recovery sweep) whether it needs anything the
 * ordinary path does not give it: another team's runner (a replay against a candidate team), or
 * nothing at all because it must not run (a replay whose recording is gone). The replay feature
 * uses it so that a replay is never executed as an ordinary run with real tools.
 */
@FunctionalInterface
public interface RunPreparer {

    /** Every run executes the ordinary way. */
    RunPreparer NONE = run -> Preparation.Standard.INSTANCE;

    /** What a run needs before it executes. */
    sealed interface Preparation {
        /** The platform's running team executes it. */
        enum Standard implements Preparation {
            INSTANCE
        }

        /** {@code runner} (another team's) executes it; the running catalog need not know its agent. */
        record Runner(AgentRunner runner) implements Preparation {}

        /** It must not execute: it fails with {@code failure}. */
        record Refused(Failure failure) implements Preparation {}
    }

    /** Prepares {@code run} (not terminal) for execution on this instance. */
    Preparation prepare(RunRecord run);
}
