package dev.cadre.agent.bench;

import dev.cadre.agent.economy.ContextEconomy;
import dev.cadre.agent.economy.ContextEconomy.Context;
import dev.cadre.agent.economy.ContextEconomy.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints seed 004's context economy (docs/benchmarks/context-economy.md): input tokens of the
 * orchestrator against the single agent that holds all 300 rows. Token counts are deterministic (the
 * scripted model estimates them from the text), so the runs must agree exactly; the harness checks it.
 */
final class ContextEconomyBench {

    private ContextEconomyBench() {}

    static void print(int runs) throws InterruptedException {
        List<Result> results = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            results.add(ContextEconomy.run());
        }
        Result first = results.getFirst();
        for (Result r : results) {
            if (r.orchestrator().inputTokens() != first.orchestrator().inputTokens()
                    || r.singleAgent().inputTokens() != first.singleAgent().inputTokens()) {
                throw new IllegalStateException("token counts differ between runs");
            }
        }
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "Context economy (seed 004): \"%s\" over %d order rows (%,d characters of JSON); input tokens"
                        + " as the loop reports them, identical in all %d runs%n",
                ContextEconomy.QUESTION,
                first.rowCount(),
                first.rowsJsonChars(),
                runs);
        System.out.println();
        System.out.println(
                "| setup | agent | model calls | input tokens (sum over its calls) | largest single prompt |");
        System.out.println("|---|---|---|---|---|");
        row("orchestrated", first.orchestrator());
        row("orchestrated", first.dataAgent());
        row("orchestrated", first.analysisAgent());
        System.out.printf(
                Locale.ROOT,
                "| orchestrated | whole tree | %d | %,d | - |%n",
                first.orchestrator().modelCalls()
                        + first.dataAgent().modelCalls()
                        + first.analysisAgent().modelCalls(),
                first.orchestratedTreeInput());
        row("single agent", first.singleAgent());
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "single agent / orchestrator context: %.1fx (target >= 5x); single agent / whole orchestrated"
                        + " tree: %.2fx%n",
                first.ratio(),
                (double) first.singleAgent().inputTokens() / first.orchestratedTreeInput());
        System.out.println("orchestrator's answer: " + first.orchestrated().finalText());
        System.out.println("single agent's answer: " + first.single().finalText());
    }

    private static void row(String setup, Context c) {
        System.out.printf(
                Locale.ROOT,
                "| %s | %s | %d | %,d | %,d |%n",
                setup,
                c.agent(),
                c.modelCalls(),
                c.inputTokens(),
                c.largestPrompt());
    }
}
