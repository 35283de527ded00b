package dev.cadre.platform.runs;

import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.CheckpointCodec;
import dev.cadre.agent.run.RunLimits;
import dev.cadre.agent.run.SharedInputs;
import dev.cadre.agent.run.SubagentLimiter;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.telemetry.TelemetryOptions;
import dev.cadre.agent.tool.output.ToolOutputs;
import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.approvals.RunSubmitters;
import dev.cadre.platform.approvals.RunTeams;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.ApiKeyService;
import dev.cadre.platform.security.Role;
import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamScope;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** Wires the agent runtime of agent-core into durable, queued runs. */
@Configuration(proxyBeanMethods = false)
class RunsConfiguration {

    /** Who submitted a run, for the approvals' separation of duties (approvals must not depend on runs). */
    @Bean
    RunSubmitters runSubmitters(RunService runs) {
        return runId -> runs.get(TeamScope.allTeams("the submitter of an approval's run"), runId)
                .submitter();
    }

    /** The team of a run, whose approvals are that team's (approvals must not depend on runs). */
    @Bean
    RunTeams runTeams(RunStore store) {
        return runId -> store.find(runId).map(RunRecord::teamId).orElse(TeamId.DEFAULT);
    }

    /** Builds the run rollups from the runs stored before V8, once, before any run executes. */
    @Bean
    org.flywaydb.core.api.callback.Callback runRollupBackfill(JsonMapper json) {
        return new RunStore.AfterMigration("run-rollup-backfill", (jdbc, db) -> RunStore.backfillRollups(jdbc, json));
    }

    /** On PostgreSQL, trigram indexes for the run search (see {@link RunStore#ensureSearchIndexes}). */
    @Bean
    org.flywaydb.core.api.callback.Callback runSearchIndexes() {
        return new RunStore.AfterMigration("run-search-indexes", RunStore::ensureSearchIndexes);
    }

    @Bean
    CheckpointCodec checkpointCodec() {
        return new CheckpointCodec();
    }

    /** Caps subagents across all runs of this instance, whatever each run's own cap. */
    @Bean
    SubagentLimiter platformSubagentLimiter(@Value("${cadre.runs.max-concurrent-subagents:256}") int capacity) {
        return new SubagentLimiter(capacity);
    }

    /**
     * How the platform builds runners: the running team's ({@link #agentRunner}) and a candidate team's
     * (a replay), alike in everything but their agents. Approvals go through the {@link ApprovalGuard}s.
     */
    @Bean
    AgentRunners agentRunners(
            ObjectProvider<OpenTelemetry> openTelemetry,
            ObjectProvider<AgentTelemetryListener> telemetryListener,
            ObjectProvider<TelemetryOptions> telemetryOptions,
            ApprovalService approvals,
            ObjectProvider<ApprovalGuard> approvalGuards,
            JdbcToolJournal journal,
            SubagentLimiter limiter,
            SharedMemory memory,
            RunStore store,
            ToolOutputs toolOutputs,
            ApiKeyService keys,
            @Value("${cadre.security.untrusted-roles:agent,intake}") List<String> untrustedRoles,
            @Value("${cadre.runs.max-concurrent-subagents-per-run:16}") int perRun,
            @Value("${cadre.runs.max-repeated-tool-calls:3}") int maxRepeatedToolCalls) {
        return tree -> {
            dev.cadre.agent.approval.ApprovalGate gate = approvals;
            for (ApprovalGuard guard : approvalGuards.orderedStream().toList()) {
                gate = guard.wrap(gate);
            }
            return AgentRunner.builder(tree)
                    .openTelemetry(openTelemetry.getIfAvailable(OpenTelemetry::noop))
                    .telemetryListener(new CostRecorder(
                            store, telemetryListener.getIfAvailable(() -> AgentTelemetryListener.NONE)))
                    .telemetryOptions(telemetryOptions.getIfAvailable(() -> TelemetryOptions.DEFAULT))
                    .approvalGate(gate)
                    .journal(journal)
                    .subagentLimiter(limiter)
                    .limits(new RunLimits(perRun, RunLimits.DEFAULT.minWorkerBudgetFraction(), maxRepeatedToolCalls))
                    .sharedInputs(memoryInputs(memory))
                    .toolOutputs(toolOutputs)
                    .riskPolicy(new UntrustedRuns(
                            store,
                            keys,
                            untrustedRoles.stream()
                                    .filter(r -> !r.isBlank())
                                    .map(Role::parse)
                                    .collect(java.util.stream.Collectors.toSet())))
                    .build();
        };
    }

    @Bean(destroyMethod = "close")
    AgentRunner agentRunner(AgentCatalog catalog, AgentRunners runners) {
        return runners.build(catalog.tree());
    }

    /** {@code memory_keys} of a delegation, as {@code namespace/key}, rendered read-only into the worker's task. */
    static SharedInputs memoryInputs(SharedMemory memory) {
        return (runId, sessionId, keys) -> {
            Map<String, String> values = new LinkedHashMap<>();
            for (String k : keys) {
                int slash = k.indexOf('/');
                if (slash <= 0 || slash == k.length() - 1) {
                    values.put(k, "(not a memory key: expected namespace/key)");
                    continue;
                }
                try {
                    values.put(
                            k,
                            memory.get(k.substring(0, slash), k.substring(slash + 1))
                                    .map(e -> e.value() + " (version " + e.version() + ")")
                                    .orElse("(absent)"));
                } catch (IllegalArgumentException e) {
                    values.put(k, "(invalid key: " + e.getMessage() + ")");
                }
            }
            return values;
        };
    }

    @Bean
    WorkflowRuns workflowRuns(
            AgentCatalog catalog,
            AgentRunner runner,
            ApprovalService approvals,
            RunEvents events,
            SharedMemory memory,
            JsonMapper json,
            ObjectProvider<OpenTelemetry> openTelemetry,
            List<WorkflowRuns.StepListener> listeners) {
        return new WorkflowRuns(
                catalog,
                runner,
                approvals,
                events,
                memory,
                json,
                openTelemetry.getIfAvailable(OpenTelemetry::noop),
                listeners);
    }

    @Bean
    RunExecutor runExecutor(
            AgentRunner runner,
            RunStore store,
            RunEvents events,
            CheckpointCodec codec,
            ApprovalService approvals,
            JsonMapper json,
            List<RunExecutor.RunLifecycleListener> listeners,
            LeaseOwner owner,
            @Value("${cadre.runs.lease-ttl:PT15S}") Duration leaseTtl,
            WorkflowRuns workflows,
            ObjectProvider<RunPreparer> preparer,
            StuckRuns stuck) {
        return new RunExecutor(
                runner,
                store,
                events,
                codec,
                approvals,
                json,
                listeners,
                owner.id(),
                leaseTtl,
                workflows,
                preparer.getIfAvailable(() -> RunPreparer.NONE),
                stuck);
    }

    @Bean
    StuckRuns stuckRuns(@Value("${cadre.runs.stuck-grace:PT30S}") Duration grace) {
        return new StuckRuns(grace);
    }

    /**
     * Health says when this instance holds executions it abandoned (a tool that ignored its stop): the
     * instance is OUT_OF_SERVICE (readiness too) until their threads end; a restart frees them.
     */
    @Bean
    org.springframework.boot.health.contributor.HealthIndicator stuckExecutions(StuckRuns stuck) {
        return () -> {
            List<StuckRuns.Stuck> list = stuck.list();
            if (list.isEmpty()) {
                return org.springframework.boot.health.contributor.Health.up()
                        .withDetail("stuckToolCalls", 0)
                        .build();
            }
            return org.springframework.boot.health.contributor.Health.outOfService()
                    .withDetail("stuckToolCalls", list.size())
                    .withDetail(
                            "runs",
                            list.stream()
                                    .map(s -> java.util.Map.of(
                                            "runId", s.runId(),
                                            "agent", s.agent(),
                                            "tool", s.tool(),
                                            "abandonedAt", s.abandonedAt().toString(),
                                            "stoppedBy", s.reason()))
                                    .toList())
                    .build();
        };
    }

    @Bean
    RunService runService(
            RunStore store,
            RunQueue queue,
            RunExecutor executor,
            AgentCatalog catalog,
            ApprovalService approvals,
            AuditLog audit,
            Clock clock,
            @Value("${cadre.runs.max-resumes:3}") int maxResumes,
            RunDeadlines deadlines,
            ObjectProvider<RunPreparer> preparer) {
        return new RunService(
                store,
                queue,
                executor,
                catalog,
                approvals,
                audit,
                clock,
                maxResumes,
                deadlines,
                preparer.getIfAvailable(() -> RunPreparer.NONE));
    }

    @Bean(destroyMethod = "close")
    RunDeadlines runDeadlines(RunStore store, RunQueue queue, RunExecutor executor) {
        return new RunDeadlines(store, queue, executor);
    }

    @Bean
    ApplicationRunner recoverInterruptedRuns(RunService runs) {
        return args -> runs.recover(true, Duration.ZERO);
    }

    @Bean
    RunMaintenance runMaintenance(
            RunService runs,
            RunExecutor executor,
            RunDeadlines deadlines,
            @Value("${cadre.runs.lease-ttl:PT15S}") Duration leaseTtl) {
        return new RunMaintenance(runs, executor, deadlines, leaseTtl);
    }
}
