package dev.cadre.platform.runs;

import dev.cadre.agent.workflow.Finding;
import dev.cadre.agent.workflow.Findings;
import dev.cadre.agent.workflow.FindingsText;
import dev.cadre.agent.workflow.Prose;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.PageCursor;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Runs: submit, follow (SSE), inspect, list and cancel. */
@RestController
@RequestMapping("/api/v1/runs")
class RunController {

    private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999999Z");
    /** Findings are looked for in a run's first this many characters of answers; a page of runs stays cheap. */
    private static final int MAX_FINDINGS_SCAN = 200_000;

    private final RunService runs;
    private final RunEventStreams streams;
    private final String currency;
    private final JsonMapper json;
    private final RunEvents events;
    private final RunMarks marks;

    RunController(
            RunService runs,
            RunEventStreams streams,
            JsonMapper json,
            RunEvents events,
            org.springframework.beans.factory.ObjectProvider<RunMarks> marks,
            @org.springframework.beans.factory.annotation.Value("${cadre.models.currency:USD}") String currency) {
        this.marks = marks.getIfAvailable(() -> RunMarks.NONE);
        this.events = events;
        this.currency = currency;
        this.runs = runs;
        this.streams = streams;
        this.json = json;
    }

    /**
     * {@code context} may be text or any JSON value (stored as its JSON text); {@code workflow} names
     * a declared workflow instead of {@code agent} (either field accepts a workflow's name); {@code
     * budget.maxCost} caps what the run's model calls may cost, in {@code cadre.models.currency}.
     */
    record SubmitRunRequest(
            @Nullable String agent,
            // The limit RunService enforces (400 beyond it), stated in the contract.
            @Schema(maxLength = RunService.MAX_INPUT_CHARS) @Nullable
            String input,

            @Nullable JsonNode context,
            @Nullable String workflow,
            @Nullable String priority,
            @Nullable String deadline,
            @Nullable BudgetRequest budget) {}

    /** A run's budget in currency. */
    record BudgetRequest(@Nullable Double maxCost) {}

    /** What the run's model calls cost so far, and its budget, in the price table's currency. */
    record CostView(
            double amount, String currency, @Nullable Double max) {}

    record ErrorView(
            String category,
            @Nullable String code,
            @Nullable String message) {}

    record UsageView(long inputTokens, long outputTokens, long totalTokens) {}

    record RunView(
            String id,
            String agent,
            String status,
            String input,
            @Nullable String context,

            @Schema(description = "The answer as the agent gave it (for programs: JSON stays JSON)") @Nullable
            String result,

            @Schema(
                    description = "The answer for people, as Markdown: JSON in it (a worker's result, a tool's"
                            + " record, findings) rendered as text and lists")
            @Nullable
            String resultText,

            @Schema(
                    description = "The standard findings in the answer (severity, category, target,"
                            + " description, suggestion, confidence), most severe first; empty when it has none")
            JsonNode findings,

            @Nullable ErrorView error,

            @Schema(
                    description = "The workers' outcomes: each one's summary as its parent read it and,"
                            + " as summaryText, the same as Markdown for people")
            JsonNode subagents,

            JsonNode toolsCalled,
            UsageView usage,
            CostView cost,
            int iterations,
            String submittedBy,
            @Nullable String traceId,
            int resumeCount,
            Instant createdAt,
            @Nullable Instant startedAt,
            @Nullable Instant finishedAt,
            @Nullable Long durationMs,
            Map<String, String> links,
            @Nullable String retryOf,
            String priority,
            @Nullable Instant deadline,

            @Schema(
                    description = "The replay this run belongs to (docs/replay.md): its tools answer from a"
                            + " recorded incident, nothing it does leaves the platform; null for an ordinary run")
            @Nullable
            String replay,

            @Schema(
                    description = "Of a live run, where it stands if known (its newest status event's progress:"
                            + " unit, step, of, fraction, message); null otherwise and in lists")
            @Nullable
            JsonNode progress) {}

    /**
     * A page of runs, newest first. {@code nextCursor}: pass it as {@code cursor} for the next
     * (older) page; null on the last page. No total: counting every matching run per request is
     * what made deep history slow (issue #18).
     */
    record RunPage(List<RunView> items, @Nullable String nextCursor, boolean hasMore, int limit) {}

    @Operation(summary = "Submit a run")
    @ResponseStatus(HttpStatus.ACCEPTED)
    @ApiResponse(
            responseCode = "202",
            description = "Accepted: the run is queued (or, with a replayed Idempotency-Key, the earlier run)",
            headers = {
                @Header(name = "Location", description = "The run", schema = @Schema(type = "string")),
                @Header(
                        name = "Idempotent-Replayed",
                        description = "true when the Idempotency-Key named an earlier run",
                        schema = @Schema(type = "string"))
            })
    @ApiResponse(responseCode = "422", description = "The Idempotency-Key was used for a different request")
    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RunView> submit(
            @RequestBody SubmitRunRequest body,
            @RequestHeader(value = "Idempotency-Key", required = false)
                    @Schema(minLength = 1, maxLength = RunService.MAX_IDEMPOTENCY_KEY_CHARS)
                    @Nullable
                    String idempotencyKey,
            @AuthenticationPrincipal CadrePrincipal caller) {
        String context = body.context() == null || body.context().isNull()
                ? null
                : body.context().isString()
                        ? body.context().asString()
                        : body.context().toString();
        String agent = body.agent();
        if (body.workflow() != null && !body.workflow().isBlank()) {
            if (agent != null && !agent.isBlank() && !agent.equals(body.workflow())) {
                throw ApiProblem.badField("workflow", "give either 'agent' or 'workflow', not two different names")
                        .with("value", body.workflow());
            }
            if (!runs.isWorkflow(body.workflow())) {
                throw ApiProblem.badField("workflow", "'" + body.workflow() + "' is not a declared workflow")
                        .with("value", body.workflow());
            }
            agent = body.workflow();
        }
        RunService.Envelope envelope = new RunService.Envelope(
                null,
                RunService.Envelope.priority(body.priority(), "priority"),
                body.deadline() == null || body.deadline().isBlank() ? null : time("deadline", body.deadline()),
                body.budget() == null ? null : body.budget().maxCost());
        RunService.Submitted s =
                runs.submit(caller.team(), agent, body.input(), context, caller.actor(), idempotencyKey, envelope);
        RunView view = view(s.run());
        var response = ResponseEntity.status(HttpStatus.ACCEPTED)
                .location(URI.create(view.links().get("self")));
        if (!s.created()) {
            response.header("Idempotent-Replayed", "true");
        }
        return response.body(view);
    }

    /** Starts the run again: a new run with the same agent and input, whose {@code retryOf} names this one. */
    @Operation(summary = "Retry a run: a new run with the same agent and input, linked to this one")
    @ResponseStatus(HttpStatus.ACCEPTED)
    @ApiResponse(responseCode = "202", description = "Accepted: the new run is queued")
    @ApiResponse(responseCode = "409", description = "The run has not ended yet")
    @PostMapping(value = "/{id}/retry", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RunView> retry(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        RunView view = view(runs.retry(caller.scope(), id, caller.actor()).run());
        return ResponseEntity.status(HttpStatus.ACCEPTED)
                .location(URI.create(view.links().get("self")))
                .body(view);
    }

    @Operation(summary = "Get a run")
    @GetMapping("/{id}")
    RunView get(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        RunRecord run = runs.get(caller.scope(), id);
        // One indexed read, for this one run only (lists leave it out).
        return view(run, run.status().terminal() ? null : events.latestProgress(id));
    }

    @Operation(summary = "List runs, newest first")
    @GetMapping
    RunPage list(
            @RequestParam(required = false) @Nullable String status,
            @RequestParam(required = false) @Nullable String agent,
            @RequestParam(required = false) @Nullable String from,
            @RequestParam(required = false) @Nullable String to,
            @RequestParam(required = false) @Nullable String q,
            @RequestParam(required = false) @Nullable String cursor,
            @RequestParam(defaultValue = "0") @Min(0) int offset,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit,
            @AuthenticationPrincipal CadrePrincipal caller) {
        PageCursor.refuseOffset(offset);
        PageCursor after = PageCursor.param(cursor);
        RunStatus s;
        try {
            s = status == null || status.isBlank() ? null : RunStatus.fromWire(status);
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badField("status", e.getMessage()).with("parameter", "status");
        }
        // One row more than the page tells whether there is a next page, without a count.
        var query = new RunStore.Query(
                s, blankToNull(agent), time("from", from), time("to", to), blankToNull(q), after, 0, limit + 1);
        List<RunRecord> rows = runs.list(caller.scope(), query);
        boolean more = rows.size() > limit;
        List<RunRecord> page = more ? rows.subList(0, limit) : rows;
        Map<String, String> replays =
                marks.replays(page.stream().map(RunRecord::id).toList());
        return new RunPage(
                page.stream().map(r -> view(r, null, replays.get(r.id()))).toList(),
                more ? new PageCursor(page.getLast().createdAt(), page.getLast().id()).encode() : null,
                more,
                limit);
    }

    @Operation(summary = "Cancel a run")
    @ResponseStatus(HttpStatus.ACCEPTED)
    @ApiResponse(responseCode = "202", description = "Cancellation accepted")
    @ApiResponse(responseCode = "409", description = "The run has already ended")
    @PostMapping(value = "/{id}/cancel", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RunView> cancel(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(view(runs.cancel(caller.scope(), id, caller.name())));
    }

    @Operation(summary = "Follow a run's events (server-sent events)")
    @GetMapping(value = "/{id}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    SseEmitter events(
            @PathVariable String id,
            @RequestParam(defaultValue = "main") String scope,
            @RequestHeader(value = "Last-Event-ID", required = false) @Nullable String lastEventId,
            @AuthenticationPrincipal CadrePrincipal caller) {
        runs.get(caller.scope(), id);
        if (!scope.equals("main") && !scope.equals("all")) {
            throw ApiProblem.badField("scope", "must be 'main' (the run's own stream) or 'all' (with subagents)")
                    .with("parameter", "scope");
        }
        long after = 0;
        if (lastEventId != null && !lastEventId.isBlank()) {
            try {
                after = Long.parseLong(lastEventId.trim());
            } catch (NumberFormatException e) {
                throw ApiProblem.badHeader("Last-Event-ID", "must be the id of an event of this stream (a number)");
            }
        }
        return streams.open(id, after, scope.equals("all"));
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static @Nullable Instant time(String name, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Instant instant;
        try {
            instant = Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw ApiProblem.badField(name, "'" + value + "' is not an ISO-8601 instant such as 2026-12-01T00:00:00Z")
                    .with("parameter", name);
        }
        // Instant reaches ±1e9 years; a database timestamp (epoch millis on the way) does not.
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw ApiProblem.badField(name, "'" + value + "' is outside the years 0001 to 9999")
                    .with("parameter", name);
        }
        return instant;
    }

    /**
     * The run as a client sees it: input, context, result, error and subagent summaries as stored —
     * redacted when written ({@link RunStore#insert}), so a read of a run, or of a page of them, does
     * no pattern matching (issue 23).
     */
    RunView view(RunRecord r) {
        return view(r, null);
    }

    private RunView view(RunRecord r, @Nullable JsonNode progress) {
        return view(r, progress, marks.replays(List.of(r.id())).get(r.id()));
    }

    private RunView view(RunRecord r, @Nullable JsonNode progress, @Nullable String replay) {
        String self = "/api/v1/runs/" + r.id();
        Long duration = r.startedAt() == null
                ? null
                : Duration.between(r.startedAt(), r.finishedAt() == null ? Instant.now() : r.finishedAt())
                        .toMillis();
        JsonNode subagents =
                r.subagentsJson() == null ? json.createArrayNode() : withText(json.readTree(r.subagentsJson()));
        return new RunView(
                r.id(),
                r.agent(),
                r.status().wire(),
                r.input(),
                r.context(),
                r.result(),
                Prose.markdown(r.result()),
                findings(r.result(), subagents),
                r.failureCategory() == null
                        ? null
                        : new ErrorView(r.failureCategory(), r.failureCode(), r.failureMessage()),
                subagents,
                r.toolsCalledJson() == null ? json.createArrayNode() : json.readTree(r.toolsCalledJson()),
                new UsageView(r.inputTokens(), r.outputTokens(), r.inputTokens() + r.outputTokens()),
                new CostView(r.cost(), currency, r.maxCost()),
                r.iterations(),
                r.submittedBy(),
                r.traceId(),
                r.resumeCount(),
                r.createdAt(),
                r.startedAt(),
                r.finishedAt(),
                duration,
                Map.of(
                        "self", self,
                        "events", self + "/events",
                        "trace", self + "/trace",
                        "cancel", self + "/cancel",
                        "retry", self + "/retry",
                        "approvals", "/api/v1/approvals?runId=" + r.id()),
                r.retryOf(),
                RunService.Envelope.priorityName(r.priority()),
                r.deadline(),
                replay,
                progress);
    }

    /**
     * The standard findings of the run — in its answer and its workers' summaries at every depth —
     * de-duplicated, most severe first.
     */
    private static JsonNode findings(@Nullable String result, JsonNode subagents) {
        List<Finding> all = new ArrayList<>();
        int[] scanned = {0};
        if (result != null) {
            collect(result, all, scanned);
        }
        collectFromWorkers(subagents, all, scanned);
        return Findings.toJson(Findings.aggregate(all).sorted()).get("findings");
    }

    private static void collectFromWorkers(JsonNode subagents, List<Finding> into, int[] scanned) {
        for (JsonNode s : subagents) {
            if (s.path("summary").isString()) {
                collect(s.get("summary").asString(), into, scanned);
            }
            collectFromWorkers(s.path("subagents"), into, scanned);
        }
    }

    private static void collect(String text, List<Finding> into, int[] scanned) {
        scanned[0] += text.length();
        if (scanned[0] <= MAX_FINDINGS_SCAN) {
            into.addAll(FindingsText.extract(text));
        }
    }

    /** Each worker's summary also as Markdown ({@code summaryText}), at every depth. */
    private static JsonNode withText(JsonNode subagents) {
        for (JsonNode s : subagents) {
            if (s instanceof ObjectNode o) {
                if (o.path("summary").isString()) {
                    o.put("summaryText", Prose.markdown(o.get("summary").asString()));
                }
                if (o.path("subagents").isArray()) {
                    withText(o.get("subagents"));
                }
            }
        }
        return subagents;
    }
}
