package dev.cadre.platform.incidents;

import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.PageCursor;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Incidents for people: the list on-call starts from, one incident with its timeline, runs, pending
 * approvals, remediations and notifications, the human actions (operators; each audited, repeats
 * change nothing) and a live stream of timeline events.
 */
@RestController
@RequestMapping("/api/v1/incidents")
class IncidentController {

    private static final Set<String> STATUSES = Set.of("open", "escalated", "resolved", "active");
    private static final int TIMELINE_PAGE = 500;

    private final IncidentService incidents;
    private final IncidentStreams streams;
    private final RunService runs;
    private final ApprovalService approvals;
    private final AuditLog audit;
    private final JsonMapper json;

    IncidentController(
            IncidentService incidents,
            IncidentStreams streams,
            RunService runs,
            ApprovalService approvals,
            AuditLog audit,
            JsonMapper json) {
        this.incidents = incidents;
        this.streams = streams;
        this.runs = runs;
        this.approvals = approvals;
        this.audit = audit;
        this.json = json;
    }

    /** An incident in a list: what on-call scans (owner is the assignee, else who acknowledged it). */
    record IncidentSummary(
            String id,
            String title,
            String severity,
            String status,
            String source,
            @Nullable JsonNode target,
            @Nullable String owner,
            @Nullable String acknowledgedBy,
            int occurrences,
            @Nullable String openedAt,
            @Nullable String lastSeenAt,
            @Nullable String resolvedAt,
            @Nullable LastEvent lastEvent,
            long version) {}

    /** The newest entry of an incident's timeline, as a list shows it. */
    record LastEvent(Instant at, String kind, String text) {}

    /** A page of incidents, newest opened first; {@code nextCursor} continues, null on the last page. */
    record IncidentPage(
            List<IncidentSummary> items, @Nullable String nextCursor) {}

    /** One timeline entry; {@code seq} is its cursor (and the live stream's event id). */
    record TimelineItem(
            long seq,
            Instant at,
            String kind,
            @Nullable String actor,
            String text,
            @Nullable JsonNode data,
            @Nullable String runId,
            @Nullable String ref) {}

    record TimelinePage(List<TimelineItem> items, @Nullable String nextCursor) {}

    record LinkedRun(
            String id,
            String agent,
            String status,
            Instant createdAt,
            @Nullable Instant finishedAt) {}

    record PendingApproval(
            String id, String runId, String tool, @Nullable String what, Instant createdAt, Instant expiresAt) {}

    /**
     * One incident: the stored record ({@code incident}, as agents read it), its newest timeline
     * entries, oldest first ({@code timelineTruncated}: older ones exist, page them with {@code
     * /timeline}), remediations, notifications, linked runs and the approvals its runs wait for.
     */
    record IncidentDetail(
            IncidentSummary summary,
            JsonNode incident,
            List<TimelineItem> timeline,
            boolean timelineTruncated,
            JsonNode remediations,
            List<JsonNode> notifications,
            List<LinkedRun> runs,
            List<PendingApproval> pendingApprovals) {}

    record AssignRequest(@NotBlank @Size(max = 200) String assignee) {}

    record CommentRequest(@NotBlank @Size(max = 2000) String text) {}

    record ResolveRequest(
            @NotBlank @Size(max = 2000) String rootCause,
            @NotBlank @Size(max = 2000) String fix) {}

    record ReopenRequest(@NotBlank @Size(max = 2000) String reason) {}

    @Operation(summary = "List incidents, newest opened first")
    @GetMapping
    IncidentPage list(
            @RequestParam(required = false) @Nullable String status,
            @RequestParam(required = false) @Nullable String severity,
            @RequestParam(required = false) @Nullable String source,
            @RequestParam(required = false) @Nullable String target,
            @RequestParam(required = false) @Nullable String since,
            @RequestParam(required = false) @Nullable String cursor,
            @RequestParam(defaultValue = "50") @Min(1) @Max(200) int limit) {
        if (status != null && !STATUSES.contains(status)) {
            throw ApiProblem.badField("status", "must be one of " + new java.util.TreeSet<>(STATUSES))
                    .with("parameter", "status");
        }
        Instant from = null;
        if (since != null && !since.isBlank()) {
            try {
                from = Instant.parse(since.trim());
            } catch (DateTimeParseException e) {
                throw ApiProblem.badField("since", "must be an ISO-8601 instant such as 2026-05-08T03:00:00Z")
                        .with("parameter", "since");
            }
        }
        PageCursor after = PageCursor.param(cursor);
        // The index narrows by status, severity, source and time and pages newest first; each record
        // is then checked as it is now (and against the target filter), so a page reads about a page.
        IncidentIndex.Filter filter = new IncidentIndex.Filter(
                status == null
                        ? List.of()
                        : status.equals("active") ? List.of(Incident.OPEN, Incident.ESCALATED) : List.of(status),
                severity == null ? null : severity.toLowerCase(Locale.ROOT),
                source == null ? null : source.toLowerCase(Locale.ROOT),
                from);
        List<IncidentSummary> items = new ArrayList<>();
        Incident last = null;
        boolean more = false;
        Instant afterOpened = after == null ? null : after.createdAt();
        String afterId = after == null ? null : after.id();
        int batch = Math.min(200, limit + 1);
        Instant lastOpened = null;
        while (!more) {
            List<IncidentService.Listed> page = incidents.page(filter, afterOpened, afterId, batch);
            for (IncidentService.Listed listed : page) {
                afterOpened = listed.row().openedAt();
                afterId = listed.row().id();
                Incident i = listed.incident();
                if (i == null || !matches(i, status, severity, source, target, from)) {
                    continue;
                }
                if (items.size() == limit) {
                    more = true;
                    break;
                }
                items.add(summary(i));
                last = i;
                lastOpened = listed.row().openedAt();
            }
            if (page.size() < batch) {
                break;
            }
        }
        return new IncidentPage(items, more && last != null ? new PageCursor(lastOpened, last.id()).encode() : null);
    }

    @Operation(summary = "Get one incident with its timeline, runs, pending approvals, remediations and notifications")
    @ApiResponse(responseCode = "200", description = "The incident")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @GetMapping("/{id}")
    IncidentDetail get(@PathVariable String id) {
        Incident incident = require(id);
        List<IncidentTimeline.Stored> newest = incidents.latestTimeline(id, TIMELINE_PAGE + 1);
        boolean more = newest.size() > TIMELINE_PAGE;
        List<IncidentTimeline.Stored> shown = new ArrayList<>(more ? newest.subList(0, TIMELINE_PAGE) : newest);
        java.util.Collections.reverse(shown);
        List<JsonNode> notifications = new ArrayList<>();
        for (IncidentTimeline.Stored s : shown) {
            TimelineKind k = s.entry().kind();
            if ((k == TimelineKind.NOTIFICATION_SENT || k == TimelineKind.NOTIFICATION_FAILED)
                    && s.entry().data() != null) {
                notifications.add(json.createObjectNode()
                        .put("at", s.at().toString())
                        .put("text", s.entry().text())
                        .setAll((tools.jackson.databind.node.ObjectNode)
                                s.entry().data()));
            }
        }
        List<LinkedRun> linked = new ArrayList<>();
        List<PendingApproval> pending = new ArrayList<>();
        for (String runId : incident.runs()) {
            RunRecord run = quietly(() -> runs.get(TeamScope.allTeams("an incident's linked runs"), runId));
            if (run == null) {
                continue; // removed by retention
            }
            linked.add(new LinkedRun(run.id(), run.agent(), run.status().wire(), run.createdAt(), run.finishedAt()));
            if (!run.status().terminal()) {
                for (ApprovalRecord a :
                        approvals.list(TeamScope.allTeams("an incident's linked runs"), "pending", runId, null, 20)) {
                    pending.add(
                            new PendingApproval(a.id(), a.runId(), a.tool(), a.what(), a.createdAt(), a.expiresAt()));
                }
            }
        }
        linked.sort(Comparator.comparing(LinkedRun::createdAt).reversed());
        return new IncidentDetail(
                summary(incident),
                incident.view(),
                shown.stream().map(IncidentController::item).toList(),
                more,
                incident.value().path("remediations").isArray()
                        ? incident.value().get("remediations")
                        : json.createArrayNode(),
                notifications,
                linked,
                pending);
    }

    @Operation(summary = "Page through an incident's timeline, oldest first")
    @ApiResponse(responseCode = "200", description = "A page of the timeline")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @GetMapping("/{id}/timeline")
    TimelinePage timeline(
            @PathVariable String id,
            @RequestParam(required = false) @Nullable String cursor,
            @RequestParam(defaultValue = "200") @Min(1) @Max(1000) int limit) {
        require(id);
        long after = seq("cursor", cursor);
        List<IncidentTimeline.Stored> page = incidents.timeline(id, after, limit + 1);
        boolean more = page.size() > limit;
        List<IncidentTimeline.Stored> shown = more ? page.subList(0, limit) : page;
        return new TimelinePage(
                shown.stream().map(IncidentController::item).toList(),
                more ? Long.toString(shown.getLast().seq()) : null);
    }

    @Operation(summary = "Follow every incident's timeline live (server-sent events, one per entry)")
    @ApiResponse(responseCode = "200", description = "The event stream")
    @ApiResponse(responseCode = "404", description = "No such incident (incident parameter)")
    @ApiResponse(responseCode = "429", description = "Too many open event streams (cadre.sse.*)")
    @GetMapping(value = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    SseEmitter events(
            @RequestParam(required = false) @Nullable String incident,
            @RequestHeader(value = "Last-Event-ID", required = false) @Nullable String lastEventId) {
        if (incident != null) {
            require(incident);
        }
        long after =
                lastEventId == null || lastEventId.isBlank() ? incidents.latestTimelineSeq() : seqHeader(lastEventId);
        return streams.open(incident, after);
    }

    @Operation(summary = "Acknowledge an incident: you are on it (repeats change nothing)")
    @ApiResponse(responseCode = "200", description = "The incident's summary")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @ApiResponse(responseCode = "409", description = "The incident is resolved")
    @PostMapping(value = "/{id}/acknowledge", produces = MediaType.APPLICATION_JSON_VALUE)
    IncidentSummary acknowledge(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        return audited(caller, "incident.acknowledge", id, "", () -> incidents.acknowledge(id, caller.name()));
    }

    @Operation(summary = "Assign an incident to someone (assigning it to its owner changes nothing)")
    @ApiResponse(responseCode = "200", description = "The incident's summary")
    @ApiResponse(responseCode = "400", description = "assignee missing (field named)")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @PostMapping(value = "/{id}/assign", produces = MediaType.APPLICATION_JSON_VALUE)
    IncidentSummary assign(
            @PathVariable String id,
            @Valid @RequestBody AssignRequest body,
            @AuthenticationPrincipal CadrePrincipal caller) {
        String assignee = body.assignee().strip();
        return audited(
                caller,
                "incident.assign",
                id,
                "assignee=" + assignee,
                () -> incidents.assign(id, assignee, caller.name()));
    }

    @Operation(
            summary = "Comment on an incident",
            description = "A retry with the same Idempotency-Key header is one comment.")
    @ApiResponse(responseCode = "200", description = "The incident's summary")
    @ApiResponse(responseCode = "400", description = "text missing or too long (field named)")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @PostMapping(value = "/{id}/comments", produces = MediaType.APPLICATION_JSON_VALUE)
    IncidentSummary comment(
            @PathVariable String id,
            @Valid @RequestBody CommentRequest body,
            @RequestHeader(value = "Idempotency-Key", required = false) @Nullable String idempotencyKey,
            @AuthenticationPrincipal CadrePrincipal caller) {
        if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > 128)) {
            throw ApiProblem.badHeader("Idempotency-Key", "must be 1 to 128 characters");
        }
        return audited(
                caller,
                "incident.comment",
                id,
                body.text(),
                () -> incidents.comment(id, body.text(), caller.name(), idempotencyKey));
    }

    @Operation(summary = "Resolve an incident with its root cause and what fixed it")
    @ApiResponse(responseCode = "200", description = "The incident's summary")
    @ApiResponse(responseCode = "400", description = "rootCause or fix missing (field named)")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @ApiResponse(responseCode = "409", description = "Already resolved with another resolution")
    @PostMapping(value = "/{id}/resolve", produces = MediaType.APPLICATION_JSON_VALUE)
    IncidentSummary resolve(
            @PathVariable String id,
            @Valid @RequestBody ResolveRequest body,
            @AuthenticationPrincipal CadrePrincipal caller) {
        Resolution resolution =
                new Resolution(body.rootCause().strip(), body.fix().strip());
        return audited(
                caller,
                "incident.resolve",
                id,
                "rootCause=" + resolution.rootCause() + " fix=" + resolution.fix(),
                () -> incidents.resolve(id, resolution, caller.name()));
    }

    @Operation(summary = "Reopen a resolved incident")
    @ApiResponse(responseCode = "200", description = "The incident's summary")
    @ApiResponse(responseCode = "400", description = "reason missing (field named)")
    @ApiResponse(responseCode = "404", description = "No such incident")
    @ApiResponse(responseCode = "409", description = "Its alert has another active incident")
    @PostMapping(value = "/{id}/reopen", produces = MediaType.APPLICATION_JSON_VALUE)
    IncidentSummary reopen(
            @PathVariable String id,
            @Valid @RequestBody ReopenRequest body,
            @AuthenticationPrincipal CadrePrincipal caller) {
        return audited(
                caller, "incident.reopen", id, body.reason(), () -> incidents.reopen(id, body.reason(), caller.name()));
    }

    // ---- helpers ----

    private IncidentSummary audited(
            CadrePrincipal caller, String action, String id, String detail, Supplier<IncidentService.Acted> act) {
        IncidentService.Acted acted;
        try {
            acted = act.get();
        } catch (NoSuchElementException e) {
            throw ApiProblem.notFound("incident", id);
        } catch (IncidentService.ActionConflict e) {
            throw ApiProblem.conflict(e.getMessage()).with("incident", id);
        }
        if (acted.changed()) {
            audit.record(caller.name(), action, id, detail + " key=" + caller.keyId());
        }
        return summary(acted.incident());
    }

    private Incident require(String id) {
        if (!id.startsWith("inc-")) {
            // Pointer keys (fp:…, run:…) live in the same namespace but are not incidents.
            throw ApiProblem.notFound("incident", id);
        }
        return incidents.get(id).orElseThrow(() -> ApiProblem.notFound("incident", id));
    }

    private static @Nullable RunRecord quietly(Supplier<RunRecord> get) {
        try {
            return get.get();
        } catch (ApiProblem gone) {
            return null;
        }
    }

    private static boolean matches(
            Incident i,
            @Nullable String status,
            @Nullable String severity,
            @Nullable String source,
            @Nullable String target,
            @Nullable Instant since) {
        JsonNode v = i.value();
        if (status != null) {
            boolean ok = status.equals("active") ? i.active() : status.equals(i.status());
            if (!ok) {
                return false;
            }
        }
        if (severity != null && !severity.equalsIgnoreCase(v.path("severity").asString(""))) {
            return false;
        }
        if (source != null && !source.equalsIgnoreCase(v.path("source").asString(""))) {
            return false;
        }
        if (target != null && !targetMatches(v, target.toLowerCase(Locale.ROOT))) {
            return false;
        }
        return since == null || !opened(i).isBefore(since);
    }

    /** The filter matches the target's name, namespace/name or instance, or else a label value. */
    private static boolean targetMatches(JsonNode v, String wanted) {
        JsonNode t = v.path("target");
        for (String s : new String[] {
            t.path("name").asString(""),
            t.path("instance").asString(""),
            t.path("namespace").asString("") + "/" + t.path("name").asString("")
        }) {
            if (!s.isEmpty() && s.toLowerCase(Locale.ROOT).contains(wanted)) {
                return true;
            }
        }
        for (String label : new String[] {"instance", "node", "host", "pod", "deployment", "service"}) {
            String s = v.path("labels").path(label).asString("");
            if (!s.isEmpty() && s.toLowerCase(Locale.ROOT).contains(wanted)) {
                return true;
            }
        }
        return false;
    }

    private static Instant opened(Incident i) {
        try {
            return Instant.parse(i.value().path("openedAt").asString(""));
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    private IncidentSummary summary(Incident i) {
        JsonNode v = i.value();
        String assignee = v.path("assignee").asString(null);
        String acknowledgedBy = v.path("acknowledgedBy").asString(null);
        return new IncidentSummary(
                i.id(),
                v.path("title").asString(""),
                v.path("severity").asString(""),
                i.status(),
                v.path("source").asString(""),
                v.path("target").isObject() ? v.get("target") : null,
                assignee != null ? assignee : acknowledgedBy,
                acknowledgedBy,
                i.occurrences(),
                v.path("openedAt").asString(null),
                v.path("lastSeenAt").asString(null),
                v.path("resolvedAt").asString(null),
                incidents.latestTimeline(i.id(), 1).stream()
                        .findFirst()
                        .map(s -> new LastEvent(
                                s.at(),
                                s.entry().kind().name().toLowerCase(Locale.ROOT),
                                s.entry().text()))
                        .orElse(null),
                i.version());
    }

    static TimelineItem item(IncidentTimeline.Stored s) {
        TimelineEntry e = s.entry();
        return new TimelineItem(
                s.seq(),
                s.at(),
                e.kind().name().toLowerCase(Locale.ROOT),
                e.actor(),
                e.text(),
                e.data(),
                e.runId(),
                e.ref());
    }

    private static long seq(String name, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            long n = Long.parseLong(value.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw ApiProblem.badField(name, "not a cursor this server handed out (use nextCursor of the previous page)")
                    .with("parameter", name);
        }
    }

    private static long seqHeader(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw ApiProblem.badHeader("Last-Event-ID", "must be the id of an event of this stream (a number)");
        }
    }
}
