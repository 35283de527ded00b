package dev.cadre.platform.incidents;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.Tools;
import dev.cadre.agent.workflow.Finding;
import dev.cadre.agent.workflow.FindingsText;
import dev.cadre.agent.workflow.Severity;
import dev.cadre.memory.Writer;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code incident_open}, {@code incident_find}, {@code incident_update}: the check every agent makes
 * before acting. Results carry a {@code remediation} hint — {@code allowed}, {@code already-done},
 * {@code ask-human} (escalated by this call), {@code with-human} (escalated earlier) or {@code none}
 * — which the platform itself enforces in runbook_execute whatever the model concludes.
 */
public final class IncidentTools {

    private final IncidentService incidents;
    private final JsonMapper json;
    private final Severity openAt;

    public IncidentTools(IncidentService incidents, JsonMapper json, Severity openAt) {
        this.incidents = incidents;
        this.json = json;
        this.openAt = openAt;
    }

    public List<Tool> tools() {
        return List.of(open(), find(), update());
    }

    private Tool open() {
        return Tools.of(
                "incident_open",
                "Open an incident, or find the open one with the same fingerprint and count one more sighting of it."
                        + " Give a fingerprint and title, or give the findings and the incident is keyed by the most"
                        + " severe one (nothing is opened when none is at least '"
                        + openAt.name().toLowerCase(Locale.ROOT) + "'). A run already working on an incident gets"
                        + " that one. Read 'remediation' before acting: allowed, already-done, ask-human, with-human"
                        + " or none.",
                "{\"type\":\"object\",\"properties\":{"
                        + "\"fingerprint\":{\"type\":\"string\",\"maxLength\":300},"
                        + "\"title\":{\"type\":\"string\",\"maxLength\":300},"
                        + "\"severity\":{\"type\":\"string\",\"enum\":[\"info\",\"low\",\"medium\",\"high\",\"critical\"]},"
                        + "\"findings\":{\"description\":\"standard findings, or text containing them\"}},"
                        + "\"additionalProperties\":false}",
                Risk.AUTO,
                (args, ctx) -> {
                    Writer writer = Writer.agent(ctx.agent(), ctx.runId());
                    Optional<Incident> linked = incidents.forRun(ctx.runId());
                    if (linked.isPresent()) {
                        return result(linked.get(), false, false, true).toString();
                    }
                    String fingerprint = args.path("fingerprint").asString("");
                    String title = args.path("title").asString("");
                    String severity = args.path("severity").asString("");
                    ObjectNode out = json.createObjectNode();
                    if (args.has("findings")) {
                        JsonNode f = args.get("findings");
                        List<Finding> findings =
                                f.isString() ? FindingsText.extract(f.asString()) : FindingsText.extract(f);
                        Optional<Finding> top = findings.stream()
                                .min(Comparator.comparing(Finding::severity)
                                        .thenComparing(Comparator.comparingDouble(Finding::confidence)
                                                .reversed()));
                        if (top.isEmpty() || top.get().severity().compareTo(openAt) > 0) {
                            out.put("opened", false);
                            out.put(
                                    "reason",
                                    findings.size() + " findings, none at least "
                                            + openAt.name().toLowerCase(Locale.ROOT) + ": no incident");
                            out.put("remediation", "none");
                            out.put("gate", "remediation-none");
                            return out.toString();
                        }
                        Finding t = top.get();
                        fingerprint = fingerprint.isBlank() ? t.category() + "@" + t.target() : fingerprint;
                        title = title.isBlank() ? t.description() : title;
                        severity = severity.isBlank() ? t.severity().name().toLowerCase(Locale.ROOT) : severity;
                    }
                    if (fingerprint.isBlank()) {
                        throw new ToolException(
                                FailureCategory.EXECUTION_ERROR,
                                "invalid_arguments",
                                "give a fingerprint (and title), or findings to derive it from");
                    }
                    IncidentService.Opened opened = incidents.open(
                            new IncidentService.OpenRequest(
                                    fingerprint,
                                    title.isBlank() ? fingerprint : title,
                                    severity.isBlank() ? "high" : severity,
                                    "agent " + ctx.agent(),
                                    Map.of(),
                                    null),
                            writer,
                            ctx.runId());
                    return result(opened.incident(), opened.created(), opened.escalatedNow(), false)
                            .toString();
                });
    }

    private Tool find() {
        return Tools.of(
                "incident_find",
                "Find incidents: by id, by fingerprint, or (no arguments) the one this run works on plus the open"
                        + " ones. Check this before acting: has someone already done it?",
                "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"fingerprint\":{\"type\":\"string\"},"
                        + "\"includeResolved\":{\"type\":\"boolean\"}},\"additionalProperties\":false}",
                Risk.AUTO,
                (args, ctx) -> {
                    if (args.has("id")) {
                        return incidents
                                .get(args.get("id").asString())
                                .map(i -> result(i, false, false, false).toString())
                                .orElse("{\"found\":false}");
                    }
                    if (args.has("fingerprint")) {
                        return incidents
                                .findActive(args.get("fingerprint").asString())
                                .map(i -> result(i, false, false, false).toString())
                                .orElse("{\"found\":false}");
                    }
                    ObjectNode out = json.createObjectNode();
                    incidents.forRun(ctx.runId()).ifPresent(i -> out.set("thisRun", result(i, false, false, true)));
                    ArrayNode list = out.putArray("incidents");
                    for (Incident i :
                            incidents.list(args.path("includeResolved").asBoolean(false), 20)) {
                        list.add(summary(i));
                    }
                    return out.toString();
                });
    }

    private Tool update() {
        return Tools.of(
                "incident_update",
                "Update the incident this run works on at the version you read (optimistic locking): status"
                        + " (open, escalated, resolved), severity, and/or a note for its timeline. On a conflict you"
                        + " get the current version: re-read and decide again. Other incidents are not yours to"
                        + " change.",
                "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\",\"minLength\":1},"
                        + "\"expectedVersion\":{\"type\":\"integer\",\"minimum\":1},"
                        + "\"status\":{\"type\":\"string\",\"enum\":[\"open\",\"escalated\",\"resolved\"]},"
                        + "\"severity\":{\"type\":\"string\",\"enum\":[\"info\",\"low\",\"medium\",\"high\",\"critical\"]},"
                        + "\"note\":{\"type\":\"string\",\"maxLength\":2000}},"
                        + "\"required\":[\"id\",\"expectedVersion\"],\"additionalProperties\":false}",
                Risk.AUTO,
                (args, ctx) -> {
                    // A run changes only its own incident: a model steered by injected text must not
                    // resolve or silence someone else's.
                    String id = args.get("id").asString();
                    Optional<Incident> own = incidents.forRun(ctx.runId());
                    if (own.isEmpty() || !own.get().id().equals(id)) {
                        throw new ToolException(
                                FailureCategory.EXECUTION_ERROR,
                                "not_this_runs_incident",
                                own.map(i -> "this run works on incident " + i.id() + "; '" + id
                                                + "' is not yours to update")
                                        .orElse("this run works on no incident (incident_open links one); '" + id
                                                + "' is not yours to update"));
                    }
                    IncidentService.Update u = incidents.update(
                            id,
                            args.get("expectedVersion").asLong(),
                            args.has("status") ? args.get("status").asString() : null,
                            args.has("severity") ? args.get("severity").asString() : null,
                            args.has("note") ? args.get("note").asString() : null,
                            Writer.agent(ctx.agent(), ctx.runId()));
                    ObjectNode out = json.createObjectNode();
                    switch (u) {
                        case IncidentService.Update.Written w -> {
                            out.put("status", "written");
                            out.set("incident", w.incident().view());
                        }
                        case IncidentService.Update.Conflict c -> {
                            out.put("status", "conflict");
                            out.put("message", "the incident changed since you read it: re-read and decide again");
                            out.put("currentVersion", c.current().version());
                            out.set("current", c.current().view());
                        }
                        case IncidentService.Update.NotFound n ->
                            throw new ToolException(
                                    FailureCategory.EXECUTION_ERROR,
                                    "unknown_incident",
                                    "no incident '" + n.id() + "'");
                    }
                    return out.toString();
                });
    }

    private ObjectNode result(Incident incident, boolean created, boolean escalatedNow, boolean linked) {
        ObjectNode out = json.createObjectNode();
        out.put("opened", true);
        out.put("created", created);
        out.put("linkedToThisRun", linked);
        String hint = incidents.remediationHint(incident, escalatedNow);
        out.put("remediation", hint);
        // The same decision as one token, so it survives being quoted inside a worker's summary.
        out.put("gate", "remediation-" + hint);
        out.set("incident", summary(incident));
        return out;
    }

    private ObjectNode summary(Incident i) {
        ObjectNode v = i.view();
        v.remove("timeline");
        return v;
    }
}
