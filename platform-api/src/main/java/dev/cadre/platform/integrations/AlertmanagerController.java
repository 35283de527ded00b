package dev.cadre.platform.integrations;

import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.beans.factory.annotation.Value;
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

    AlertmanagerController(
            IncidentService incidents,
            RunService runs,
            JsonMapper json,
            @Value("${cadre.integrations.alertmanager.agent:ops-orchestrator}") String agent) {
        this.intake = new AlertmanagerIntake(incidents, runs, json, agent);
    }

    @Operation(summary = "Receive an Alertmanager webhook (payload version 4)")
    @ApiResponse(
            responseCode = "200",
            description = "The alerts' incidents and the runs started for them",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(type = "object")))
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
        return intake.accept(payload, principal == null ? "alertmanager" : principal.name());
    }
}
