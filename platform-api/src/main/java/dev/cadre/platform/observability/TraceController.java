package dev.cadre.platform.observability;

import dev.cadre.platform.observability.TraceStore.StoredSpan;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.CadrePrincipal;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * A run's call chain as a tree of agent, tool and model nodes — the console's source, and usable
 * by any integrator: timings, status, failure category, tokens and tools on every node. An agent
 * node's {@code inputTokens}/{@code outputTokens} are its own model calls; {@code treeInputTokens}/
 * {@code treeOutputTokens} add its workers'.
 */
@RestController
class TraceController {

    private static final int SUMMARY_CHARS = 300;

    private final RunService runs;
    private final TraceStore spans;
    private final String externalUrlTemplate;

    TraceController(
            RunService runs,
            TraceStore spans,
            @Value("${cadre.tracing.external-url-template:}") String externalUrlTemplate) {
        this.runs = runs;
        this.spans = spans;
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
            @Nullable Long treeInputTokens,
            @Nullable Long treeOutputTokens,
            List<String> toolsCalled,
            @Nullable Long iterations,
            @Nullable String inputSummary,
            @Nullable String outputSummary,
            List<Node> children,
            @Nullable Double cost,
            @Nullable String fallbackModel,
            // A tool call's output: the bytes it returned, the bytes its model read, and when they
            // differ, the handle of the full output (GET /api/v1/runs/{id}/tool-outputs/{handle}).
            @Nullable Long outputOriginalBytes,
            @Nullable Long outputDeliveredBytes,
            @Nullable String outputHandle) {}

    /**
     * {@code complete}: every span of the run is stored. Spans are stored by a batching exporter a
     * moment after they end, in the order they ended; the root span of a run's last execution ends
     * after all of its descendants, so once the run has ended and that root is stored the tree is
     * whole. Until then a client (the console) shows the tree as still arriving and asks again.
     */
    record Trace(
            String runId,
            @Nullable String traceId,
            @Nullable String externalUrl,
            int spanCount,
            boolean complete,
            List<Node> roots) {}

    @Operation(summary = "A run's trace: its span tree")
    @GetMapping("/api/v1/runs/{id}/trace")
    Trace trace(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        RunRecord run = runs.get(caller.scope(), id);
        List<StoredSpan> rows = spans.spansOfRun(id);
        long origin = rows.stream().mapToLong(StoredSpan::startNanos).min().orElse(0);
        Map<String, List<StoredSpan>> byParent = new HashMap<>();
        Map<String, StoredSpan> bySpan = new HashMap<>();
        for (StoredSpan r : rows) {
            bySpan.put(r.spanId(), r);
        }
        List<StoredSpan> roots = new ArrayList<>();
        for (StoredSpan r : rows) {
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
                complete(run, rows, roots),
                roots.stream().map(r -> node(r, byParent, origin)).toList());
    }

    /**
     * Whether the stored spans are all the run will have: it has ended, and either it never
     * executed (ended before it started: no spans will come) or the root span of its execution is
     * stored — an agent or workflow span without a stored parent that carries its outcome
     * ({@code cadre.status}, set as it ends). Its descendants ended before it and were exported
     * before it.
     */
    static boolean complete(RunRecord run, List<StoredSpan> rows, List<StoredSpan> roots) {
        if (!run.status().terminal()) {
            return false;
        }
        if (rows.isEmpty()) {
            return run.startedAt() == null;
        }
        for (StoredSpan root : roots) {
            String operation = text(root.attributes(), "gen_ai.operation.name");
            if (("invoke_agent".equals(operation) || "invoke_workflow".equals(operation))
                    && text(root.attributes(), "cadre.status") != null) {
                return true;
            }
        }
        return false;
    }

    private Node node(StoredSpan r, Map<String, List<StoredSpan>> byParent, long origin) {
        JsonNode a = r.attributes();
        String operation = text(a, "gen_ai.operation.name");
        String kind = operation == null
                ? "other"
                : switch (operation) {
                    case "invoke_agent" -> "agent";
                    case "invoke_workflow" -> "workflow";
                    case "execute_tool" -> "tool";
                    case "chat" -> "model";
                    default -> "other";
                };
        List<Node> children = byParent.getOrDefault(r.spanId(), List.of()).stream()
                .sorted(Comparator.comparingLong(StoredSpan::startNanos))
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
                a.has("cadre.tree.input_tokens")
                        ? a.get("cadre.tree.input_tokens").asLong()
                        : null,
                a.has("cadre.tree.output_tokens")
                        ? a.get("cadre.tree.output_tokens").asLong()
                        : null,
                tools,
                a.has("cadre.iterations") ? a.get("cadre.iterations").asLong() : null,
                summary(text(a, "gen_ai.tool.call.arguments")),
                summary(text(a, "gen_ai.tool.call.result")),
                children,
                // a chat span's price (cadre.models.prices) and the model that answered instead
                a.has("cadre.cost") ? a.get("cadre.cost").asDouble() : null,
                text(a, "cadre.model.fallback"),
                a.has("cadre.tool.output.original_bytes")
                        ? a.get("cadre.tool.output.original_bytes").asLong()
                        : null,
                a.has("cadre.tool.output.delivered_bytes")
                        ? a.get("cadre.tool.output.delivered_bytes").asLong()
                        : null,
                text(a, "cadre.tool.output.handle"));
    }

    private static @Nullable String text(JsonNode a, String key) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? null : v.asString();
    }

    private static @Nullable String summary(@Nullable String s) {
        return s == null || s.length() <= SUMMARY_CHARS ? s : s.substring(0, SUMMARY_CHARS - 1) + "…";
    }
}
