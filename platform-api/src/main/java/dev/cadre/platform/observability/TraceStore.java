package dev.cadre.platform.observability;

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
}
