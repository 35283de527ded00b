package dev.cadre.platform.memory;

import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Subscription;
import dev.cadre.platform.web.SecretRedactor;
import dev.cadre.platform.web.SseHeartbeat;
import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Streams a namespace's memory changes as server-sent events whose ids are resumable cursors. */
@Component
class MemoryEvents {

    private final SharedMemory memory;
    private final JsonMapper json;
    private final SseHeartbeat heartbeat;
    private final SecretRedactor redactor;

    MemoryEvents(SharedMemory memory, JsonMapper json, SseHeartbeat heartbeat, SecretRedactor redactor) {
        this.redactor = redactor;
        this.memory = memory;
        this.json = json;
        this.heartbeat = heartbeat;
    }

    record ChangeView(
            long cursor,
            String namespace,
            String key,
            long version,
            @Nullable JsonNode value,
            boolean deleted,
            Instant updatedAt,
            MemoryController.WriterView updatedBy) {}

    SseEmitter stream(String namespace, long fromCursor) {
        SseEmitter emitter = heartbeat.newEmitter();
        AtomicReference<Subscription> subscription = new AtomicReference<>();
        Runnable close = () -> {
            heartbeat.unregister(emitter);
            Subscription s = subscription.getAndSet(null);
            if (s != null) {
                s.close();
            }
        };
        emitter.onCompletion(close);
        emitter.onTimeout(close);
        emitter.onError(e -> close.run());
        heartbeat.register(emitter, close);
        try {
            // Sends the response head now: a quiet namespace would otherwise keep the client
            // waiting for the status line until the first change or heartbeat (15 s).
            emitter.send(SseEmitter.event().comment("subscribed"));
        } catch (IOException e) {
            close.run();
            emitter.complete();
            return emitter;
        }
        subscription.set(memory.subscribe(fromCursor, change -> send(emitter, namespace, change, close)));
        return emitter;
    }

    private void send(SseEmitter emitter, String namespace, MemoryChange change, Runnable close) {
        if (!change.namespace().equals(namespace)) {
            return;
        }
        var view = new ChangeView(
                change.cursor(),
                change.namespace(),
                change.key(),
                change.version(),
                change.value() == null ? null : json.readTree(change.value()),
                change.deleted(),
                change.updatedAt(),
                MemoryController.WriterView.of(change.updatedBy()));
        try {
            emitter.send(SseEmitter.event()
                    .id(Long.toString(change.cursor()))
                    .name(change.deleted() ? "deleted" : "changed")
                    // A change leaves redacted as a whole, like an entry read over REST.
                    .data(redactor.redacted(view, ChangeView.class)));
        } catch (IOException | IllegalStateException e) {
            // The client has gone (broken pipe): there is no one left to tell. completeWithError
            // would run the request's error handling and log a 500 for a normal disconnect.
            close.run();
            emitter.complete();
        }
    }
}
