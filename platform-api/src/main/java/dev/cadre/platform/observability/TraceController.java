package dev.cadre.platform.observability;

import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A run's call chain as a tree of agent, tool and model nodes — the console's source, and usable
 * by any integrator: timings, status, failure category, tokens and tools on every node.
 */
@RestController
class TraceController {

    private static final int SUMMARY_CHARS = 300;

    private final RunService runs;
    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final String externalUrlTemplate;

    TraceController(
            RunService runs,
            JdbcClient jdbc,
            JsonMapper json,
            @Value("${cadre.tracing.external-url-template:}") String externalUrlTemplate) {
        this.runs = runs;
        this.jdbc = jdbc;
        this.json = json;
        this.externalUrlTemplate = externalUrlTemplate;
    }

    record Node(
            String spanId,
            @Nullable String parentSpanId,
            String kind,
            String name,
            @Nullable String agent,
            @Nullable String tool,
            @Nullable String model,
            @Nullable String sessionId,
            @Nullable Long depth,
            Instant start,
            Instant end,
            double startOffsetMs,
            double durationMs,
            String status,
            @Nullable String failureCategory,
            @Nullable String error,
            @Nullable Long inputTokens,
            @Nullable Long outputTokens,
            List<String> toolsCalled,
            @Nullable Long iterations,
            @Nullable String inputSummary,
            @Nullable String outputSummary,
            List<Node> children) {}

    record Trace(
            String runId,
            @Nullable String traceId,
            @Nullable String externalUrl,
            int spanCount,
            List<Node> roots) {}

    private record Row(
            String traceId,
            String spanId,
            @Nullable String parentSpanId,
            String name,
            long startNanos,
            long endNanos,
            String status,
            @Nullable String statusMessage,
            JsonNode attributes) {}

    @GetMapping("/api/v1/runs/{id}/trace")
    Trace trace(@PathVariable String id) {
        RunRecord run = runs.get(id);
        List<Row> rows = jdbc.sql("SELECT trace_id, span_id, parent_span_id, name, start_nanos, end_nanos, status,"
                        + " status_message, attributes FROM cadre_span WHERE run_id = ? ORDER BY start_nanos, span_id")
                .param(id)
                .query((rs, i) -> new Row(
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
        long origin = rows.stream().mapToLong(Row::startNanos).min().orElse(0);
        Map<String, List<Row>> byParent = new HashMap<>();
        Map<String, Row> bySpan = new HashMap<>();
        for (Row r : rows) {
            bySpan.put(r.spanId(), r);
        }
        List<Row> roots = new ArrayList<>();
        for (Row r : rows) {
            // A parent outside the store (e.g. the caller's HTTP span) makes this a root of the run.
            if (r.parentSpanId() == null || !bySpan.containsKey(r.parentSpanId())) {
                roots.add(r);
            } else {
                byParent.computeIfAbsent(r.parentSpanId(), k -> new ArrayList<>())
                        .add(r);
            }
        }
        String traceId = run.traceId() != null
                ? run.traceId()
                : rows.isEmpty() ? null : rows.getFirst().traceId();
        return new Trace(
                id,
                traceId,
                traceId == null || externalUrlTemplate.isBlank()
                        ? null
                        : externalUrlTemplate.replace("{traceId}", traceId).replace("{runId}", id),
                rows.size(),
                roots.stream().map(r -> node(r, byParent, origin)).toList());
    }

    private Node node(Row r, Map<String, List<Row>> byParent, long origin) {
        JsonNode a = r.attributes();
        String operation = text(a, "gen_ai.operation.name");
        String kind = operation == null
                ? "other"
                : switch (operation) {
                    case "invoke_agent" -> "agent";
                    case "execute_tool" -> "tool";
                    case "chat" -> "model";
                    default -> "other";
                };
        List<Node> children = byParent.getOrDefault(r.spanId(), List.of()).stream()
                .sorted(Comparator.comparingLong(Row::startNanos))
                .map(c -> node(c, byParent, origin))
                .toList();
        List<String> tools = new ArrayList<>();
        a.path("cadre.tools.called").forEach(t -> tools.add(t.asString()));
        String provider = text(a, "gen_ai.provider.name");
        String model = text(a, "gen_ai.request.model");
        String status = text(a, "cadre.status");
        return new Node(
                r.spanId(),
                r.parentSpanId(),
                kind,
                r.name(),
                text(a, "gen_ai.agent.name"),
                text(a, "gen_ai.tool.name"),
                model == null ? null : (provider == null ? model : provider + ":" + model),
                text(a, "cadre.session.id") != null ? text(a, "cadre.session.id") : text(a, "gen_ai.conversation.id"),
                a.has("cadre.depth") ? a.get("cadre.depth").asLong() : null,
                Instant.ofEpochSecond(0, r.startNanos()),
                Instant.ofEpochSecond(0, r.endNanos()),
                (r.startNanos() - origin) / 1e6,
                (r.endNanos() - r.startNanos()) / 1e6,
                status != null ? status : r.status(),
                text(a, "error.type"),
                r.statusMessage(),
                a.has("gen_ai.usage.input_tokens")
                        ? a.get("gen_ai.usage.input_tokens").asLong()
                        : null,
                a.has("gen_ai.usage.output_tokens")
                        ? a.get("gen_ai.usage.output_tokens").asLong()
                        : null,
                tools,
                a.has("cadre.iterations") ? a.get("cadre.iterations").asLong() : null,
                summary(text(a, "gen_ai.tool.call.arguments")),
                summary(text(a, "gen_ai.tool.call.result")),
                children);
    }

    private static @Nullable String text(JsonNode a, String key) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? null : v.asString();
    }

    private static @Nullable String summary(@Nullable String s) {
        return s == null || s.length() <= SUMMARY_CHARS ? s : s.substring(0, SUMMARY_CHARS - 1) + "…";
    }
}
