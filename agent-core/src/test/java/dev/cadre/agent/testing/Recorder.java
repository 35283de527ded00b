package dev.cadre.agent.testing;

import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.RunObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** An observer that keeps every event and checkpoint, thread-safely, for assertions. */
public final class Recorder implements RunObserver {

    private final ConcurrentLinkedQueue<AgentEvent> events = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Checkpoint> checkpoints = new ConcurrentLinkedQueue<>();

    @Override
    public void onEvent(AgentEvent event) {
        events.add(event);
    }

    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
        checkpoints.add(checkpoint);
    }

    public List<AgentEvent> events() {
        return List.copyOf(events);
    }

    public List<AgentEvent> mainStream() {
        return events.stream().filter(e -> e.meta().isMainStream()).toList();
    }

    public List<AgentEvent> session(String sessionId) {
        return events.stream()
                .filter(e -> e.meta().sessionId().equals(sessionId))
                .toList();
    }

    public <T extends AgentEvent> List<T> ofType(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (AgentEvent e : events) {
            if (type.isInstance(e)) {
                out.add(type.cast(e));
            }
        }
        return out;
    }

    public List<Checkpoint> checkpoints() {
        return List.copyOf(checkpoints);
    }
}
