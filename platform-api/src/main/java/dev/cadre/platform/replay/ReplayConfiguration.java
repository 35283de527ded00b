package dev.cadre.platform.replay;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.ToolGuard;
import dev.cadre.platform.runs.RunEvents;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** Wires the case format against the running team's tools and workers. */
@Configuration(proxyBeanMethods = false)
class ReplayConfiguration {

    @Bean
    CaseFile caseFile(AgentCatalog catalog) {
        // A case names tools and workers (a worker is a tool of its orchestrator); the catalog is
        // asked at each read, so a reloaded team is checked as it stands.
        return new CaseFile(
                name -> catalog.tools().contains(name) || catalog.find(name).isPresent());
    }

    @Bean
    ReplayRuns replayRuns() {
        return new ReplayRuns();
    }

    /** Every tool of every team goes through the replay's answer-from-recording seam. */
    @Bean
    ToolGuard replayToolGuard(ReplayRuns replays) {
        return tool -> ReplayTool.of(tool, replays);
    }

    @Bean
    CaseRecorder caseRecorder(RunEvents events, JsonMapper json) {
        return new CaseRecorder(events, json);
    }
}
