package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.RemediationOutcome;
import dev.cadre.platform.incidents.Resolution;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code host_verify}: after a runbook ran on a host, re-queries Prometheus for the signals the runbook
 * declares it improves ({@code verifies}: cpu, memory, disk) — the window before the repair started
 * against the settle time after it finished — and records the outcome on the incident: better
 * ({@code SUCCEEDED}, the incident is resolved), unchanged or worse (the incident stays open and is
 * escalated to a human), with the numbers and queries as evidence.
 */
final class HostVerifyTool implements Tool {

    /** A change smaller than this (absolute, on a 0..1 ratio) is "unchanged". */
    static final double MARGIN = 0.05;

    private final PrometheusClient prometheus;
    private final IncidentService incidents;
    private final Runbooks runbooks;
    private final OpsToolsProperties.HostInspect config;
    private final JsonMapper json;
    private final Clock clock;

    HostVerifyTool(
            PrometheusClient prometheus,
            IncidentService incidents,
            Runbooks runbooks,
            OpsToolsProperties.HostInspect config,
            JsonMapper json,
            Clock clock) {
        this.prometheus = prometheus;
        this.incidents = incidents;
        this.runbooks = runbooks;
        this.config = config;
        this.json = json;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "host_verify";
    }

    @Override
    public String description() {
        return "After a runbook ran on a host, re-query Prometheus for the same signals (the ones the runbook"
                + " declares it improves: cpu busy share, memory used, disk used) before the repair and "
                + human(config.settle()) + " after it, and record the outcome on the incident: better (resolves it),"
                + " unchanged or worse (it stays open and goes to a human), with the numbers. Give the host (and its"
                + " instance label if known); the incident defaults to this run's.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"host\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":253},"
                + "\"instance\":{\"type\":\"string\",\"maxLength\":253},"
                + "\"incident\":{\"type\":\"string\",\"maxLength\":100}},"
                + "\"required\":[\"host\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws InterruptedException {
        ObjectNode out = json.createObjectNode();
        String host = HostTarget.withoutPort(HostTarget.safe(args.path("host").asString("")));
        out.put("host", host);
        Optional<Incident> incident =
                args.has("incident") ? incidents.get(args.get("incident").asString()) : incidents.forRun(ctx.runId());
        if (incident.isEmpty()) {
            return out.put("verdict", "not-verified")
                    .put("reason", "no incident to verify a repair of")
                    .toString();
        }
        out.put("incident", incident.get().id());
        JsonNode remediation = lastRemediation(incident.get(), host);
        if (remediation == null) {
            return out.put("verdict", "not-verified")
                    .put(
                            "reason",
                            "no runbook ran on " + host + " for incident "
                                    + incident.get().id())
                    .toString();
        }
        String runbook = remediation.path("runbook").asString();
        out.put("runbook", runbook);
        if (!"ok".equals(remediation.path("status").asString())) {
            return out.put("verdict", "not-verified")
                    .put(
                            "reason",
                            "runbook " + runbook + " did not complete on " + host + " (status "
                                    + remediation.path("status").asString() + "); nothing to verify")
                    .toString();
        }
        Instant started = Instant.parse(remediation.path("startedAt").asString());
        Instant finished = remediation.path("finishedAt").isString()
                ? Instant.parse(remediation.path("finishedAt").asString())
                : started;
        // Give the host and Prometheus's scrapes the settle time after the repair before judging it.
        Instant after = finished.plus(config.settle());
        long wait = Duration.between(clock.instant(), after).toMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
        Instant now = clock.instant();
        List<String> signals = runbooks.find(runbook)
                .map(Runbooks.Runbook::verifies)
                .filter(v -> !v.isEmpty())
                .orElse(List.of("cpu", "memory", "disk"));
        String instance = args.path("instance").asString("").strip();
        String sel = instance.isEmpty()
                ? "instance=~\"" + host.replace(".", "\\\\.") + "(:[0-9]+)?\""
                : "instance=\"" + HostTarget.safe(instance) + "\"";
        // Like with like: the settle time before the repair started against the settle time after it ended.
        String beforeRange = Math.max(1, config.settle().toSeconds()) + "s";
        String afterRange = beforeRange;
        ObjectNode evidence = out.putObject("signals");
        List<String> better = new ArrayList<>();
        List<String> worse = new ArrayList<>();
        List<String> same = new ArrayList<>();
        String failure = null;
        for (String signal : signals) {
            String template = query(signal, sel);
            if (template == null) {
                continue;
            }
            String qBefore = template.replace("RANGE", beforeRange);
            String qAfter = template.replace("RANGE", afterRange);
            Measured b = measure(qBefore, started);
            Measured a = measure(qAfter, now);
            ObjectNode e = evidence.putObject(signal);
            e.put("beforeQuery", qBefore)
                    .put("beforeAt", started.truncatedTo(ChronoUnit.SECONDS).toString());
            e.put("afterQuery", qAfter)
                    .put("afterAt", now.truncatedTo(ChronoUnit.SECONDS).toString());
            if (b.error != null || a.error != null) {
                failure = b.error != null ? b.error : a.error;
                e.put("error", failure);
                continue;
            }
            if (b.value == null || a.value == null) {
                e.put("error", "no data for " + host + " " + (b.value == null ? "before" : "after") + " the repair");
                continue;
            }
            e.put("before", HostSignals.round(b.value)).put("after", HostSignals.round(a.value));
            String words =
                    String.format(Locale.ROOT, "%s %.0f%% -> %.0f%%", label(signal), b.value * 100, a.value * 100);
            if (a.value < b.value - MARGIN) {
                better.add(words);
            } else if (a.value > b.value + MARGIN) {
                worse.add(words);
            } else {
                same.add(words);
            }
        }
        RemediationOutcome.Verdict verdict;
        String summary;
        if (!worse.isEmpty()) {
            verdict = RemediationOutcome.Verdict.WORSE;
            summary = "worse on " + host + " after " + runbook + ": " + String.join(", ", worse);
        } else if (!better.isEmpty()) {
            verdict = RemediationOutcome.Verdict.SUCCEEDED;
            summary = "better on " + host + " after " + runbook + ": " + String.join(", ", better);
        } else if (!same.isEmpty()) {
            verdict = RemediationOutcome.Verdict.UNCHANGED;
            summary = "unchanged on " + host + " after " + runbook + ": " + String.join(", ", same);
        } else {
            verdict = RemediationOutcome.Verdict.FAILED;
            summary = "could not verify " + runbook + " on " + host + ": "
                    + (failure != null ? failure : "Prometheus has no data for " + host);
        }
        if (!same.isEmpty() && verdict != RemediationOutcome.Verdict.UNCHANGED) {
            summary += "; unchanged: " + String.join(", ", same);
        }
        out.put("verdict", verdict.name().toLowerCase(Locale.ROOT));
        out.put("summary", summary);
        Writer writer = Writer.agent(ctx.agent(), ctx.runId());
        ObjectNode bound = json.createObjectNode();
        bound.put("host", host);
        bound.set("arguments", remediation.path("arguments"));
        incidents.recordRemediationOutcome(
                incident.get().id(),
                remediation.path("callId").asString(),
                runbook,
                bound,
                new RemediationOutcome(
                        verdict, summary, evidence, remediation.path("approver").asString(null)),
                writer);
        if (verdict == RemediationOutcome.Verdict.SUCCEEDED) {
            incidents.resolve(
                    incident.get().id(),
                    new Resolution(summary, runbook + " on " + host + ", verified in Prometheus"),
                    writer.id());
            out.put("incidentStatus", Incident.RESOLVED);
        } else {
            out.put("incidentStatus", "open (escalated to a human)");
        }
        return out.toString();
    }

    private record Measured(
            @Nullable Double value, @Nullable String error) {}

    private Measured measure(String query, Instant at) {
        return switch (prometheus.query(query, at)) {
            case PrometheusClient.Answer.Vector v ->
                new Measured(
                        v.samples().isEmpty() || Double.isNaN(v.samples().get(0).value())
                                ? null
                                : v.samples().get(0).value(),
                        null);
            case PrometheusClient.Answer.Failed f -> new Measured(null, f.message());
        };
    }

    /** The PromQL of a signal for the selector, with {@code RANGE} for the range to average over. */
    private static @Nullable String query(String signal, String sel) {
        return switch (signal) {
            case "cpu" ->
                "1 - sum(rate(node_cpu_seconds_total{" + sel + ",mode=\"idle\"}[RANGE])) / sum(rate("
                        + "node_cpu_seconds_total{" + sel + "}[RANGE]))";
            case "memory" ->
                "1 - sum(avg_over_time(node_memory_MemAvailable_bytes{" + sel + "}[RANGE])) / sum("
                        + "avg_over_time(node_memory_MemTotal_bytes{" + sel + "}[RANGE]))";
            case "disk" ->
                "max(1 - avg_over_time(node_filesystem_avail_bytes{" + sel + "," + HostSignals.REAL_FS
                        + "}[RANGE]) / avg_over_time(node_filesystem_size_bytes{" + sel + "," + HostSignals.REAL_FS
                        + "}[RANGE]))";
            default -> null;
        };
    }

    private static String label(String signal) {
        return switch (signal) {
            case "cpu" -> "CPU busy";
            case "memory" -> "memory used";
            default -> "disk used";
        };
    }

    /** The latest remediation of the incident (on this host, when it says which). */
    private static @Nullable JsonNode lastRemediation(Incident incident, String host) {
        JsonNode found = null;
        for (JsonNode r : incident.value().path("remediations")) {
            found = r;
        }
        return found;
    }

    private static String human(Duration d) {
        return d.toSeconds() % 60 == 0 ? d.toMinutes() + " minutes" : d.toSeconds() + " seconds";
    }
}
