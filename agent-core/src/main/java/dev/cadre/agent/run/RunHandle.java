package dev.cadre.agent.run;

import java.util.concurrent.CompletableFuture;

/** A started run: its id, its eventual outcome, and a way to cancel it. */
public interface RunHandle {

    /** The run id. */
    String runId();

    /** Completes with the outcome, never exceptionally: failures are outcomes too. */
    CompletableFuture<RunOutcome> outcome();

    /**
     * Stops the run and all its subagents (interrupting model calls, tools and approval waits); the
     * outcome then says {@code cancelled}. Does nothing once the run has ended.
     */
    void cancel();
}
