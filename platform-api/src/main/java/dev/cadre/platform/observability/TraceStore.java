package dev.cadre.platform.observability;

import dev.cadre.platform.storage.DailyPartitions;
import dev.cadre.platform.storage.KeyLists;
import dev.cadre.platform.storage.Removed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The platform's own store of run spans ({@link TraceStoreExporter} fills it), and the only class
 * that reads or writes {@code cadre_span}: the trace view and the statistics ask through its query
 * methods. Attributes are JSON read in Java, so the same queries work on PostgreSQL and H2.
 */
public final class TraceStore {

    private final JdbcClient jdbc;
    private final JsonMapper json;

    TraceStore(JdbcClient jdbc, JsonMapper json) {
        this.jdbc = jdbc;
        this.json = json;
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

    void insert(StoredSpan s, String runId) {
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
                        s.attributes().toString())
                .update();
    }

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
     * Tokens of the model calls ({@code chat} spans) started since {@code from}, most tokens first:
     * a run's total cannot tell which model spent them.
     */
    public List<ModelTokens> modelTokensSince(Instant from) {
        Map<String, long[]> byModel = new TreeMap<>();
        jdbc.sql("SELECT attributes FROM cadre_span WHERE start_nanos >= ? AND name LIKE 'chat %'")
                .param(from.getEpochSecond() * 1_000_000_000L + from.getNano())
                .query(rs -> {
                    JsonNode a = json.readTree(rs.getString("attributes"));
                    String agent = a.path("gen_ai.agent.name").asString("unknown");
                    String provider = a.path("gen_ai.provider.name").asString("");
                    String model = a.path("gen_ai.request.model").asString("unknown");
                    long[] t = byModel.computeIfAbsent(
                            agent + "\t" + (provider.isEmpty() ? model : provider + ":" + model), k -> new long[3]);
                    t[0]++;
                    t[1] += a.path("gen_ai.usage.input_tokens").asLong(0);
                    t[2] += a.path("gen_ai.usage.output_tokens").asLong(0);
                });
        List<ModelTokens> models = new ArrayList<>();
        byModel.forEach((k, t) -> {
            String[] parts = k.split("\t", 2);
            models.add(new ModelTokens(parts[0], parts[1], t[0], t[1], t[2]));
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

    private volatile boolean sizeUnknown; // H2: no size functions

    /** Bytes on disk of the table (with indexes, TOAST and partitions); empty where the database cannot tell (H2). */
    public java.util.OptionalLong sizeBytes() {
        if (sizeUnknown) {
            return java.util.OptionalLong.empty();
        }
        try {
            return java.util.OptionalLong.of(jdbc.sql(dev.cadre.platform.storage.PostgresSizes.TOTAL_BYTES)
                    .params(TABLE, TABLE)
                    .query(Long.class)
                    .single());
        } catch (org.springframework.dao.DataAccessException e) {
            sizeUnknown = true;
            return java.util.OptionalLong.empty();
        }
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
}
