package dev.cadre.platform.a2a;

import dev.cadre.platform.a2a.A2aMethod.Dialect;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunStatus;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.SseHeartbeat;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Follows a task for SendStreamingMessage and SubscribeToTask: first the task as it stands, then a
 * status update per step of the run's own event stream (delegations, tool calls, approvals), and at
 * the end the answer as an artifact update and the terminal status (0.3: {@code final: true}), after
 * which the stream closes. Events come from the durable run event log, so the stream does not depend
 * on which instance executes the run. It runs on the request's (virtual) thread. Streams count
 * against the same caps as the run event streams and end after the same idle timeout.
 */
@Component
class TaskStreams implements SmartLifecycle {

    private static final int BATCH = 500;
    private static final long POLL_MILLIS = 1_000;
    private static final long HEARTBEAT_MILLIS = 15_000;
    private static final int MAX_TEXT = 500;

    /** Where a stream writes: one SSE {@code data:} item each, or a keep-alive comment. */
    interface Sink {
        void send(ObjectNode result) throws IOException;

        void keepAlive() throws IOException;
    }

    /** One step of a run as an A2A status. */
    record Progress(RunStatus state, String text) {}

    private final A2aTasks tasks;
    private final RunEvents events;
    private final SseHeartbeat caps;
    private volatile boolean running;

    TaskStreams(A2aTasks tasks, RunEvents events, SseHeartbeat caps) {
        this.tasks = tasks;
        this.events = events;
        this.caps = caps;
    }

    /**
     * A slot for one stream, counted with the run event streams against {@code
     * cadre.sse.max-streams-per-key} and {@code cadre.sse.max-streams}; hold it while streaming.
     *
     * @throws dev.cadre.platform.web.ApiProblem 429 with {@code Retry-After} beyond either cap
     */
    SseHeartbeat.Slot admit() {
        return caps.openSlot();
    }

    /**
     * Streams a task until it ends, the client goes away (IOException) or the server shuts down.
     *
     * @param afterSeq the last run event already accounted for (0 to narrate the run from its start)
     */
    void follow(String taskId, Dialect dialect, long afterSeq, Sink sink) throws IOException {
        RunRecord run = tasks.find(TeamScope.allTeams("a task the caller was already shown"), taskId);
        sink.send(TaskWire.streamItem("task", TaskWire.task(tasks.snapshot(run), dialect, null, true), dialect));
        RunStatus shown = run.status();
        long last = afterSeq;
        long lastWrite = System.currentTimeMillis();
        long lastEvent = lastWrite;
        long idleMillis = caps.idleTimeout().toMillis();
        while (running) {
            // Taken before the run is read, so the wake-up of a run that ends meanwhile is not lost.
            long seen = events.generation();
            // Read the run before its events: if it has ended, every event of it is already stored.
            run = tasks.find(TeamScope.allTeams("a task the caller was already shown"), taskId);
            List<RunEvents.StoredEvent> batch = events.since(taskId, last, false, BATCH);
            for (RunEvents.StoredEvent e : batch) {
                last = e.seq();
                Progress p = progress(e.type(), e.data(), taskId);
                if (p != null) {
                    sink.send(TaskWire.streamItem(
                            "statusUpdate",
                            TaskWire.statusUpdate(run, dialect, p.state(), p.text(), false, e.at()),
                            dialect));
                    shown = p.state();
                    lastWrite = System.currentTimeMillis();
                    lastEvent = lastWrite;
                }
            }
            if (batch.size() == BATCH) {
                continue;
            }
            if (run.status().terminal()) {
                ObjectNode artifact = TaskWire.artifactUpdate(run, dialect);
                if (artifact != null) {
                    sink.send(TaskWire.streamItem("artifactUpdate", artifact, dialect));
                }
                Instant at = run.finishedAt() != null ? run.finishedAt() : run.updatedAt();
                String text = TaskWire.statusText(tasks.snapshot(run));
                sink.send(TaskWire.streamItem(
                        "statusUpdate", TaskWire.statusUpdate(run, dialect, run.status(), text, true, at), dialect));
                return;
            }
            if (run.status() != shown) {
                // A change no event told of (e.g. a queued run canceled, a run resumed after a restart).
                String text = TaskWire.statusText(tasks.snapshot(run));
                sink.send(TaskWire.streamItem(
                        "statusUpdate",
                        TaskWire.statusUpdate(run, dialect, run.status(), text, false, run.updatedAt()),
                        dialect));
                shown = run.status();
                lastWrite = System.currentTimeMillis();
                lastEvent = lastWrite;
            }
            if (System.currentTimeMillis() - lastEvent >= idleMillis) {
                // cadre.sse.idle-timeout, as for run event streams: the client resubscribes if it still cares.
                return;
            }
            if (System.currentTimeMillis() - lastWrite >= HEARTBEAT_MILLIS) {
                // Keeps proxies from closing an idle stream, and notices a client that went away.
                sink.keepAlive();
                lastWrite = System.currentTimeMillis();
            }
            try {
                events.awaitChange(seen, POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The sequence number of a run's newest main-stream event: where a subscription picks up. */
    long lastSeq(String taskId) {
        long last = 0;
        while (true) {
            List<RunEvents.StoredEvent> batch = events.since(taskId, last, false, BATCH);
            if (batch.isEmpty()) {
                return last;
            }
            last = batch.getLast().seq();
        }
    }

    static @Nullable Progress progress(String type, JsonNode data, String runId) {
        return switch (type) {
            case "run_started" ->
                new Progress(RunStatus.WORKING, "Agent '" + data.path("agent").asString("") + "' started.");
            case "subagent_started" ->
                new Progress(
                        RunStatus.WORKING,
                        "Delegated to '" + data.path("worker").asString("") + "': "
                                + clip(data.path("task").asString("")));
            case "subagent_finished" ->
                new Progress(
                        RunStatus.WORKING,
                        "'" + data.path("worker").asString("") + "' finished: "
                                + data.path("status").asString(""));
            case "tool_call_start" ->
                data.path("worker").asBoolean(false)
                        ? null // its subagent_started says more
                        : new Progress(
                                RunStatus.WORKING,
                                "Calling tool '" + data.path("tool").asString("") + "'.");
            case "approval_requested" -> {
                JsonNode r = data.path("request");
                String what = r.path("what").asString("");
                String why = r.path("why").asString("");
                yield new Progress(
                        RunStatus.INPUT_REQUIRED,
                        "Waiting for a human to approve: "
                                + (what.isBlank() ? "tool " + r.path("tool").asString("") : clip(what))
                                + (why.isBlank() ? "" : " (why: " + clip(why) + ")")
                                + " [decide in Cadre: GET /api/v1/approvals?status=pending&runId=" + runId + "]");
            }
            case "approval_resolved" ->
                new Progress(
                        RunStatus.WORKING,
                        "Approval "
                                + data.path("decision").path("kind").asString("decided") + " by "
                                + data.path("decision").path("decidedBy").asString("someone") + ".");
            case "status" ->
                data.path("message").asString("").isBlank()
                        ? null
                        : new Progress(
                                RunStatus.WORKING, clip(data.path("message").asString("")));
            default -> null; // text deltas, tool results, done and error: the final status tells the outcome
        };
    }

    private static String clip(String s) {
        return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "…";
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        // Before the web server's graceful shutdown waits for requests: open streams end now.
        running = false;
        events.signal();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
