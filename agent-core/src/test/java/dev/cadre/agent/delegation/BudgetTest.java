package dev.cadre.agent.delegation;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static dev.cadre.agent.testing.Fixtures.delegate;
import static dev.cadre.agent.testing.Fixtures.textOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Budget;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BudgetTest {

    private final ToolRegistry tools = ToolRegistry.of(Tools.of(
            "get_weather",
            "Current weather of a city.",
            "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}",
            Risk.AUTO,
            (args, ctx) -> args.path("city").asString() + ": sunny, 27C"));

    private final AgentScript twoTurnWeather = AgentScript.of(
            new ScriptedTurn(
                    "half answer: probably sunny",
                    List.of(call("get_weather", "{\"city\":\"Shanghai\"}")),
                    null,
                    null,
                    null),
            ScriptedTurn.text("Shanghai is {{results.get_weather}}"));

    @Test
    void run_withOneIterationBudget_onTwoTurnTask_endsBudgetExceeded_withoutAnAnswer() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of("weather", twoTurnWeather));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                agent("weather")
                        .tools("get_weather")
                        .budget(Fixtures.WORKER_BUDGET.withMaxIterations(1))
                        .build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-b1", "weather", "weather in Shanghai?"), new Recorder());

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.BUDGET_EXCEEDED);
            assertThat(outcome.failure().category()).isEqualTo(FailureCategory.BUDGET_EXCEEDED);
            assertThat(outcome.finalText()).isNull();
            assertThat(outcome.iterations()).isEqualTo(1);
        }
    }

    @Test
    void subagent_thatRunsOutOfIterations_reportsFailure_neverItsHalfAnswer() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(ScriptedTurn.calls(delegate("weather", "Shanghai")), ScriptedTurn.text("{{result[0]}}")),
                "weather",
                twoTurnWeather));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                Fixtures.root("orchestrator").workers("weather").build(),
                agent("weather")
                        .tools("get_weather")
                        .budget(Fixtures.WORKER_BUDGET.withMaxIterations(1))
                        .build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-b2", "orchestrator", "weather?"), new Recorder());

            SubagentOutcome sub = outcome.subagents().getFirst();
            assertThat(sub.status()).isEqualTo(OutcomeStatus.BUDGET_EXCEEDED);
            assertThat(sub.summary()).isNull();
            assertThat(outcome.finalText()).contains("budget_exceeded").doesNotContain("half answer");
        }
    }

    @Test
    void runWideTokenBudget_isNeverOverspent_whateverTheTreeBudget() throws Exception {
        ScriptedCall[] eight = new ScriptedCall[8];
        for (int i = 0; i < eight.length; i++) {
            eight[i] = delegate("weather", "city " + i);
        }
        AgentScript orchestrator = AgentScript.of(
                ScriptedTurn.calls(eight), ScriptedTurn.calls(eight), ScriptedTurn.text("summary: {{results}}"));
        for (long treeBudget = 400; treeBudget <= 12_000; treeBudget += 900) {
            AtomicLong spent = new AtomicLong();
            ScriptedModel scripted = new ScriptedModel(Map.of("orchestrator", orchestrator, "weather", twoTurnWeather));
            ModelPort counting = request -> {
                ModelResponse response = scripted.call(request);
                spent.addAndGet(response.usage().total());
                return response;
            };
            AgentTree tree = Fixtures.tree(
                    tools,
                    counting,
                    Fixtures.root("orchestrator")
                            .workers("weather")
                            .budget(new Budget(5, treeBudget, Duration.ofSeconds(30)))
                            .build(),
                    agent("weather")
                            .tools("get_weather")
                            .budget(new Budget(5, 600, Duration.ofSeconds(30)))
                            .build());

            try (AgentRunner runner = AgentRunner.builder(tree).build()) {
                RunOutcome outcome = runner.run(
                        RunRequest.of("run-tokens-" + treeBudget, "orchestrator", "weather"), new Recorder());

                assertThat(spent.get())
                        .as("tokens spent with a tree budget of %d", treeBudget)
                        .isLessThanOrEqualTo(treeBudget);
                assertThat(outcome.usage().total()).isEqualTo(spent.get());
            }
        }
    }

    @Test
    void worker_whenTheTreeBudgetIsLow_runsDegradedOnWhatIsLeft_orFailsWithoutStarting() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(delegate("weather", "first city")).withUsage(new TokenUsage(1_000, 0)),
                        ScriptedTurn.calls(delegate("weather", "second city")).withUsage(new TokenUsage(900, 0)),
                        ScriptedTurn.calls(delegate("weather", "third city")).withUsage(new TokenUsage(500, 0)),
                        ScriptedTurn.text("{{results}}")),
                "weather",
                AgentScript.of(ScriptedTurn.text("data only").withUsage(new TokenUsage(150, 50)))));
        // Tree 3,000; a worker wants 1,000 (floor 250) and spends 200. After turn 1: 2,000 left, so
        // worker 1 runs in full. After turn 2: 900 left, worker 2 runs degraded on 900. After turn 3:
        // 200 left, worker 3 cannot start. The root's last turn then does not fit either.
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                Fixtures.root("orchestrator")
                        .workers("weather")
                        .budget(new Budget(5, 3_000, Duration.ofSeconds(30)))
                        .build(),
                agent("weather")
                        .budget(new Budget(3, 1_000, Duration.ofSeconds(30)))
                        .build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-degrade", "orchestrator", "weather"), new Recorder());

            List<SubagentOutcome> subs = outcome.subagents();
            assertThat(subs)
                    .extracting(SubagentOutcome::status)
                    .containsExactly(OutcomeStatus.OK, OutcomeStatus.OK, OutcomeStatus.BUDGET_EXCEEDED);
            assertThat(subs).extracting(SubagentOutcome::degraded).containsExactly(false, true, false);
            assertThat(subs.get(2).error().code()).isEqualTo("run_budget_exhausted");
            assertThat(subs.get(2).iterations()).isZero();
            assertThat(model.requestsOf("weather")).hasSize(2);
            assertThat(textOf(model.requestsOf("weather").get(1)))
                    .contains("Budget: the run is short of tokens; you have 900 of your usual 1000");
            assertThat(outcome.status()).isEqualTo(OutcomeStatus.BUDGET_EXCEEDED);
            assertThat(outcome.usage().total()).isLessThanOrEqualTo(3_000);
        }
    }
}
