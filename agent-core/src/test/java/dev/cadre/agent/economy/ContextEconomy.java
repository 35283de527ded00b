package dev.cadre.agent.economy;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Budget;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.economy.SalesOrders.Order;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Seed 004's context-economy question, "why did East China's July sales drop 12 % month on month?",
 * answered twice with the real agent-core loop and the {@link ScriptedModel} (docs/benchmarks/
 * context-economy.md):
 *
 * <ul>
 *   <li><b>orchestrated</b>: {@code sales_assistant} delegates to {@code data_agent} (calls
 *       {@code query_orders}, which returns the 300 rows and keeps them as a dataset of the run) and
 *       then to {@code analysis_agent} (calls {@code analyze_sales}, which aggregates that dataset);
 *       each worker's short final answer is the summary its parent reads;
 *   <li><b>single</b>: {@code sales_analyst} calls the same two tools itself, so the 300 rows stay in
 *       its own history for every later model call.
 * </ul>
 *
 * The context of an agent is measured as the platform reports it: the sum of the input tokens of its
 * model calls, from the loop's {@link AgentTelemetryListener} (the numbers behind the
 * {@code gen_ai.usage.input_tokens} span attribute and the token metrics), which the scripted model
 * estimates with agent-core's {@code TokenEstimator.CHARACTERS_DIV_4}.
 */
public final class ContextEconomy {

    public static final String QUESTION = "Why did East China's July sales drop 12 % month on month?";
    public static final String DATASET = "orders/east-china/" + SalesOrders.BASE_MONTH + ".." + SalesOrders.MONTH;

    private static final String QUERY_ARGS = "{\"region\":\"" + SalesOrders.REGION + "\",\"from_month\":\""
            + SalesOrders.BASE_MONTH + "\",\"to_month\":\"" + SalesOrders.MONTH + "\"}";
    private static final String ANALYZE_ARGS = "{\"dataset\":\"" + DATASET + "\",\"base_month\":\""
            + SalesOrders.BASE_MONTH + "\",\"month\":\"" + SalesOrders.MONTH + "\"}";

    /** The input tokens of one agent's model calls in one run. */
    public record Context(String agent, long inputTokens, int modelCalls, long largestPrompt) {}

    /**
     * Both runs: outcomes, the measured contexts, every request each agent's model received, and the
     * analysis computed directly from the rows (what the answers must agree with).
     */
    public record Result(
            RunOutcome orchestrated,
            RunOutcome single,
            Context orchestrator,
            Context dataAgent,
            Context analysisAgent,
            Context singleAgent,
            List<ModelRequest> orchestratorRequests,
            List<ModelRequest> dataAgentRequests,
            List<ModelRequest> analysisAgentRequests,
            List<ModelRequest> singleAgentRequests,
            int rowCount,
            int rowsJsonChars,
            SalesAnalysis expected) {

        /** The single agent's context over the orchestrator's. */
        public double ratio() {
            return (double) singleAgent.inputTokens() / orchestrator.inputTokens();
        }

        /** All input tokens of the orchestrated tree (orchestrator and both workers). */
        public long orchestratedTreeInput() {
            return orchestrator.inputTokens() + dataAgent.inputTokens() + analysisAgent.inputTokens();
        }
    }

    private ContextEconomy() {}

    /** Runs both setups on the default 300 rows. */
    public static Result run() throws InterruptedException {
        return run(SalesOrders.generate());
    }

    /** Runs both setups on {@code rows}. */
    public static Result run(List<Order> rows) throws InterruptedException {
        TokenCounter counter = new TokenCounter();
        ScriptedModel model = model();
        try (AgentRunner runner = AgentRunner.builder(tree(rows, model))
                .telemetryListener(counter)
                .build()) {
            RunOutcome orchestrated =
                    runner.run(RunRequest.of("economy-orchestrated", "sales_assistant", QUESTION), RunObserver.NONE);
            RunOutcome single =
                    runner.run(RunRequest.of("economy-single", "sales_analyst", QUESTION), RunObserver.NONE);
            for (RunOutcome o : List.of(orchestrated, single)) {
                if (o.status() != OutcomeStatus.OK) {
                    throw new IllegalStateException(o.agent() + " failed: " + o.failure() + " " + o.subagents());
                }
            }
            return new Result(
                    orchestrated,
                    single,
                    counter.of("economy-orchestrated", "sales_assistant"),
                    counter.of("economy-orchestrated", "data_agent"),
                    counter.of("economy-orchestrated", "analysis_agent"),
                    counter.of("economy-single", "sales_analyst"),
                    model.requestsOf("sales_assistant"),
                    model.requestsOf("data_agent"),
                    model.requestsOf("analysis_agent"),
                    model.requestsOf("sales_analyst"),
                    rows.size(),
                    SalesOrders.toJson(rows).length(),
                    SalesAnalysis.of(rows, SalesOrders.REGION, SalesOrders.BASE_MONTH, SalesOrders.MONTH));
        }
    }

    /** Sums input tokens per run and agent from the loop's model-call events. */
    private static final class TokenCounter implements AgentTelemetryListener {
        private final Map<String, long[]> byAgent = new ConcurrentHashMap<>();

        @Override
        public void modelCallFinished(ModelCallFinished event) {
            long[] v = byAgent.computeIfAbsent(event.runId() + " " + event.agent(), k -> new long[3]);
            synchronized (v) {
                v[0] += event.usage().inputTokens();
                v[1]++;
                v[2] = Math.max(v[2], event.usage().inputTokens());
            }
        }

        Context of(String runId, String agent) {
            long[] v = byAgent.getOrDefault(runId + " " + agent, new long[3]);
            synchronized (v) {
                return new Context(agent, v[0], (int) v[1], v[2]);
            }
        }
    }

    // ---- the tools: a CRM query that keeps its result as a dataset of the run, and an analysis over it ----

    private static ToolRegistry tools(List<Order> rows) {
        Map<String, List<Order>> datasets = new ConcurrentHashMap<>();
        return ToolRegistry.of(
                Tools.of(
                        "query_orders",
                        "Returns the CRM order rows of a region for a range of months (inclusive, YYYY-MM), as JSON,"
                                + " and keeps them as a dataset of this run for analyze_sales.",
                        "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\"},"
                                + "\"from_month\":{\"type\":\"string\"},\"to_month\":{\"type\":\"string\"}},"
                                + "\"required\":[\"region\",\"from_month\",\"to_month\"]}",
                        Risk.AUTO,
                        (args, ctx) -> {
                            String region = args.path("region").asString("");
                            String from = args.path("from_month").asString("");
                            String to = args.path("to_month").asString("");
                            List<Order> found = new ArrayList<>();
                            for (Order o : rows) {
                                if (o.region().equals(region)
                                        && o.month().compareTo(from) >= 0
                                        && o.month().compareTo(to) <= 0) {
                                    found.add(o);
                                }
                            }
                            String id = "orders/"
                                    + region.toLowerCase(Locale.ROOT).replace(' ', '-') + "/" + from + ".." + to;
                            datasets.put(ctx.runId() + " " + id, List.copyOf(found));
                            return "{\"dataset\":\"" + id + "\",\"row_count\":" + found.size() + ",\"rows\":"
                                    + SalesOrders.toJson(found) + "}";
                        }),
                Tools.of(
                        "analyze_sales",
                        "Computes a region's month-on-month sales change from a dataset kept by query_orders and"
                                + " attributes it to channel x product segments.",
                        "{\"type\":\"object\",\"properties\":{\"dataset\":{\"type\":\"string\"},"
                                + "\"base_month\":{\"type\":\"string\"},\"month\":{\"type\":\"string\"}},"
                                + "\"required\":[\"dataset\",\"base_month\",\"month\"]}",
                        Risk.AUTO,
                        (args, ctx) -> {
                            String id = args.path("dataset").asString("");
                            List<Order> dataset = datasets.get(ctx.runId() + " " + id);
                            if (dataset == null) {
                                throw new ToolException(
                                        FailureCategory.EXECUTION_ERROR,
                                        "unknown_dataset",
                                        "no dataset '" + id + "' in this run: call query_orders first");
                            }
                            return SalesAnalysis.of(
                                            dataset,
                                            SalesOrders.REGION,
                                            args.path("base_month").asString(""),
                                            args.path("month").asString(""))
                                    .text();
                        }));
    }

    private static AgentTree tree(List<Order> rows, ScriptedModel model) {
        Budget worker = new Budget(6, 100_000, Duration.ofMinutes(2));
        Budget root = new Budget(6, 400_000, Duration.ofMinutes(5));
        AgentSpec assistant = AgentSpec.builder("sales_assistant")
                .description("Answers questions about sales.")
                .instructions("You are the sales assistant. For a question about sales figures, have data_agent fetch"
                        + " the orders, then have analysis_agent analyse them, and answer from their summaries.")
                .workers("data_agent", "analysis_agent")
                .budget(root)
                .build();
        AgentSpec data = AgentSpec.builder("data_agent")
                .description("Fetches CRM order rows for a region and a range of months and keeps them as a dataset"
                        + " of the run; returns the dataset id. Needs region and months. Does not analyse trends or"
                        + " explain changes.")
                .instructions("You fetch order data from the CRM with query_orders and report the dataset id.")
                .tools("query_orders")
                .budget(worker)
                .build();
        AgentSpec analysis = AgentSpec.builder("analysis_agent")
                .description("Computes month-on-month changes and attributes them to channels and products, from a"
                        + " dataset kept by data_agent. Needs the dataset id. Does not query the CRM.")
                .instructions("You analyse a sales dataset with analyze_sales and report what explains the change.")
                .tools("analyze_sales")
                .budget(worker)
                .build();
        AgentSpec single = AgentSpec.builder("sales_analyst")
                .description("Answers questions about sales on its own.")
                .instructions("You are the sales analyst. Fetch the orders with query_orders, analyse them with"
                        + " analyze_sales, and answer.")
                .tools("query_orders", "analyze_sales")
                .budget(root)
                .build();
        return AgentTree.build(List.of(assistant, data, analysis, single), tools(rows), ref -> model);
    }

    private static ScriptedModel model() {
        return new ScriptedModel(Map.of(
                "sales_assistant",
                AgentScript.of(
                        ScriptedTurn.calls(call(
                                "data_agent",
                                "{\"task\":\"Fetch the East China orders of " + SalesOrders.BASE_MONTH + " and "
                                        + SalesOrders.MONTH + ".\"}")),
                        ScriptedTurn.calls(call(
                                "analysis_agent",
                                "{\"task\":\"Explain the month-on-month change of East China sales from "
                                        + SalesOrders.BASE_MONTH + " to " + SalesOrders.MONTH
                                        + ". Data: {{results.data_agent}}\"}")),
                        ScriptedTurn.text("{{results.analysis_agent}}")),
                "data_agent",
                AgentScript.of(
                        ScriptedTurn.calls(call("query_orders", QUERY_ARGS)),
                        ScriptedTurn.text("Fetched the East China orders of " + SalesOrders.BASE_MONTH + " and "
                                + SalesOrders.MONTH + " from the CRM; they are kept as dataset " + DATASET + ".")),
                "analysis_agent",
                AgentScript.of(
                        ScriptedTurn.calls(call("analyze_sales", ANALYZE_ARGS)),
                        ScriptedTurn.text("{{results.analyze_sales}}")),
                "sales_analyst",
                AgentScript.of(
                        ScriptedTurn.calls(call("query_orders", QUERY_ARGS)),
                        ScriptedTurn.calls(call("analyze_sales", ANALYZE_ARGS)),
                        ScriptedTurn.text("{{results.analyze_sales}}"))));
    }

    private static ScriptedCall call(String name, String arguments) {
        return new ScriptedCall(null, name, JsonSchemas.parse(arguments));
    }
}
