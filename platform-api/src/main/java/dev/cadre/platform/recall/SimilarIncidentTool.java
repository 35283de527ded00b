package dev.cadre.platform.recall;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.Tools;
import dev.cadre.platform.incidents.IncidentService;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code incident_similar}: "seen this before?" for an agent. Without arguments it asks about the
 * incident the run works on; with {@code text} about a description. The answer lists past incidents
 * with their root cause and fix, and — when the best one reads alike enough ({@code
 * cadre.recall.cite-at}) — a standard finding that cites it, category {@code history}, so the known
 * fix reaches the findings as evidence. It never acts: a fix it names still goes through the
 * remediation tools and their approval.
 */
final class SimilarIncidentTool {

    private final RecallService recall;
    private final IncidentService incidents;
    private final Function<String, Optional<String>> runContext;
    private final JsonMapper json;
    private final double citeAt;

    /** @param runContext a run's context JSON (the intake names the incident there before it links the run) */
    SimilarIncidentTool(
            RecallService recall,
            IncidentService incidents,
            Function<String, Optional<String>> runContext,
            JsonMapper json,
            double citeAt) {
        this.recall = recall;
        this.incidents = incidents;
        this.runContext = runContext;
        this.json = json;
        this.citeAt = citeAt;
    }

    Tool tool() {
        return Tools.of(
                "incident_similar",
                "Seen this before? Finds resolved past incidents like this one (the incident this run works on,"
                        + " or 'incident', or a description in 'text') with their root cause, fix and verified"
                        + " actions, best first. Call it first when triaging. When the best match reads alike"
                        + " (similarity ≥ " + citeAt + ") the answer carries a 'history' finding citing it: put it"
                        + " in your findings as evidence. A past fix is never an action taken: remediation still"
                        + " goes through approval.",
                "{\"type\":\"object\",\"properties\":{"
                        + "\"incident\":{\"type\":\"string\",\"maxLength\":100},"
                        + "\"text\":{\"type\":\"string\",\"maxLength\":1000},"
                        + "\"sameKind\":{\"type\":\"boolean\"},\"sameService\":{\"type\":\"boolean\"},"
                        + "\"withinDays\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3650},"
                        + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10}},"
                        + "\"additionalProperties\":false}",
                Risk.AUTO,
                (args, ctx) -> {
                    int limit = args.path("limit").asInt(3);
                    Duration within = args.has("withinDays")
                            ? Duration.ofDays(args.path("withinDays").asInt())
                            : null;
                    RecallService.Filters filters;
                    try {
                        filters = new RecallService.Filters(
                                args.path("sameKind").asBoolean(false),
                                args.path("sameService").asBoolean(false),
                                false,
                                within,
                                limit,
                                SimilarQuery.Mode.HYBRID);
                    } catch (IllegalArgumentException e) {
                        throw new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_arguments", e.getMessage());
                    }
                    String text = args.path("text").asString("");
                    String incident = args.path("incident").asString("");
                    if (incident.isBlank() && text.isBlank()) {
                        incident = incidentOfRun(ctx.runId());
                        if (incident == null) {
                            throw new ToolException(
                                    FailureCategory.EXECUTION_ERROR,
                                    "invalid_arguments",
                                    "this run works on no incident: give 'incident' or a 'text' describing it");
                        }
                    }
                    List<SimilarIncident> found;
                    ObjectNode out = json.createObjectNode();
                    if (!incident.isBlank()) {
                        Optional<List<SimilarIncident>> r = recall.similarTo(incident, filters);
                        if (r.isEmpty()) {
                            throw new ToolException(
                                    FailureCategory.EXECUTION_ERROR,
                                    "not_found",
                                    "no incident '" + incident + "' (incident_find lists them)");
                        }
                        found = r.get();
                        out.put("incident", incident);
                    } else {
                        found = recall.similarToText(text, null, filters);
                        out.putNull("incident");
                    }
                    out.put("remembered", recall.status().indexed());
                    ArrayNode similar = out.putArray("similar");
                    found.forEach(s -> similar.add(json.valueToTree(SimilarIncidentView.of(s))));
                    ArrayNode findings = out.putArray("findings");
                    if (!found.isEmpty() && found.getFirst().similarity() >= citeAt) {
                        findings.add(citation(found.getFirst()));
                    }
                    out.put(
                            "note",
                            found.isEmpty()
                                    ? "Nothing like it was resolved before."
                                    : findings.isEmpty()
                                            ? "No past incident reads alike enough to cite; treat these as leads only."
                                            : "Cite the history finding as evidence; a past fix is not an action taken.");
                    return out.toString();
                });
    }

    /** The standard finding that cites a past incident: info severity, evidence for the team, never an action. */
    private ObjectNode citation(SimilarIncident best) {
        ResolutionRecord r = best.record();
        String where = r.targetName().isBlank() ? "" : " on " + r.targetName();
        String when = r.resolvedAt() == null
                ? ""
                : ", resolved " + r.resolvedAt().toString().substring(0, 10);
        String cause = r.rootCause().isBlank() ? "no root cause recorded" : "root cause: " + r.rootCause();
        String fix = r.fix().isBlank() ? "" : "; fixed by: " + r.fix();
        ObjectNode f = json.createObjectNode();
        f.put("id", "history@" + r.incidentId());
        f.put("severity", "info");
        f.put("category", "history");
        f.put("target", r.targetName().isBlank() ? r.incidentId() : r.targetName());
        f.put(
                "description",
                clip("Seen before: " + r.incidentId() + " (" + r.alertName() + where + when + ") — " + cause + fix));
        f.put(
                "suggestion",
                clip(
                        r.fix().isBlank()
                                ? "compare with " + r.incidentId()
                                : "known fix, as evidence (not an action taken; it still needs approval): " + r.fix()));
        f.put("confidence", Math.max(0, Math.min(1, Math.round(best.similarity() * 100) / 100.0)));
        return f;
    }

    private @Nullable String incidentOfRun(String runId) {
        Optional<String> linked = incidents.forRun(runId).map(i -> i.id());
        if (linked.isPresent()) {
            return linked.get();
        }
        // The Alertmanager intake names the incident in the run's context before it links the run.
        return runContext
                .apply(runId)
                .map(c -> {
                    try {
                        JsonNode n = json.readTree(c);
                        String id = n.path("incident").asString("");
                        return id.isBlank() ? null : id;
                    } catch (RuntimeException e) {
                        return null;
                    }
                })
                .orElse(null);
    }

    private static String clip(String s) {
        return s.length() > 500 ? s.substring(0, 499) + "…" : s;
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
