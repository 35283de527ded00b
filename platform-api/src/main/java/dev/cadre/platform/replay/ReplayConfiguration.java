package dev.cadre.platform.replay;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.TeamLoader;
import dev.cadre.platform.agents.ToolGuard;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.AgentRunners;
import dev.cadre.platform.runs.ApprovalGuard;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunMarks;
import dev.cadre.platform.runs.RunPreparer;
import dev.cadre.platform.runs.RunService;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/** Wires the case format, the replay seams (tools, approvals, run preparation) and the replay service. */
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

    /** A replay's approvals are answered from its case's decisions, never by a human. */
    @Bean
    ApprovalGuard replayApprovalGuard(ReplayRuns replays) {
        return new ReplayApprovals(replays);
    }

    @Bean
    CaseRecorder caseRecorder(RunEvents events, JsonMapper json) {
        return new CaseRecorder(events, json);
    }

    @Bean
    ReplayStore replayStore(JdbcClient jdbc) {
        return new ReplayStore(jdbc);
    }

    /** The replay a run belongs to, shown with the run (its {@code replay} field). */
    @Bean
    RunMarks replayRunMarks(ReplayStore store) {
        return store::replaysOf;
    }

    @Bean(destroyMethod = "close")
    CandidateTeams candidateTeams(TeamLoader loader, @Lazy AgentRunners runners) {
        return new CandidateTeams(loader, runners);
    }

    /** Replay runs execute (and resume after a restart) only with their recording; never as ordinary runs. */
    @Bean
    RunPreparer replayPreparer(ReplayRuns replays, ReplayStore store, CandidateTeams teams) {
        return new ReplayPreparer(replays, store, teams);
    }

    @Bean(destroyMethod = "close")
    ReplayService replayService(
            ReplayStore store,
            ReplayRuns replays,
            CandidateTeams teams,
            RunService runs,
            AgentCatalog catalog,
            CaseRecorder recorder,
            AuditLog audit,
            JsonMapper json,
            MeterRegistry registry,
            Clock clock) {
        return new ReplayService(store, replays, teams, runs, catalog, recorder, audit, json, registry, clock);
    }

    /** Replays a stopped process left running go on scoring their (durable) runs. */
    @Bean
    ApplicationRunner resumeReplays(ReplayService replays) {
        return args -> replays.resumeAll();
    }
}
