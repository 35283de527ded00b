package dev.cadre.agent.run;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.delegate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.ToolRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimeoutTest {

    @Test
    void agent_thatExceedsItsTimeout_endsTimeout_withTimeoutError() throws Exception {
        ScriptedModel model = new ScriptedModel(
                Map.of("slow", AgentScript.of(ScriptedTurn.text("late")).withLatency(Duration.ofMinutes(5))));
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                agent("slow")
                        .budget(Fixtures.WORKER_BUDGET.withTimeout(Duration.ofMillis(100)))
                        .build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-t1", "slow", "go"), new Recorder());

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.TIMEOUT);
            assertThat(outcome.failure().category()).isEqualTo(FailureCategory.TIMEOUT_ERROR);
            assertThat(outcome.finalText()).isNull();
        }
    }

    @Test
    void worker_thatTimesOut_isATimeoutResult_whileTheParentGoesOn() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(delegate("slow", "wait"), delegate("fast", "go")),
                        ScriptedTurn.text("{{results}}")),
                "slow",
                AgentScript.of(ScriptedTurn.text("late")).withLatency(Duration.ofMinutes(5)),
                "fast",
                AgentScript.of(ScriptedTurn.text("quick answer"))));
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("orchestrator").workers("slow", "fast").build(),
                agent("slow")
                        .budget(Fixtures.WORKER_BUDGET.withTimeout(Duration.ofMillis(100)))
                        .build(),
                agent("fast").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-t2", "orchestrator", "go"), new Recorder());

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(outcome.subagents())
                    .extracting(SubagentOutcome::status)
                    .containsExactly(OutcomeStatus.TIMEOUT, OutcomeStatus.OK);
            assertThat(outcome.finalText()).contains("TIMEOUT_ERROR", "quick answer");
        }
    }
}
