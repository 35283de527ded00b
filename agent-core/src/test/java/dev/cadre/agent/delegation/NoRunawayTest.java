package dev.cadre.agent.delegation;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.delegate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunHandle;
import dev.cadre.agent.run.RunLimits;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.SubagentLimiter;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NoRunawayTest {

    @Test
    void tree_withADelegationCycle_isRejectedAtBuildTime() {
        ModelPort model = new ScriptedModel(Map.of());
        assertThatThrownBy(() -> Fixtures.tree(
                        ToolRegistry.empty(),
                        model,
                        agent("inspect").workers("alert").build(),
                        agent("alert").workers("repair").build(),
                        agent("repair").workers("inspect").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delegation cycle: inspect -> alert -> repair -> inspect");
    }

    @Test
    void worker_byDefault_cannotDelegate_evenWhenItsSpecListsWorkers() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(ScriptedTurn.calls(delegate("lead", "plan")), ScriptedTurn.text("{{result[0]}}")),
                "lead",
                AgentScript.of(
                        ScriptedTurn.calls(delegate("helper", "help me")),
                        ScriptedTurn.text("lead saw: {{result[0]}}")),
                "helper",
                AgentScript.of(ScriptedTurn.text("helped"))));
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("orchestrator").workers("lead").build(),
                agent("lead").workers("helper").build(),
                agent("helper").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-depth", "orchestrator", "go"), new Recorder());

            assertThat(model.requestsOf("lead").getFirst().tools()).isEmpty();
            assertThat(model.requestsOf("helper")).isEmpty();
            assertThat(outcome.finalText())
                    .contains("depth_limit")
                    .contains(FailureCategory.ORCHESTRATION_ERROR.name());
        }
    }

    @Test
    void worker_canDelegate_whenTheRootAllowsTwoLevels() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(ScriptedTurn.calls(delegate("lead", "plan")), ScriptedTurn.text("{{result[0]}}")),
                "lead",
                AgentScript.of(
                        ScriptedTurn.calls(delegate("helper", "help me")),
                        ScriptedTurn.text("lead saw: {{result[0]}}")),
                "helper",
                AgentScript.of(ScriptedTurn.text("helped"))));
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("orchestrator").workers("lead").maxDepth(2).build(),
                agent("lead").workers("helper").build(),
                agent("helper").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-depth2", "orchestrator", "go"), new Recorder());

            assertThat(outcome.finalText()).contains("helped");
            SubagentOutcome lead = outcome.subagents().getFirst();
            assertThat(lead.subagents())
                    .extracting(SubagentOutcome::sessionId)
                    .containsExactly("run-depth2/lead#1/helper#1");
        }
    }

    @Test
    void concurrencyCapPerRun_holds_underAThousandRequestedSubagents() throws Exception {
        AtomicInteger active = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        ModelPort worker = countingWorker(active, peak);
        ScriptedCall[] calls = new ScriptedCall[1_000];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = delegate("worker", "task " + i);
        }
        ScriptedModel scripted = new ScriptedModel(
                Map.of("orchestrator", AgentScript.of(ScriptedTurn.calls(calls), ScriptedTurn.text("done"))), false);
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                Map.of(ModelRef.parse("scripted:main"), scripted, ModelRef.parse("fake:worker"), worker),
                Fixtures.root("orchestrator")
                        .model("scripted:main")
                        .workers("worker")
                        .build(),
                agent("worker").model("fake:worker").build());

        try (AgentRunner runner =
                AgentRunner.builder(tree).limits(new RunLimits(8, 0.25)).build()) {
            RunOutcome outcome =
                    runner.run(RunRequest.of("run-1000", "orchestrator", "go"), RunObserverCounting.INSTANCE);

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(outcome.subagents())
                    .hasSize(1_000)
                    .allSatisfy(s -> assertThat(s.status()).isEqualTo(OutcomeStatus.OK));
            assertThat(peak.get()).isLessThanOrEqualTo(8).isPositive();
        }
    }

    @Test
    void platformWideLimiter_holds_acrossConcurrentRuns() throws Exception {
        AtomicInteger active = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        ModelPort worker = countingWorker(active, peak);
        ScriptedCall[] calls = new ScriptedCall[300];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = delegate("worker", "task " + i);
        }
        ScriptedModel scripted = new ScriptedModel(
                Map.of("orchestrator", AgentScript.of(ScriptedTurn.calls(calls), ScriptedTurn.text("done"))), false);
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                Map.of(ModelRef.parse("scripted:main"), scripted, ModelRef.parse("fake:worker"), worker),
                Fixtures.root("orchestrator")
                        .model("scripted:main")
                        .workers("worker")
                        .build(),
                agent("worker").model("fake:worker").build());
        SubagentLimiter platform = new SubagentLimiter(5);

        try (AgentRunner a = AgentRunner.builder(tree)
                        .subagentLimiter(platform)
                        .limits(new RunLimits(64, 0.25))
                        .build();
                AgentRunner b = AgentRunner.builder(tree)
                        .subagentLimiter(platform)
                        .limits(new RunLimits(64, 0.25))
                        .build()) {
            RunHandle first = a.start(RunRequest.of("run-p1", "orchestrator", "go"), RunObserverCounting.INSTANCE);
            RunHandle second = b.start(RunRequest.of("run-p2", "orchestrator", "go"), RunObserverCounting.INSTANCE);

            assertThat(first.outcome().get().status()).isEqualTo(OutcomeStatus.OK);
            assertThat(second.outcome().get().status()).isEqualTo(OutcomeStatus.OK);
            assertThat(peak.get()).isLessThanOrEqualTo(5).isPositive();
            assertThat(platform.inUse()).isZero();
        }
    }

    private static ModelPort countingWorker(AtomicInteger active, AtomicInteger peak) {
        return request -> {
            int now = active.incrementAndGet();
            peak.accumulateAndGet(now, Math::max);
            try {
                // Hold the slot a moment so that concurrent subagents overlap.
                Thread.sleep(1);
            } finally {
                active.decrementAndGet();
            }
            return new ModelResponse("ok", List.of(), new TokenUsage(10, 1));
        };
    }

    /** An observer that only counts, so a thousand subagents do not fill the heap with events. */
    private enum RunObserverCounting implements dev.cadre.agent.run.RunObserver {
        INSTANCE;

        @Override
        public void onEvent(AgentEvent event) {}
    }
}
