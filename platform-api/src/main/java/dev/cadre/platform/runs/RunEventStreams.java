package dev.cadre.platform.runs;

import dev.cadre.platform.web.SseHeartbeat;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Server-sent events of a run: replays stored events after the client's Last-Event-ID, then
 * follows new ones until the run has ended and everything was sent. Reading from the event table
 * (woken in-process, polling as a fallback) makes a stream resumable and independent of which
 * instance executes the run.
 */
@Component
class RunEventStreams {

    private static final int BATCH = 500;
    private static final long POLL_MILLIS = 1_000;

    private final RunEvents events;
    private final RunStore store;
    private final SseHeartbeat heartbeat;

    RunEventStreams(RunEvents events, RunStore store, SseHeartbeat heartbeat) {
        this.events = events;
        this.store = store;
        this.heartbeat = heartbeat;
    }

    SseEmitter open(String runId, long afterSeq, boolean includeSubagents) {
        SseEmitter emitter = heartbeat.newEmitter();
        AtomicBoolean gone = new AtomicBoolean();
        Runnable stop = () -> {
            gone.set(true);
            heartbeat.unregister(emitter);
        };
        emitter.onCompletion(stop);
        emitter.onTimeout(stop);
        emitter.onError(e -> stop.run());
        heartbeat.register(emitter, stop);
        Thread.ofVirtual()
                .name("sse-run-" + runId)
                .start(() -> follow(runId, afterSeq, includeSubagents, emitter, gone));
        return emitter;
    }

    private void follow(String runId, long afterSeq, boolean includeSubagents, SseEmitter emitter, AtomicBoolean gone) {
        long last = afterSeq;
        // Streamed text pieces of a run executing here come live (never stored); each is sent once
        // every stored event before it was sent, so a piece never overtakes the events it follows.
        try (RunEvents.LiveSubscription live = events.subscribeLive(runId)) {
            long seen = Long.MIN_VALUE; // the generation of the last read of the table
            long covered = 0; // every stored event up to this sequence number has been sent
            while (!gone.get()) {
                long generation = events.generation();
                RunEvents.LiveEvent next = live.peek();
                boolean pieceWaits = next != null && next.afterSeq() > covered;
                if (generation != seen || pieceWaits) {
                    long committed = events.committedSeq(runId);
                    // Every piece received so far was published after the events it follows were stored.
                    long piecesAfter = live.maxAfterSeq();
                    // Read the status before the events: if it is terminal, every event is already stored.
                    boolean ended =
                            store.find(runId).map(r -> r.status().terminal()).orElse(true);
                    List<RunEvents.StoredEvent> batch = events.since(runId, last, includeSubagents, BATCH);
                    for (RunEvents.StoredEvent e : batch) {
                        // Pieces streamed before this event was stored go first: a piece neither
                        // overtakes the events before it nor trails the ones after it.
                        for (RunEvents.LiveEvent p = live.peek();
                                p != null && p.afterSeq() < e.seq();
                                p = live.peek()) {
                            live.remove();
                            sendPiece(p, includeSubagents, emitter);
                        }
                        emitter.send(SseEmitter.event()
                                .id(Long.toString(e.seq()))
                                .name(e.type())
                                .data(e.data()));
                        last = e.seq();
                    }
                    if (batch.size() == BATCH) {
                        continue;
                    }
                    // This read covers what was stored here (committed) and every piece received before
                    // it, a piece of a run executing on another instance included (its afterSeq counts
                    // there): such a piece goes out after the stored events it follows, read just now.
                    covered = Math.max(last, Math.max(committed, piecesAfter));
                    seen = generation;
                    if (ended) {
                        for (RunEvents.LiveEvent p = live.peek(); p != null; p = live.peek()) {
                            live.remove();
                            sendPiece(p, includeSubagents, emitter);
                        }
                        emitter.complete();
                        return;
                    }
                }
                for (RunEvents.LiveEvent e = live.peek(); e != null && e.afterSeq() <= covered; e = live.peek()) {
                    live.remove();
                    sendPiece(e, includeSubagents, emitter);
                }
                next = live.peek();
                if (next != null && next.afterSeq() > covered) {
                    continue; // its stored predecessors are being written: read them first
                }
                if (events.awaitChangeOrLive(seen, POLL_MILLIS, live)) {
                    seen = Long.MIN_VALUE; // timed out: poll the table (a wake-up may have been missed)
                }
            }
        } catch (IOException | IllegalStateException e) {
            // The client has gone: completeWithError would log a 500 for a normal disconnect.
            emitter.complete();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            emitter.complete();
        } finally {
            heartbeat.unregister(emitter);
        }
    }

    private static void sendPiece(RunEvents.LiveEvent e, boolean includeSubagents, SseEmitter emitter)
            throws IOException {
        if (e.mainStream() || includeSubagents) {
            // No id: a client resuming with Last-Event-ID resumes from stored events.
            emitter.send(SseEmitter.event().name(e.type()).data(e.data()));
        }
    }
}
