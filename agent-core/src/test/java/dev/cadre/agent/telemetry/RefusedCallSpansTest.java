package dev.cadre.agent.telemetry;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static dev.cadre.agent.testing.Fixtures.delegate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.internal.Spans;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Calls refused before they start (unknown worker, malformed delegation, depth limit, unknown tool,
 * a tool outside the whitelist, arguments that are not JSON or do not match the schema) each get their
 * own failed {@code execute_tool} span under the agent's span, as docs/observability.md promises for
 * every tool call; refused delegations reach the listener as such (the platform counts misroutes).
 */
class RefusedCallSpansTest {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();

    @Test
    void everyRefusedCall_hasItsOwnFailedToolSpan_parentedLikeEveryOtherCall() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(
                                        delegate("helper", "not yours"), // an agent of the tree, not a worker here
                                        call("scribe", "{\"job\":\"write\"}"), // a delegation without a task
                                        call("host_metrics", "{\"host\":\"a\"}"), // a tool outside the whitelist
                                        call("no_such_thing", "{}"), // neither tool nor agent
                                        delegate("lead", "plan"))
                                .withUsage(new TokenUsage(100, 10)),
                        ScriptedTurn.text("done").withUsage(new TokenUsage(200, 20))),
                "lead",
                AgentScript.of(
                        ScriptedTurn.calls(
                                        delegate("helper", "too deep"), // lead's own worker, below maxDepth
                                        new ScriptedCall(
                                                null,
                                                "host_metrics",
                                                JsonNodeFactory.instance.stringNode("{\"host\": \"a")),
                                        call("host_metrics", "{\"host\":5}"))
                                .withUsage(new TokenUsage(30, 3)),
                        ScriptedTurn.text("lead done").withUsage(new TokenUsage(40, 4))),
                "scribe",
                AgentScript.of(ScriptedTurn.text("never asked")),
                "helper",
                AgentScript.of(ScriptedTurn.text("never asked"))));
        ToolRegistry tools = ToolRegistry.of(Tools.of(
                "host_metrics",
                "Metrics of a host.",
                "{\"type\":\"object\",\"properties\":{\"host\":{\"type\":\"string\"}},\"required\":[\"host\"]}",
                Risk.AUTO,
                (args, ctx) -> "cpu=93"));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                Fixtures.root("orchestrator").workers("lead", "scribe").build(),
                agent("lead").workers("helper").tools("host_metrics").build(),
                agent("scribe").build(),
                agent("helper").build());
        List<AgentTelemetryListener.DelegationRefused> refused = new CopyOnWriteArrayList<>();
        List<AgentTelemetryListener.ToolCallFinished> calls = new CopyOnWriteArrayList<>();
        AgentTelemetryListener listener = new AgentTelemetryListener() {
            @Override
            public void delegationRefused(DelegationRefused event) {
                refused.add(event);
            }

            @Override
            public void toolCallFinished(ToolCallFinished event) {
                calls.add(event);
            }
        };

        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree)
                .openTelemetry(otel)
                .telemetryListener(listener)
                .build()) {
            outcome = runner.run(RunRequest.of("run-refused", "orchestrator", "go"), new Recorder());
        }

        assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(render(spans))
                .isEqualTo(String.join(
                        "\n",
                        "invoke_agent orchestrator",
                        "  chat default",
                        "  execute_tool helper agent failed [ORCHESTRATION_ERROR]",
                        "  execute_tool scribe agent failed [ORCHESTRATION_ERROR]",
                        "  execute_tool host_metrics function failed [ORCHESTRATION_ERROR]",
                        "  execute_tool no_such_thing function failed [ORCHESTRATION_ERROR]",
                        "  execute_tool lead agent ok",
                        "    invoke_agent lead",
                        "      chat default",
                        "      execute_tool helper agent failed [ORCHESTRATION_ERROR]",
                        "      execute_tool host_metrics function failed [EXECUTION_ERROR]",
                        "      execute_tool host_metrics function failed [EXECUTION_ERROR]",
                        "      chat default",
                        "  chat default"));
        for (SpanData s : spans) {
            if (s.getAttributes().get(Spans.ERROR_TYPE) != null) {
                assertThat(s.getStatus().getStatusCode()).as(s.getName()).isEqualTo(StatusCode.ERROR);
                assertThat(s.getAttributes().get(Spans.OPERATION)).isEqualTo("execute_tool");
                assertThat(s.getAttributes().get(Spans.RUN_ID)).isEqualTo("run-refused");
                assertThat(s.getAttributes().get(Spans.RISK)).isEqualTo("AUTO");
                assertThat(s.getAttributes().get(Spans.TOOL_CALL_ID)).startsWith("call_1_");
            }
        }
        assertThat(statusMessages(spans, "run-refused"))
                .containsExactly(
                        "'helper' is not a worker of agent 'orchestrator'; available: lead, scribe",
                        "malformed delegation to scribe: $: missing required property 'task';"
                                + " $: unknown property 'job'",
                        "unknown tool or worker 'host_metrics'; available: lead, scribe",
                        "unknown tool or worker 'no_such_thing'; available: lead, scribe");
        assertThat(statusMessages(spans, "run-refused/lead#1"))
                .containsExactly(
                        "agent 'lead' may not delegate at depth 1 (max depth 1)",
                        // span status descriptions are cut at 200 characters
                        "invalid arguments for host_metrics: the arguments are not valid JSON (Unexpected"
                                + " end-of-input: was expecting closing quote for a string value); send one JSON"
                                + " object matching host_metrics's parameter …",
                        "invalid arguments for host_metrics: $.host: expected string but was integer");

        // The model reads each refusal as the call's result and goes on.
        List<ToolResultMessage> leadSaw = model.requestsOf("lead").get(1).messages().stream()
                .filter(ToolResultMessage.class::isInstance)
                .map(ToolResultMessage.class::cast)
                .toList();
        assertThat(leadSaw).extracting(ToolResultMessage::error).containsExactly(true, true, true);
        assertThat(leadSaw.get(1).content()).contains("invalid_arguments", "not valid JSON");
        assertThat(model.requestsOf("helper")).isEmpty();
        assertThat(model.requestsOf("scribe")).isEmpty();

        assertThat(refused)
                .extracting(e ->
                        e.agent() + " -> " + e.worker() + ": " + e.failure().code())
                .containsExactly(
                        "orchestrator -> helper: unknown_worker",
                        "orchestrator -> scribe: invalid_delegation",
                        "lead -> helper: depth_limit");
        assertThat(refused)
                .allSatisfy(e -> assertThat(e.failure().category()).isEqualTo(FailureCategory.ORCHESTRATION_ERROR));
        assertThat(calls)
                .filteredOn(c -> c.status() == OutcomeStatus.FAILED)
                .extracting(AgentTelemetryListener.ToolCallFinished::tool)
                .containsExactlyInAnyOrder(
                        "helper", "scribe", "host_metrics", "no_such_thing", "helper", "host_metrics", "host_metrics");
    }

    @Test
    void agentSpans_carryTheirOwnTokens_andTheTreesTotalApart() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(delegate("lead", "plan")).withUsage(new TokenUsage(1000, 100)),
                        ScriptedTurn.text("done").withUsage(new TokenUsage(362, 62))),
                "lead",
                AgentScript.of(
                        ScriptedTurn.calls(delegate("helper", "dig")).withUsage(new TokenUsage(5000, 500)),
                        ScriptedTurn.text("lead done").withUsage(new TokenUsage(6000, 600))),
                "helper",
                AgentScript.of(ScriptedTurn.text("found it").withUsage(new TokenUsage(7934, 793)))));
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("orchestrator").workers("lead").maxDepth(2).build(),
                agent("lead").workers("helper").build(),
                agent("helper").build());

        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            outcome = runner.run(RunRequest.of("run-tokens", "orchestrator", "go"), new Recorder());
        }

        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(tokens(spans, "invoke_agent orchestrator")).isEqualTo("own 1362/162, tree 20296/2055");
        assertThat(tokens(spans, "invoke_agent lead")).isEqualTo("own 11000/1100, tree 18934/1893");
        assertThat(tokens(spans, "invoke_agent helper")).isEqualTo("own 7934/793, tree 7934/793");
        // Summing the agents' own tokens gives the run's total exactly once, as summing the chat spans does.
        long ownSum = spans.stream()
                .filter(s -> s.getName().startsWith("invoke_agent "))
                .mapToLong(s -> s.getAttributes().get(Spans.INPUT_TOKENS))
                .sum();
        long chatSum = spans.stream()
                .filter(s -> s.getName().startsWith("chat "))
                .mapToLong(s -> s.getAttributes().get(Spans.INPUT_TOKENS))
                .sum();
        assertThat(ownSum)
                .isEqualTo(chatSum)
                .isEqualTo(20296)
                .isEqualTo(outcome.work().usage().inputTokens());
    }

    private static String tokens(List<SpanData> spans, String name) {
        SpanData s =
                spans.stream().filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        var a = s.getAttributes();
        return "own " + a.get(Spans.INPUT_TOKENS) + "/" + a.get(Spans.OUTPUT_TOKENS) + ", tree "
                + a.get(Spans.TREE_INPUT_TOKENS) + "/" + a.get(Spans.TREE_OUTPUT_TOKENS);
    }

    /** Status messages of a session's failed tool spans, in call order. */
    private static List<String> statusMessages(List<SpanData> spans, String session) {
        return spans.stream()
                .filter(s -> session.equals(s.getAttributes().get(Spans.SESSION_ID)))
                .filter(s -> s.getAttributes().get(Spans.ERROR_TYPE) != null)
                .sorted(Comparator.comparing((SpanData s) -> s.getAttributes().get(Spans.TOOL_CALL_ID)))
                .map(s -> s.getStatus().getDescription())
                .toList();
    }

    /** The tree as indented names (tools with type and status), children by start time, failures as [error.type]. */
    private static String render(List<SpanData> spans) {
        List<String> lines = new ArrayList<>();
        spans.stream()
                .filter(s -> !s.getParentSpanContext().isValid())
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .forEach(s -> render(s, spans, 0, lines));
        return String.join("\n", lines);
    }

    private static void render(SpanData span, List<SpanData> all, int depth, List<String> lines) {
        String error = span.getAttributes().get(Spans.ERROR_TYPE);
        String type = span.getAttributes().get(Spans.TOOL_TYPE);
        lines.add("  ".repeat(depth)
                + span.getName()
                + (type == null ? "" : " " + type + " " + span.getAttributes().get(Spans.STATUS))
                + (error == null ? "" : " [" + error + "]"));
        all.stream()
                .filter(s -> s.getParentSpanId().equals(span.getSpanId()))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .forEach(child -> render(child, all, depth + 1, lines));
    }
}
