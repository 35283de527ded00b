package dev.cadre.platform.runs;

import dev.cadre.agent.event.AgentEvent;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/**
 * The events a run's ending is stored with (issue 27, item 1): the root loop's {@code done} or
 * {@code error}, and the final turn's text just before it, are held back and stored in the
 * transaction that stores the terminal status ({@link RunStore#finishWithEnding}). So a crash leaves
 * either the whole ending or none of it — never a {@code done} beside a run still {@code working},
 * which a resume would end a second time after calling the model again.
 */
final class RunEnding {

    private final RunEvents events;
    private RunEvents.@Nullable Held text;
    private @Nullable String textRunId;
    private final List<RunEvents.Held> ending = new ArrayList<>();

    RunEnding(RunEvents events) {
        this.events = events;
    }

    /**
     * Holds a root-loop event that belongs to the ending (true: the caller does not store it); any
     * other event first lets a held text go to the store, as it would have gone before.
     */
    synchronized boolean hold(AgentEvent event, @Nullable ObjectNode added) {
        if (!event.meta().isMainStream()) {
            return false;
        }
        switch (event) {
            case AgentEvent.TextDelta d
            when !d.partial() -> {
                storeText();
                text = events.held(event, added);
                textRunId = event.meta().runId();
                return true;
            }
            case AgentEvent.Done d -> {
                return holdTerminal(event, added);
            }
            case AgentEvent.Error e -> {
                return holdTerminal(event, added);
            }
            default -> {
                storeText();
                return false;
            }
        }
    }

    private boolean holdTerminal(AgentEvent event, @Nullable ObjectNode added) {
        if (text != null) {
            ending.add(text);
            text = null;
        }
        ending.add(events.held(event, added));
        return true;
    }

    /** The held events of the ending, in order (empty when the loop ended without one). */
    synchronized List<RunEvents.Held> events() {
        return List.copyOf(ending);
    }

    /** The type of the ending's terminal event. */
    synchronized String type() {
        return ending.getLast().type();
    }

    /** The ending was refused (the run had already ended): what is not terminal is stored as before. */
    synchronized void refused() {
        for (RunEvents.Held h : ending) {
            if (!h.type().equals("done") && !h.type().equals("error")) {
                events.append(
                        String.valueOf(h.data().path("runId").asString()),
                        h.type(),
                        h.mainStream(),
                        h.sessionId(),
                        h.parentSessionId(),
                        h.data(),
                        h.at());
            }
        }
        storeText();
    }

    private void storeText() {
        RunEvents.@Nullable Held t = text;
        if (t != null && textRunId != null) {
            text = null;
            events.append(textRunId, t.type(), t.mainStream(), t.sessionId(), t.parentSessionId(), t.data(), t.at());
        }
    }
}
