package dev.cadre.platform.integrations;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.AgentConfigException;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import io.micrometer.core.instrument.MeterRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /api/v1/integrations/alertmanager}: Alertmanager's webhook receiver (an {@code intake}
 * key — which can do nothing else — as the receiver's bearer credentials). Agent: {@code cadre.integrations.alertmanager.agent}.
 */
@RestController
class AlertmanagerController {

    private final AlertmanagerIntake intake;
    private final IntakeLimits limits;

    AlertmanagerController(
            IncidentService incidents,
            RunService runs,
            JsonMapper json,
            @Value("${cadre.integrations.alertmanager.agent:ops-orchestrator}") String agent,
            @Value("${cadre.integrations.alertmanager.routes:}") List<String> routes,
            @Value("${cadre.integrations.alertmanager.max-alerts-per-delivery:100}") int maxAlertsPerDelivery,
            @Value("${cadre.integrations.alertmanager.new-incidents-per-minute:120}") int newIncidentsPerMinute,
            @Value("${cadre.integrations.alertmanager.repeats-per-minute:600}") int repeatsPerMinute,
            @Value("${cadre.integrations.alertmanager.kubernetes-agent:k8s-orchestrator}") String kubernetesAgent,
            AgentCatalog catalog,
            Clock clock,
            MeterRegistry registry) {
        // The shipped Kubernetes team's entry point; an agents directory without it sends those alerts to
        // the default agent, a name set to nothing too.
        String k8s = kubernetesAgent.isBlank() || !catalog.runnable(kubernetesAgent) ? null : kubernetesAgent;
        this.intake = new AlertmanagerIntake(incidents, runs, json, agent, routes(routes, catalog), k8s);
        this.limits = new IntakeLimits(
                new IntakeLimits.Settings(maxAlertsPerDelivery, newIncidentsPerMinute, repeatsPerMinute),
                clock,
                registry);
    }

    /**
     * {@code cadre.integrations.alertmanager.routes}: {@code alertname=agent-or-workflow} entries; an
     * alert whose name has no route starts the default agent. Checked at start-up, so a typo does not
     * wait for the first alert of that name to show.
     */
    static Map<String, String> routes(List<String> entries, AgentCatalog catalog) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (String entry : entries) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                problems.add("cadre.integrations.alertmanager.routes: '" + entry + "' is not alertname=agent");
                continue;
            }
            String target = entry.substring(eq + 1).strip();
            if (!catalog.runnable(target)) {
                problems.add("cadre.integrations.alertmanager.routes: '" + entry + "': unknown agent or workflow '"
                        + target + "' (configured: " + catalog.entryPoints() + ")");
            }
            out.put(entry.substring(0, eq).strip(), target);
        }
        if (!problems.isEmpty()) {
            throw new AgentConfigException(problems);
        }
        return out;
    }

    @Operation(
            summary = "Receive an Alertmanager webhook (payload version 4)",
            description = "Opens or finds the incident of each alert and starts one triage run per new incident."
                    + " A delivery is admitted whole or refused whole: more alerts than"
                    + " cadre.integrations.alertmanager.max-alerts-per-delivery (413), or more new incidents than"
                    + " the key's cadre.integrations.alertmanager.new-incidents-per-minute allows now, or more"
                    + " repeats of open incidents than its cadre.integrations.alertmanager.repeats-per-minute allows"
                    + " now (429 with Retry-After; nothing of a refused delivery is processed, so the retry loses"
                    + " nothing).")
    @ApiResponse(
            responseCode = "200",
            description = "The alerts' incidents and the runs started for them",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(type = "object")))
    @ApiResponse(
            responseCode = "413",
            description = "More alerts in one delivery than max-alerts-per-delivery (set max_alerts in the"
                    + " webhook_config)",
            content = @Content(mediaType = "application/problem+json"))
    @ApiResponse(
            responseCode = "429",
            description = "The key used its new-incidents-per-minute or repeats-per-minute; retry after the"
                    + " Retry-After seconds",
            headers = @io.swagger.v3.oas.annotations.headers.Header(name = "Retry-After", description = "seconds"),
            content = @Content(mediaType = "application/problem+json"))
    @PostMapping(value = "/api/v1/integrations/alertmanager", produces = MediaType.APPLICATION_JSON_VALUE)
    ObjectNode receive(@RequestBody JsonNode payload, @AuthenticationPrincipal CadrePrincipal principal) {
        if (!payload.isObject() || !payload.path("alerts").isArray()) {
            throw ApiProblem.badField("alerts", "an Alertmanager webhook payload (version 4) with an 'alerts' list");
        }
        int i = 0;
        for (JsonNode alert : payload.path("alerts")) {
            if (!alert.path("labels").isObject()) {
                throw ApiProblem.badField("alerts[].labels", "every alert needs its labels");
            }
            for (var label : alert.path("labels").properties()) {
                if (!label.getValue().isString()) {
                    throw ApiProblem.badField(
                            "alerts[" + i + "].labels." + label.getKey(),
                            "label values are strings, was "
                                    + label.getValue().getNodeType().name().toLowerCase(java.util.Locale.ROOT));
                }
            }
            i++;
        }
        int count = payload.path("alerts").size();
        if (!limits.withinDeliveryCap(count)) {
            throw new ApiProblem(
                            HttpStatus.CONTENT_TOO_LARGE,
                            "too-many-alerts",
                            "Too many alerts in one delivery",
                            count + " alerts in one delivery; at most "
                                    + limits.settings().maxAlertsPerDelivery()
                                    + " (cadre.integrations.alertmanager.max-alerts-per-delivery): set max_alerts: "
                                    + limits.settings().maxAlertsPerDelivery() + " in Alertmanager's webhook_config")
                    .with("maxAlertsPerDelivery", limits.settings().maxAlertsPerDelivery());
        }
        String key = principal == null ? "anonymous" : principal.keyId();
        int reserved = 0;
        AlertmanagerIntake.Charge charge = intake.charge(payload);
        int fresh = charge.newIncidents();
        String keyName = principal == null ? "anonymous" : principal.name();
        // Repeats first: a delivery refused for its repeats then holds no new-incident tokens.
        if (limits.admitRepeats(key, charge.repeats()) instanceof IntakeLimits.Admission.RetryAfter r) {
            throw new ApiProblem(
                            HttpStatus.TOO_MANY_REQUESTS,
                            "intake-rate-limited",
                            "Too many repeats",
                            "this delivery repeats " + charge.repeats() + " alerts of open incidents; key '" + keyName
                                    + "' may deliver " + limits.settings().repeatsPerMinute()
                                    + " repeats per minute (cadre.integrations.alertmanager.repeats-per-minute)"
                                    + " and has " + (long) Math.floor(r.available()) + " left now; nothing of it was"
                                    + " processed, retry after " + r.seconds() + " s")
                    .header(HttpHeaders.RETRY_AFTER, Long.toString(r.seconds()));
        }
        switch (limits.admit(key, fresh)) {
            case IntakeLimits.Admission.Admitted a -> reserved = a.reserved();
            case IntakeLimits.Admission.RetryAfter r -> {
                limits.refundRepeats(key, charge.repeats());
                throw new ApiProblem(
                                HttpStatus.TOO_MANY_REQUESTS,
                                "intake-rate-limited",
                                "Too many new incidents",
                                "this delivery would open " + fresh + " new incidents; key '" + keyName
                                        + "' may open " + limits.settings().newIncidentsPerMinute()
                                        + " per minute (cadre.integrations.alertmanager.new-incidents-per-minute)"
                                        + " and has " + (long) Math.floor(r.available()) + " left now; retry after "
                                        + r.seconds() + " s")
                        .header(HttpHeaders.RETRY_AFTER, Long.toString(r.seconds()));
            }
        }
        ObjectNode out =
                intake.accept(payload, principal == null ? Actor.platform("alertmanager") : principal.actor(), charge);
        int opened = 0;
        for (JsonNode r : out.path("alerts")) {
            String action = r.path("action").asString("");
            limits.counted(action);
            if (action.equals("incident-opened")) {
                opened++;
            }
        }
        limits.refund(key, reserved - opened);
        return out;
    }
}
