package dev.cadre.platform.runs;

import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.telemetry.StreamingRedactor;
import dev.cadre.platform.storage.DailyPartitions;
import dev.cadre.platform.storage.KeyLists;
import dev.cadre.platform.storage.Removed;
import dev.cadre.platform.web.SecretRedactor;
import dev.cadre.platform.web.StorageUnavailable;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The durable event log of runs: every event (main stream and subagents') gets a run-wide sequence
 * number, which is the SSE event id a client resumes from. Readers waiting for new events are woken
 * in-process; anything that missed a wake-up still finds the events by polling the table.
 */
@Repository
public class RunEvents {

    private static final Logger log = LoggerFactory.getLogger(RunEvents.class);

    /**
     * A live-only event (a streamed text piece): never stored, sent to the readers following the run
     * on this instance once they have sent every stored event up to {@code afterSeq}.
     */
    public record LiveEvent(long afterSeq, String type, boolean mainStream, ObjectNode data) {}

    /** A reader's queue of live events of one run (from this instance, and from others through the relay). */
    public static final class LiveSubscription implements AutoCloseable {
        private final String runId;
        private final RunEvents owner;
        final java.util.concurrent.ConcurrentLinkedQueue<LiveEvent> queue =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final AtomicLong maxAfterSeq = new AtomicLong();
        private volatile @org.jspecify.annotations.Nullable AutoCloseable remote;

        private LiveSubscription(String runId, RunEvents owner) {
            this.runId = runId;
            this.owner = owner;
        }

        void offer(LiveEvent e) {
            queue.add(e);
            maxAfterSeq.accumulateAndGet(e.afterSeq(), Math::max);
        }

        /**
         * The highest {@link LiveEvent#afterSeq()} received so far: a piece is published after the
         * events up to its {@code afterSeq} were stored, so a read of the table that starts after
         * this was taken covers every piece received before.
         */
        public long maxAfterSeq() {
            return maxAfterSeq.get();
        }

        /** The next live event, or null. */
        public @org.jspecify.annotations.Nullable LiveEvent peek() {
            return queue.peek();
        }

        public void remove() {
            queue.poll();
        }

        @Override
        public void close() {
            owner.live.computeIfPresent(runId, (k, subs) -> {
                subs.remove(this);
                return subs.isEmpty() ? null : subs;
            });
            AutoCloseable r = remote;
            if (r != null) {
                try {
                    r.close();
                } catch (Exception e) {
                    log.debug("Live relay of run {} not closed: {}", runId, e.getMessage());
                }
            }
        }
    }

    private final Map<String, java.util.Set<LiveSubscription>> live = new ConcurrentHashMap<>();

    /** One stored event. */
    public record StoredEvent(String runId, long seq, String type, boolean mainStream, JsonNode data, Instant at) {}

    private final JdbcClient jdbc;
    private final EventJson eventJson;
    private final JsonMapper json;
    private final Map<String, AtomicLong> sequences = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition appended = lock.newCondition();
    private long generation; // guarded by lock
    private final Duration storeRetry;

    private final SecretRedactor redactor;
    /** The streamed text of each session's current turn, redacted as it streams (run id + session id). */
    private final Map<String, StreamingRedactor> streaming = new ConcurrentHashMap<>();

    RunEvents(
            JdbcClient jdbc,
            EventJson eventJson,
            JsonMapper json,
            @Value("${cadre.runs.event-store-retry:PT2M}") Duration storeRetry,
            SecretRedactor redactor,
            org.springframework.beans.factory.ObjectProvider<LiveRelay> relay) {
        this.jdbc = jdbc;
        this.eventJson = eventJson;
        this.json = json;
        this.storeRetry = storeRetry;
        this.redactor = redactor;
        this.relay = relay == null ? null : relay.getIfAvailable();
    }

    /** Live pieces to and from other instances (cluster mode), or null. */
    private final @org.jspecify.annotations.Nullable LiveRelay relay;

    /** Stores an agent event; returns its run-wide sequence number. */
    public long append(AgentEvent event) {
        ObjectNode data = eventJson.toJson(event);
        return append(
                event.meta().runId(),
                event.type(),
                event.meta().isMainStream(),
                event.meta().sessionId(),
                event.meta().parentSessionId(),
                data,
                event.meta().at());
    }

    /** Stores an agent event with fields the platform adds or replaces (a status event's progress). */
    public long append(AgentEvent event, ObjectNode added) {
        ObjectNode data = eventJson.toJson(event);
        data.setAll(added);
        return append(
                event.meta().runId(),
                event.type(),
                event.meta().isMainStream(),
                event.meta().sessionId(),
                event.meta().parentSessionId(),
                data,
                event.meta().at());
    }

    /**
     * Stores an event of a workflow step: the step's own loop is a root loop, so its main-stream
     * events are stored as the children of the run's session {@code runSession} (the workflow).
     */
    public long appendStep(AgentEvent event, String runSession) {
        if (!event.meta().isMainStream()) {
            return append(event);
        }
        ObjectNode data = eventJson.toJson(event);
        data.put("parentSessionId", runSession);
        return append(
                event.meta().runId(),
                event.type(),
                false,
                event.meta().sessionId(),
                runSession,
                data,
                event.meta().at());
    }

    /** Stores a platform-level event (e.g. a status change made by the platform, not an agent). */
    public long append(
            String runId,
            String type,
            boolean mainStream,
            String sessionId,
            String parentSessionId,
            ObjectNode data,
            Instant at) {
        // One instance executes a run at a time, so an in-memory counter seeded from the table is
        // enough; the primary key still rejects a duplicate should that ever not hold.
        AtomicLong counter = sequences.computeIfAbsent(runId, id -> new AtomicLong(maxSeq(id)));
        long seq;
        // Numbering and inserting under one lock per run: a reader that saw event n has seen every
        // event before n (concurrent subagents would otherwise commit out of order).
        synchronized (counter) {
            seq = counter.incrementAndGet();
            data.put("seq", seq);
            try {
                insertDurably(runId, seq, sessionId, parentSessionId, mainStream, type, data, at);
            } catch (RuntimeException e) {
                // Not stored: give the number back, so the log has no gap a reader would wait on.
                counter.decrementAndGet();
                throw e;
            }
        }
        signal();
        return seq;
    }

    /** An event held back to be stored with the run's ending (its final text and its done or error). */
    public record Held(
            String type,
            boolean mainStream,
            String sessionId,
            @org.jspecify.annotations.Nullable String parentSessionId,
            ObjectNode data,
            Instant at) {}

    /** An agent event to hold, with fields the platform adds or replaces ({@code added}, may be null). */
    public Held held(AgentEvent event, @org.jspecify.annotations.Nullable ObjectNode added) {
        ObjectNode data = eventJson.toJson(event);
        if (added != null) {
            data.setAll(added);
        }
        return new Held(
                event.type(),
                event.meta().isMainStream(),
                event.meta().sessionId(),
                event.meta().parentSessionId(),
                data,
                event.meta().at());
    }

    /**
     * Stores a run's ending: {@code end} is given the insertion of {@code held} (numbered after every
     * event stored so far) and runs it in the transaction that also stores the terminal status; it
     * answers whether that transaction committed the ending. A database outage or a transient failure
     * (a lock timeout, a deadlock) is ridden out for up to {@code cadre.runs.event-store-retry}; any
     * other failure propagates with nothing stored.
     */
    public boolean appendEnding(String runId, List<Held> held, java.util.function.Predicate<Runnable> end) {
        AtomicLong counter = sequences.computeIfAbsent(runId, id -> new AtomicLong(maxSeq(id)));
        boolean ended;
        synchronized (counter) {
            long base = counter.get();
            Runnable insertAll = () -> {
                long seq = base;
                for (Held h : held) {
                    seq++;
                    h.data().put("seq", seq);
                    insert(runId, seq, h.sessionId(), h.parentSessionId(), h.mainStream(), h.type(), h.data(), h.at());
                }
            };
            long deadline = System.nanoTime() + storeRetry.toNanos();
            long pauseMillis = 100;
            while (true) {
                try {
                    ended = end.test(insertAll);
                    break;
                } catch (RuntimeException e) {
                    // The transaction rolled back whole, so trying it again is safe: an outage, or a
                    // lock the ending waited for too long (H2's LOCK_TIMEOUT on a busy rollup row, a
                    // deadlock victim on PostgreSQL) — the run's outcome is known and must not be lost.
                    boolean transientFailure = StorageUnavailable.causedBy(e)
                            || e instanceof org.springframework.dao.TransientDataAccessException;
                    if (!transientFailure || System.nanoTime() + pauseMillis * 1_000_000 > deadline) {
                        throw e;
                    }
                    if (pauseMillis == 100) {
                        log.warn(
                                "Ending of run {} not stored yet ({}); trying again for up to {}",
                                runId,
                                e.getMessage(),
                                storeRetry);
                    }
                    try {
                        Thread.sleep(pauseMillis);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                    pauseMillis = Math.min(2_000, pauseMillis * 2);
                }
            }
            if (ended) {
                counter.set(base + held.size());
            }
        }
        signal();
        return ended;
    }

    /** The run's last main-stream {@code done} or {@code error} event, if one is stored. */
    public java.util.Optional<StoredEvent> storedEnding(String runId) {
        return jdbc.sql("SELECT run_id, seq, type, main_stream, session_id, parent_session_id, data, data_format, at"
                        + " FROM cadre_run_event WHERE run_id = ? AND main_stream = TRUE AND type IN ('done', 'error')"
                        + " ORDER BY seq DESC LIMIT 1")
                .param(runId)
                .query(this::storedEvent)
                .optional();
    }

    /**
     * Inserts, riding out a database outage for up to {@code cadre.runs.event-store-retry}: an event
     * emitted while PostgreSQL restarts is stored once it is back instead of being lost (the fault
     * suite saw runs whose log skipped the calls made during an outage). The run waits meanwhile —
     * it could not checkpoint anyway.
     */
    private void insertDurably(
            String runId,
            long seq,
            String sessionId,
            String parentSessionId,
            boolean mainStream,
            String type,
            ObjectNode data,
            Instant at) {
        long deadline = System.nanoTime() + storeRetry.toNanos();
        long pauseMillis = 100;
        for (int attempt = 1; ; attempt++) {
            try {
                insert(runId, seq, sessionId, parentSessionId, mainStream, type, data, at);
                return;
            } catch (DuplicateKeyException e) {
                if (attempt == 1) {
                    throw e;
                }
                return; // the previous attempt committed; only its answer was lost
            } catch (RuntimeException e) {
                if (!StorageUnavailable.causedBy(e) || System.nanoTime() + pauseMillis * 1_000_000 > deadline) {
                    throw e;
                }
                if (attempt == 1) {
                    log.warn(
                            "Event {} #{} of run {} not stored yet ({}); retrying while the database is away",
                            type,
                            seq,
                            runId,
                            e.getMessage());
                }
                try {
                    Thread.sleep(pauseMillis);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                pauseMillis = Math.min(2_000, pauseMillis * 2);
            }
        }
    }

    private void insert(
            String runId,
            long seq,
            String sessionId,
            String parentSessionId,
            boolean mainStream,
            String type,
            ObjectNode data,
            Instant at) {
        StoredEventFormat.Stored stored = StoredEventFormat.of(data, runId, seq, type, sessionId, parentSessionId);
        jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, parent_session_id, main_stream, type, data,"
                        + " data_format, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .params(
                        runId,
                        seq,
                        sessionId,
                        parentSessionId,
                        mainStream,
                        type,
                        stored.data(),
                        stored.format(),
                        Timestamp.from(at))
                .update();
    }

    /** Events after {@code afterSeq}, in order; subagents' events only with {@code includeSubagents}. */
    public List<StoredEvent> since(String runId, long afterSeq, boolean includeSubagents, int limit) {
        return jdbc.sql("SELECT run_id, seq, type, main_stream, session_id, parent_session_id, data, data_format, at"
                        + " FROM cadre_run_event WHERE run_id = ? AND seq > ?"
                        + (includeSubagents ? "" : " AND main_stream = TRUE")
                        + " ORDER BY seq LIMIT ?")
                .params(runId, afterSeq, limit)
                .query(this::storedEvent)
                .list();
    }

    private StoredEvent storedEvent(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
        return new StoredEvent(
                rs.getString("run_id"),
                rs.getLong("seq"),
                rs.getString("type"),
                rs.getBoolean("main_stream"),
                olderThanWholeRedaction(
                        rs.getString("type"),
                        StoredEventFormat.read(
                                json.readTree(rs.getString("data")),
                                rs.getInt("data_format"),
                                rs.getString("run_id"),
                                rs.getLong("seq"),
                                rs.getString("type"),
                                rs.getString("session_id"),
                                rs.getString("parent_session_id"))),
                rs.getTimestamp("at").toInstant());
    }

    /**
     * Every event is stored redacted as a whole ({@link EventJson#toJson}); before issue 23 an
     * approval request's {@code why} and {@code plan} were stored as given. Such events (a few per
     * run, their texts one model turn long) are redacted again when read; every other type was stored
     * redacted and is read as it is.
     */
    private JsonNode olderThanWholeRedaction(String type, JsonNode data) {
        return "approval_requested".equals(type) ? redactor.redact(data) : data;
    }

    /**
     * The progress of a run's newest main-stream status event that carries one (with that event's
     * message), or null: what {@code GET /runs/{id}} shows of a live run.
     */
    public @org.jspecify.annotations.Nullable ObjectNode latestProgress(String runId) {
        return jdbc
                .sql("SELECT data FROM cadre_run_event WHERE run_id = ? AND main_stream = TRUE AND type = 'status'"
                        + " ORDER BY seq DESC LIMIT 5")
                .param(runId)
                .query((rs, i) -> json.readTree(rs.getString("data")))
                .list()
                .stream()
                .filter(d -> d.path("progress").isObject())
                .findFirst()
                .map(d -> {
                    ObjectNode p = ((ObjectNode) d.get("progress")).deepCopy();
                    p.put("message", d.path("message").asString(""));
                    return p;
                })
                .orElse(null);
    }

    /**
     * Follows the live events of a run, executing here or (through the relay, in a cluster) on
     * another instance; close it when done.
     */
    public LiveSubscription subscribeLive(String runId) {
        LiveSubscription sub = new LiveSubscription(runId, this);
        live.computeIfAbsent(runId, k -> java.util.concurrent.ConcurrentHashMap.newKeySet())
                .add(sub);
        if (relay != null) {
            sub.remote = relay.follow(runId, e -> {
                sub.offer(e);
                wakeReaders();
            });
        }
        return sub;
    }

    /**
     * Hands a streamed text piece to the readers of its run on this instance. Its text goes through
     * the session's {@link StreamingRedactor} first (always, readers or not, so a reader who joins
     * mid-turn never gets the second half of a secret): what could still be the start of a secret
     * is held back until the next piece, or until the session's next stored event ({@link
     * #endLive}). It is placed after the last stored event of the run, so a reader sends it after
     * the stored events that came before it.
     */
    public void publishLive(AgentEvent event) {
        if (!(event instanceof AgentEvent.TextDelta piece)) {
            return;
        }
        String shown = streaming
                .computeIfAbsent(streamKey(event), k -> redactor.streaming())
                .accept(piece.text());
        publishPiece(piece, shown);
    }

    /**
     * Ends the streamed text of {@code next}'s session, if any, before {@code next} is stored: what
     * was held back goes out (redacted like the whole text), so the pieces a reader got add up to
     * the stored text of the turn.
     */
    public void endLive(AgentEvent next) {
        if (streaming.isEmpty()) {
            return;
        }
        StreamingRedactor r = streaming.remove(streamKey(next));
        if (r != null) {
            publishPiece(new AgentEvent.TextDelta(next.meta(), "", true), r.flush());
        }
    }

    private static String streamKey(AgentEvent event) {
        return event.meta().runId() + '/' + event.meta().sessionId();
    }

    private void publishPiece(AgentEvent.TextDelta piece, String shown) {
        if (shown.isEmpty()) {
            return;
        }
        String runId = piece.meta().runId();
        java.util.Set<LiveSubscription> subs = live.get(runId);
        boolean here = subs != null && !subs.isEmpty();
        boolean elsewhere = relay != null && relay.followedElsewhere(runId);
        if (!here && !elsewhere) {
            return;
        }
        ObjectNode data = eventJson.toJson(new AgentEvent.TextDelta(piece.meta(), shown, true));
        // Redacted in the context of the whole turn already; redacting the piece alone again could
        // mask what the whole text does not (the pieces must add up to the stored text).
        data.put("text", shown);
        LiveEvent e =
                new LiveEvent(committedSeq(runId), piece.type(), piece.meta().isMainStream(), data);
        if (elsewhere) {
            relay.publish(runId, e);
        }
        if (!here) {
            return;
        }
        for (LiveSubscription s : subs) {
            s.offer(e);
        }
        wakeReaders();
    }

    private void wakeReaders() {
        lock.lock();
        try {
            // Wakes the readers without counting as a new stored event (generation unchanged).
            appended.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The highest sequence number stored for the run by this instance (0 when unknown here). */
    public long committedSeq(String runId) {
        AtomicLong counter = sequences.get(runId);
        if (counter == null) {
            return 0;
        }
        synchronized (counter) {
            return counter.get();
        }
    }

    /**
     * Like {@link #awaitChange(long, long)}, also returning when {@code sub} has a live event; true
     * when it timed out without either.
     */
    public boolean awaitChangeOrLive(long seen, long millis, LiveSubscription sub) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (generation == seen && sub.queue.isEmpty()) {
                if (nanos <= 0) {
                    return true;
                }
                nanos = appended.awaitNanos(nanos);
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets the in-memory counter (and any streamed text left) of a finished run. */
    public void release(String runId) {
        sequences.remove(runId);
        streaming.keySet().removeIf(k -> k.startsWith(runId + '/'));
        if (relay != null) {
            relay.forget(runId);
        }
    }

    /**
     * A counter of wake-ups (appends and {@link #signal()}s). A reader takes it <em>before</em> it
     * reads a run's state and passes it to {@link #awaitChange}, so a signal that comes while it
     * reads is not lost: without it a stream that read "working" just before the run ended waited
     * a whole poll interval (measured: 1 s on about one run in fifteen, docs/benchmarks/service.md).
     */
    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code millis} for a new event or signal after {@code seen} (a value of {@link
     * #generation()}); returns at once when one came meanwhile, or early when interrupted.
     */
    public void awaitChange(long seen, long millis) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (generation == seen && nanos > 0) {
                nanos = appended.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Wakes readers, e.g. after a run's status changed without an event. */
    public void signal() {
        lock.lock();
        try {
            generation++;
            appended.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private long maxSeq(String runId) {
        return jdbc.sql("SELECT COALESCE(MAX(seq), 0) FROM cadre_run_event WHERE run_id = ?")
                .param(runId)
                .query(Long.class)
                .single();
    }

    // ---- retention (RetentionService) ----

    static final String TABLE = "cadre_run_event";

    /**
     * Removes events stored before {@code before}, except those of {@code keepRuns}, at most {@code
     * batch} rows per statement (each its own transaction); walks in {@code at} order on its index.
     */
    public Removed deleteBefore(Instant before, Set<String> keepRuns, int batch) {
        record Key(String runId, long seq, Timestamp at, long bytes) {}
        Removed removed = Removed.NONE;
        Key last = null;
        while (true) {
            String sql = "SELECT run_id, seq, at, LENGTH(data) + LENGTH(session_id) AS bytes FROM cadre_run_event"
                    + " WHERE at < ?" + (last == null ? "" : " AND (at, run_id, seq) > (?, ?, ?)")
                    + " ORDER BY at, run_id, seq FETCH FIRST ? ROWS ONLY";
            List<Object> params = new java.util.ArrayList<>(List.of(Timestamp.from(before)));
            if (last != null) {
                params.addAll(List.of(last.at(), last.runId(), last.seq()));
            }
            params.add(batch);
            List<Key> keys = jdbc.sql(sql)
                    .params(params)
                    .query((rs, i) -> new Key(rs.getString(1), rs.getLong(2), rs.getTimestamp(3), rs.getLong(4)))
                    .list();
            if (keys.isEmpty()) {
                return removed;
            }
            last = keys.getLast();
            List<Key> gone =
                    keys.stream().filter(k -> !keepRuns.contains(k.runId())).toList();
            if (!gone.isEmpty()) {
                int n = jdbc.sql("DELETE FROM cadre_run_event WHERE (run_id, seq) IN ("
                                + KeyLists.placeholders(2, gone.size()) + ")")
                        .params(KeyLists.flatten(gone.stream()
                                .map(k -> List.of(k.runId(), k.seq()))
                                .toList()))
                        .update();
                removed = removed.plus(
                        new Removed(n, gone.stream().mapToLong(Key::bytes).sum()));
            }
            if (keys.size() < batch) {
                return removed;
            }
        }
    }

    /** Removes every event of these runs (retention removing the runs themselves). */
    public Removed deleteOfRuns(java.util.Collection<String> runIds) {
        if (runIds.isEmpty()) {
            return Removed.NONE;
        }
        String in = KeyLists.placeholders(1, runIds.size());
        long bytes = jdbc.sql("SELECT COALESCE(SUM(LENGTH(data) + LENGTH(session_id)), 0) FROM cadre_run_event"
                        + " WHERE run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .query(Long.class)
                .single();
        int n = jdbc.sql("DELETE FROM cadre_run_event WHERE run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .update();
        runIds.forEach(sequences::remove);
        return new Removed(n, bytes);
    }

    /** When the oldest stored event was written (its index on {@code at}). */
    public java.util.Optional<Instant> oldestAt() {
        return jdbc.sql("SELECT MIN(at) FROM cadre_run_event")
                .query(java.time.OffsetDateTime.class)
                .optional()
                .map(java.time.OffsetDateTime::toInstant);
    }

    private final dev.cadre.platform.storage.TableSize size =
            new dev.cadre.platform.storage.TableSize(this::totalBytes);

    private long totalBytes() {
        return jdbc.sql(dev.cadre.platform.storage.PostgresSizes.TOTAL_BYTES)
                .params(TABLE, TABLE)
                .query(Long.class)
                .single();
    }

    /** Bytes on disk of the table (with indexes, TOAST and partitions); empty where the database cannot tell (H2). */
    public java.util.OptionalLong sizeBytes() {
        return size.bytes();
    }

    /** PostgreSQL: makes the space of removed rows reusable now ({@link dev.cadre.platform.storage.PostgresSizes#vacuum}). */
    public void reclaimSpace() {
        size.whereMeasurable(() ->
                jdbc.sql(dev.cadre.platform.storage.PostgresSizes.vacuum(TABLE)).update());
    }

    /** Its daily partitions on PostgreSQL (see {@link DailyPartitions}); inactive on H2. */
    public DailyPartitions partitions() {
        return new DailyPartitions(TABLE, DailyPartitions.Key.TIMESTAMP, "run_id", new DailyPartitions.Sql() {
            @Override
            public List<List<Object>> query(String sql, List<Object> params) {
                return jdbc.sql(sql)
                        .params(params)
                        .query((rs, i) -> {
                            List<Object> row = new java.util.ArrayList<>();
                            for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++) {
                                row.add(rs.getObject(c));
                            }
                            return row;
                        })
                        .list();
            }

            @Override
            public void execute(String sql) {
                jdbc.sql(sql).update();
            }
        });
    }
}
