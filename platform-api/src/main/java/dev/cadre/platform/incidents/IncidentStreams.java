package dev.cadre.platform.incidents;

import dev.cadre.platform.web.SseHeartbeat;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Server-sent events of incident timelines: every entry after the client's Last-Event-ID (its
 * sequence number), read from the timeline table — woken by appends in this process, polling once a
 * second for those of other instances. Counted in the {@code cadre.sse.*} caps like every stream.
 */
@Component
class IncidentStreams {

    private static final int BATCH = 200;
    private static final long POLL_MILLIS = 1_000;

    private final IncidentService incidents;
    private final SseHeartbeat heartbeat;
    private final JsonMapper json;

    IncidentStreams(IncidentService incidents, SseHeartbeat heartbeat, JsonMapper json) {
        this.incidents = incidents;
        this.heartbeat = heartbeat;
        this.json = json;
    }

    /** Entries of one incident ({@code incidentId}) or of all (null), after {@code afterSeq}. */
    SseEmitter open(@Nullable String incidentId, long afterSeq) {
        SseEmitter emitter = heartbeat.newEmitter();
        AtomicBoolean gone = new AtomicBoolean();
        Semaphore wake = new Semaphore(0);
        Runnable watcher = wake::release;
        Runnable stop = () -> {
            gone.set(true);
            heartbeat.unregister(emitter);
            incidents.unwatchTimeline(watcher);
            wake.release();
        };
        emitter.onCompletion(stop);
        emitter.onTimeout(stop);
        emitter.onError(e -> stop.run());
        heartbeat.register(emitter, stop);
        incidents.watchTimeline(watcher);
        Thread.ofVirtual().name("sse-incidents").start(() -> follow(incidentId, afterSeq, emitter, gone, wake, stop));
        return emitter;
    }

    private void follow(
            @Nullable String incidentId,
            long afterSeq,
            SseEmitter emitter,
            AtomicBoolean gone,
            Semaphore wake,
            Runnable stop) {
        long last = afterSeq;
        try {
            // Tells the client the stream is open (and where it starts), so it need not wait for an event.
            emitter.send(SseEmitter.event()
                    .name("ready")
                    .data(json.createObjectNode().put("seq", last).toString()));
            while (!gone.get()) {
                wake.drainPermits();
                // One incident's stream reads its entries only (the (incident, seq) index), not every incident's.
                List<IncidentTimeline.Stored> batch = incidentId == null
                        ? incidents.timelineSince(last, BATCH)
                        : incidents.timeline(incidentId, last, BATCH);
                for (IncidentTimeline.Stored s : batch) {
                    last = s.seq();
                    if (incidentId != null && !incidentId.equals(s.incidentId())) {
                        continue;
                    }
                    var data = json.valueToTree(IncidentController.item(s));
                    ((tools.jackson.databind.node.ObjectNode) data).put("incidentId", s.incidentId());
                    emitter.send(SseEmitter.event()
                            .id(Long.toString(s.seq()))
                            .name("timeline")
                            .data(data.toString(), MediaType.APPLICATION_JSON));
                }
                if (batch.size() < BATCH) {
                    wake.tryAcquire(POLL_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
        } catch (IOException | IllegalStateException e) {
            emitter.complete();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            emitter.complete();
        } finally {
            stop.run();
        }
    }
}
