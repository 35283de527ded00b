package dev.cadre.platform.incidents;

import dev.cadre.agent.workflow.Severity;
import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Clock;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * Incidents in shared memory and their tools. {@code cadre.incidents.remediation-window} (PT1H),
 * {@code escalate-after} (3 sightings), {@code notify-window} (PT30M), {@code duplicate-window}
 * (PT10S: copies of one Alertmanager notification within it are one sighting), {@code
 * sighting-write-interval} (PT1M: how often a sighting may rewrite the record's counters; every
 * sighting is on the timeline), {@code open-at} (high).
 */
@Configuration(proxyBeanMethods = false)
class IncidentsConfiguration {

    @Bean
    IncidentService incidentService(
            SharedMemory memory,
            JsonMapper json,
            Clock clock,
            @Value("${cadre.incidents.remediation-window:PT1H}") Duration remediationWindow,
            @Value("${cadre.incidents.escalate-after:3}") int escalateAfter,
            @Value("${cadre.incidents.notify-window:PT30M}") Duration notifyWindow,
            @Value("${cadre.incidents.duplicate-window:PT10S}") Duration duplicateWindow,
            @Value("${cadre.incidents.sighting-write-interval:PT1M}") Duration sightingWriteInterval,
            SecretRedactor redactor,
            JdbcClient jdbc) {
        IncidentService incidents = new IncidentService(
                memory,
                json,
                clock,
                new IncidentService.Settings(
                        remediationWindow, escalateAfter, notifyWindow, duplicateWindow, sightingWriteInterval),
                redactor,
                new JdbcIncidentTimeline(jdbc, json),
                new JdbcIncidentIndex(jdbc));
        // Incidents written before the list's index existed (or a write that stopped between the
        // record and its row) are indexed once here, so the list never has to read them all.
        int indexed = incidents.reindexIfIncomplete();
        if (indexed > 0) {
            org.slf4j.LoggerFactory.getLogger(IncidentsConfiguration.class)
                    .info("Indexed {} incidents for the incident list", indexed);
        }
        return incidents;
    }

    /** Approvals requested and decided in a run go on its incident's timeline. */
    @Bean
    IncidentApprovals incidentApprovals(IncidentService incidents, JsonMapper json) {
        return new IncidentApprovals(incidents, json);
    }

    @Bean
    ToolProvider incidentTools(
            IncidentService incidents, JsonMapper json, @Value("${cadre.incidents.open-at:high}") String openAt) {
        Severity severity = Severity.parse(openAt);
        return new IncidentTools(incidents, json, severity)::tools;
    }
}
