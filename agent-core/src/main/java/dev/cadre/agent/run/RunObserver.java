package dev.cadre.agent.run;

import dev.cadre.agent.event.AgentEvent;
import java.util.function.Consumer;

/**
 * Receives a run's events (main stream and subagents', told apart by
 * {@link dev.cadre.agent.event.EventMeta#isMainStream()}) and the root loop's checkpoints. Called
 * synchronously from the agents' threads, concurrently for concurrent subagents but in sequence order
 * within a session: keep it quick and thread-safe. An exception it throws is ignored.
 */
public interface RunObserver {

    /** An observer that ignores everything. */
    RunObserver NONE = new RunObserver() {};

    /** An event of any session of the run. */
    default void onEvent(AgentEvent event) {}

    /**
     * The root loop's state after a model turn (with the calls still to execute) and after the turn's
     * observations were appended (with none). Persist it to make the run resumable.
     */
    default void onCheckpoint(Checkpoint checkpoint) {}

    /** An observer that sends main-stream events to one consumer and subagents' events to another. */
    static RunObserver splitting(Consumer<AgentEvent> mainStream, Consumer<AgentEvent> subagents) {
        return new RunObserver() {
            @Override
            public void onEvent(AgentEvent event) {
                if (event.meta().isMainStream()) {
                    mainStream.accept(event);
                } else {
                    subagents.accept(event);
                }
            }
        };
    }
}
