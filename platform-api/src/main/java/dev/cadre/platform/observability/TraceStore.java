package dev.cadre.platform.observability;

import dev.cadre.platform.storage.DailyPartitions;
import dev.cadre.platform.storage.KeyLists;
import dev.cadre.platform.storage.Removed;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The platform's own store of run spans ({@link TraceStoreExporter} fills it), and the only class
 * that reads or writes {@code cadre_span}: the trace view and the statistics ask through its query
 * methods. Attributes are JSON read in Java, so the same queries work on PostgreSQL and H2.
 */
public final class TraceStore {

    /** Marks {@code cadre_model_rollup} not yet built from the spans stored before it existed (see V8). */
    private static final Instant BACKFILL_MARK = Instant.EPOCH;

    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final TransactionTemplate transactions;

    TraceStore(JdbcClient jdbc, JsonMapper json, PlatformTransactionManager transactionManager) {
        this.jdbc = jdbc;
        this.json = json;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** One stored span; {@code attributes} as stored (strings already redacted). */
    public record StoredSpan(
            String traceId,
            String spanId,
            @Nullable String parentSpanId,
            String name,
            long startNanos,
            long endNanos,
            String status,
            @Nullable String statusMessage,
            JsonNode attributes) {}

    /** Model calls and their tokens per agent and model ({@code provider:model} when the provider is known). */
    public record ModelTokens(String agent, String model, long calls, long inputTokens, long outputTokens) {}

    /**
     * Stores a span and, for a model call ({@code chat …}), adds it to the hourly model rollup in
     * the same transaction, so the rollup counts each stored span once.
     */
    void insert(StoredSpan s, String runId) {
        transactions.executeWithoutResult(tx -> {
            insertRow(s, runId);
            if (s.name().startsWith("chat ")) {
                Map<List<Object>, long[]> one = new TreeMap<>(TraceStore::compareKeys);
                addModelCall(one, s.startNanos(), s.attributes());
                flushModelCalls(jdbc, one);
            }
        });
    }

    private void insertRow(StoredSpan s, String runId) {
        jdbc.sql("INSERT INTO cadre_span (trace_id, span_id, parent_span_id, run_id, name, start_nanos, end_nanos,"
                        + " status, status_message, attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .params(
                        s.traceId(),
                        s.spanId(),
                        s.parentSpanId(),
                        runId,
                        s.name(),
                        s.startNanos(),
                        s.endNanos(),
                        s.status(),
                        s.statusMessage(),
                        storedAttributes(s.attributes(), runId).toString())
                .update();
    }

    /**
     * The attributes as stored: without those that repeat what is stored anyway (issue #18, bytes
     * per run), about a fifth of a span's attribute bytes. Nothing reads them from the store: {@code
     * cadre.run.id} is the {@code run_id} column; {@code gen_ai.agent.id} and {@code
     * gen_ai.conversation.id} of an agent's span equal its {@code cadre.session.id} (the trace view
     * falls back to the conversation id only for spans without a session id, such as model calls,
     * which keep it); {@code cadre.session.parent_id} is the session of the span's parent. Spans
     * stored before carry them and read the same. Exporters (OTLP) still get every attribute.
     */
    static JsonNode storedAttributes(JsonNode attributes, String runId) {
        if (!(attributes instanceof tools.jackson.databind.node.ObjectNode all)) {
            return attributes;
        }
        tools.jackson.databind.node.ObjectNode kept = all.deepCopy();
        if (runId.equals(all.path(RUN_ID).asString(null))) {
            kept.remove(RUN_ID);
        }
        JsonNode session = all.get(SESSION_ID);
        if (session != null && session.isString()) {
            for (String same : List.of(AGENT_ID, CONVERSATION_ID)) {
                if (session.equals(all.get(same))) {
                    kept.remove(same);
                }
            }
            kept.remove(PARENT_SESSION_ID);
        }
        return kept;
    }

    private static final String RUN_ID = "cadre.run.id";
    private static final String SESSION_ID = "cadre.session.id";
    private static final String PARENT_SESSION_ID = "cadre.session.parent_id";
    private static final String AGENT_ID = "gen_ai.agent.id";
    private static final String CONVERSATION_ID = "gen_ai.conversation.id";

    /** The spans of a run in start order. */
    public List<StoredSpan> spansOfRun(String runId) {
        return jdbc.sql("SELECT trace_id, span_id, parent_span_id, name, start_nanos, end_nanos, status,"
                        + " status_message, attributes FROM cadre_span WHERE run_id = ? ORDER BY start_nanos, span_id")
                .param(runId)
                .query((rs, i) -> new StoredSpan(
                        rs.getString("trace_id"),
                        rs.getString("span_id"),
                        rs.getString("parent_span_id"),
                        rs.getString("name"),
                        rs.getLong("start_nanos"),
                        rs.getLong("end_nanos"),
                        rs.getString("status"),
                        rs.getString("status_message"),
                        json.readTree(rs.getString("attributes"))))
                .list();
    }

    /**
     * Tokens of the model calls ({@code chat} spans) started in the hours from {@code from} (on an
     * hour) on, most tokens first, from the hourly rollup: a run's total cannot tell which model
     * spent them.
     */
    public List<ModelTokens> modelTokensSince(Instant from) {
        List<ModelTokens> models = new ArrayList<>();
        jdbc.sql("SELECT agent, model, SUM(calls) AS calls, SUM(input_tokens) AS input_tokens,"
                        + " SUM(output_tokens) AS output_tokens FROM cadre_model_rollup WHERE bucket_hour >= ?"
                        + " GROUP BY agent, model")
                .param(Timestamp.from(from))
                .query(rs -> {
                    models.add(new ModelTokens(
                            rs.getString("agent"),
                            rs.getString("model"),
                            rs.getLong("calls"),
                            rs.getLong("input_tokens"),
                            rs.getLong("output_tokens")));
                });
        models.sort((x, y) -> Long.compare(y.inputTokens() + y.outputTokens(), x.inputTokens() + x.outputTokens()));
        return models;
    }

    // ---- retention (RetentionService) ----

    static final String TABLE = "cadre_span";

    /**
     * Removes spans started before {@code before}, except those of {@code keepRuns}, at most {@code
     * batch} rows per statement; walks in start order on the {@code start_nanos} index.
     */
    public Removed deleteBefore(Instant before, java.util.Set<String> keepRuns, int batch) {
        record Key(String traceId, String spanId, long start, String runId, long bytes) {}
        long beforeNanos = before.getEpochSecond() * 1_000_000_000L + before.getNano();
        Removed removed = Removed.NONE;
        Key last = null;
        while (true) {
            String sql = "SELECT trace_id, span_id, start_nanos, run_id, LENGTH(attributes) + LENGTH(name) AS bytes"
                    + " FROM cadre_span WHERE start_nanos < ?"
                    + (last == null ? "" : " AND (start_nanos, trace_id, span_id) > (?, ?, ?)")
                    + " ORDER BY start_nanos, trace_id, span_id FETCH FIRST ? ROWS ONLY";
            List<Object> params = new ArrayList<>(List.of(beforeNanos));
            if (last != null) {
                params.addAll(List.of(last.start(), last.traceId(), last.spanId()));
            }
            params.add(batch);
            List<Key> keys = jdbc.sql(sql)
                    .params(params)
                    .query((rs, i) ->
                            new Key(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getLong(5)))
                    .list();
            if (keys.isEmpty()) {
                return removed;
            }
            last = keys.getLast();
            List<Key> gone =
                    keys.stream().filter(k -> !keepRuns.contains(k.runId())).toList();
            if (!gone.isEmpty()) {
                int n = jdbc.sql("DELETE FROM cadre_span WHERE (trace_id, span_id) IN ("
                                + KeyLists.placeholders(2, gone.size()) + ")")
                        .params(KeyLists.flatten(gone.stream()
                                .map(k -> List.of(k.traceId(), k.spanId()))
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

    /** Removes every span of these runs (retention removing the runs themselves). */
    public Removed deleteOfRuns(java.util.Collection<String> runIds) {
        if (runIds.isEmpty()) {
            return Removed.NONE;
        }
        String in = KeyLists.placeholders(1, runIds.size());
        long bytes = jdbc.sql("SELECT COALESCE(SUM(LENGTH(attributes) + LENGTH(name)), 0) FROM cadre_span"
                        + " WHERE run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .query(Long.class)
                .single();
        int n = jdbc.sql("DELETE FROM cadre_span WHERE run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .update();
        return new Removed(n, bytes);
    }

    /** When the oldest stored span started. */
    public java.util.Optional<Instant> oldestStart() {
        Long nanos = jdbc.sql("SELECT MIN(start_nanos) FROM cadre_span")
                .query(Long.class)
                .optional()
                .orElse(null);
        return nanos == null
                ? java.util.Optional.empty()
                : java.util.Optional.of(Instant.ofEpochSecond(nanos / 1_000_000_000L, nanos % 1_000_000_000L));
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

    /**
     * Retention: removes the model-call rollup rows of hours before {@code before} (no statistics
     * window reaches back that far); V8's backfill marker (1970) stays. Returns how many went.
     */
    public long trimModelRollup(Instant before) {
        return jdbc.sql("DELETE FROM cadre_model_rollup WHERE bucket_hour < ? AND bucket_hour > ?")
                .params(Timestamp.from(before), Timestamp.from(BACKFILL_MARK))
                .update();
    }

    /** PostgreSQL: makes the space of removed rows reusable now ({@link dev.cadre.platform.storage.PostgresSizes#vacuum}). */
    public void reclaimSpace() {
        size.whereMeasurable(() ->
                jdbc.sql(dev.cadre.platform.storage.PostgresSizes.vacuum(TABLE)).update());
    }

    /** Its daily partitions on PostgreSQL (see {@link DailyPartitions}); inactive on H2. */
    public DailyPartitions partitions() {
        return new DailyPartitions(TABLE, DailyPartitions.Key.EPOCH_NANOS, "run_id", new DailyPartitions.Sql() {
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

    /**
     * Builds the model rollup from the spans stored before it existed, once (whoever deletes V8's
     * marker row does it, in the caller's transaction), aggregated per hour in memory: memory
     * follows the number of rollup rows, not of spans.
     */
    public static void backfillModelRollup(JdbcClient jdbc, JsonMapper json) {
        int claimed = jdbc.sql("DELETE FROM cadre_model_rollup WHERE bucket_hour = ? AND model = 'backfill'")
                .param(Timestamp.from(BACKFILL_MARK))
                .update();
        if (claimed == 0) {
            return;
        }
        Map<List<Object>, long[]> calls = new TreeMap<>(TraceStore::compareKeys);
        jdbc.sql("SELECT start_nanos, attributes FROM cadre_span WHERE name LIKE 'chat %'")
                .withFetchSize(1000)
                .query(rs -> {
                    addModelCall(calls, rs.getLong("start_nanos"), json.readTree(rs.getString("attributes")));
                });
        flushModelCalls(jdbc, calls);
    }

    private static void addModelCall(Map<List<Object>, long[]> calls, long startNanos, JsonNode a) {
        String agent = a.path("gen_ai.agent.name").asString("unknown");
        String provider = a.path("gen_ai.provider.name").asString("");
        String model = a.path("gen_ai.request.model").asString("unknown");
        Instant hour =
                Instant.ofEpochSecond(Math.floorDiv(startNanos, 1_000_000_000L)).truncatedTo(ChronoUnit.HOURS);
        String name = provider.isEmpty() ? model : provider + ":" + model;
        long[] t = calls.computeIfAbsent(List.of(hour, truncate(agent, 100), truncate(name, 200)), k -> new long[3]);
        t[0]++;
        t[1] += a.path("gen_ai.usage.input_tokens").asLong(0);
        t[2] += a.path("gen_ai.usage.output_tokens").asLong(0);
    }

    /** Adds to the stored rows in key order (so concurrent writers lock rows in the same order). */
    private static void flushModelCalls(JdbcClient jdbc, Map<List<Object>, long[]> calls) {
        calls.forEach((k, t) -> {
            Timestamp hour = Timestamp.from((Instant) k.get(0));
            // Update first, insert only a missing row: on H2 an INSERT ... ON CONFLICT DO NOTHING that
            // finds the row rolls back to a savepoint, after which waiters on this transaction's rows
            // spin instead of waiting (see RunRollups.upsert).
            if (addModelCalls(jdbc, hour, k, t) == 0) {
                jdbc.sql("INSERT INTO cadre_model_rollup (bucket_hour, agent, model) VALUES (?, ?, ?)"
                                + " ON CONFLICT DO NOTHING")
                        .params(hour, k.get(1), k.get(2))
                        .update();
                addModelCalls(jdbc, hour, k, t);
            }
        });
    }

    private static int addModelCalls(JdbcClient jdbc, Timestamp hour, List<Object> k, long[] t) {
        return jdbc.sql("UPDATE cadre_model_rollup SET calls = calls + ?, input_tokens = input_tokens + ?,"
                        + " output_tokens = output_tokens + ? WHERE bucket_hour = ? AND agent = ? AND model = ?")
                .params(t[0], t[1], t[2], hour, k.get(1), k.get(2))
                .update();
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(List<Object> a, List<Object> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = ((Comparable) a.get(i)).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
