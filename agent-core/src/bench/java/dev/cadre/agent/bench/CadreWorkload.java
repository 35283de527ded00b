package dev.cadre.agent.bench;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Budget;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunLimits;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cadre's side of the orchestration comparison: an orchestrator whose (zero-latency) model delegates
 * to all N workers in one turn and then answers {@code {{results}}}, i.e. every worker result as a
 * {@code worker: {"status":"ok","summary":...}} line in call order. Serial is the same run with a
 * per-run cap of one concurrent subagent.
 */
final class CadreWorkload implements ParallelWorkload {

    private final int n;
    private final AgentRunner serial;
    private final AgentRunner parallel;
    private final AtomicLong runs = new AtomicLong();

    private CadreWorkload(int n, Duration latency, int turns) {
        this.n = n;
        ScriptedModel model = model(n, latency, turns);
        this.serial =
                AgentRunner.builder(tree(model)).limits(new RunLimits(1, 0.25)).build();
        this.parallel =
                AgentRunner.builder(tree(model)).limits(new RunLimits(n, 0.25)).build();
    }

    static ParallelWorkload create(int n, Duration latency, int turns) {
        return new CadreWorkload(n, latency, turns);
    }

    @Override
    public String run(boolean inParallel) throws InterruptedException {
        AgentRunner runner = inParallel ? parallel : serial;
        RunOutcome outcome = runner.run(
                RunRequest.of("compare-" + runs.incrementAndGet(), "orchestrator", "edit the modules"),
                RunObserver.NONE);
        if (outcome.status() != OutcomeStatus.OK || outcome.finalText() == null) {
            throw new IllegalStateException("Cadre run failed: " + outcome.failure());
        }
        return ParallelWorkload.checked(outcome.finalText(), n);
    }

    @Override
    public void close() {
        serial.close();
        parallel.close();
    }

    private static AgentTree tree(ScriptedModel model) {
        ToolRegistry tools = ToolRegistry.of(Tools.of(
                "read_file",
                "Reads a file.",
                "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}",
                Risk.AUTO,
                (args, ctx) -> TOOL_RESULT));
        AgentSpec orchestrator = AgentSpec.builder("orchestrator")
                .description("Splits and delegates.")
                .instructions("You are the orchestrator.")
                .workers("worker")
                .budget(new Budget(5, Long.MAX_VALUE / 4, Duration.ofMinutes(30)))
                .build();
        AgentSpec worker = AgentSpec.builder("worker")
                .description("Edits one module.")
                .instructions("You edit one module.")
                .tools("read_file")
                .budget(new Budget(5, 100_000, Duration.ofMinutes(30)))
                .build();
        return AgentTree.build(List.of(orchestrator, worker), tools, ref -> model);
    }

    private static ScriptedModel model(int n, Duration latency, int turns) {
        ScriptedCall[] calls = new ScriptedCall[n];
        for (int i = 0; i < n; i++) {
            calls[i] = new ScriptedCall(null, "worker", JsonSchemas.parse("{\"task\":\"edit module " + i + "\"}"));
        }
        ScriptedTurn[] workerTurns = new ScriptedTurn[turns];
        for (int t = 0; t < turns - 1; t++) {
            workerTurns[t] = ScriptedTurn.calls(
                    new ScriptedCall(null, "read_file", JsonSchemas.parse("{\"path\":\"module.py\"}")));
        }
        // Without a tool turn there is no result to quote: the answer is the same text, written out.
        workerTurns[turns - 1] =
                ScriptedTurn.text(turns == 1 ? ParallelWorkload.WORKER_ANSWER : "edited: {{results.read_file}}");
        return new ScriptedModel(
                Map.of(
                        "orchestrator", AgentScript.of(ScriptedTurn.calls(calls), ScriptedTurn.text("{{results}}")),
                        "worker", AgentScript.of(workerTurns).withLatency(latency)),
                false);
    }
}
