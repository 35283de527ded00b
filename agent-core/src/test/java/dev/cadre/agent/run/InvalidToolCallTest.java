package dev.cadre.agent.run;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Budget;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ToolResultMessage;
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
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Model output that is not a valid tool call (arguments that are not JSON, an unknown tool, arguments
 * that miss the schema) is an error result the model reads and corrects, bounded by the iteration
 * budget; a model that repeats the same call is stopped with {@code repeated_tool_call}.
 */
class InvalidToolCallTest {

    private static final String SCHEMA = """
            {"type":"object","properties":{"service":{"type":"string"},"replicas":{"type":"integer"}},
             "required":["service"],"additionalProperties":false}""";

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    private final AtomicInteger executed = new AtomicInteger();
    private final ToolRegistry tools = ToolRegistry.of(Tools.of(
            "scale", "Scales a service.", SCHEMA, Risk.AUTO, (args, ctx) -> "scaled #" + executed.incrementAndGet()));

    private static ScriptedCall raw(String name, String text) {
        return new ScriptedCall(null, name, JsonNodeFactory.instance.stringNode(text));
    }

    @Test
    void invalidCalls_areErrorResultsTheModelCorrects_andTheRunCompletes() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(raw("scale", "{\"service\": \"api\", \"replicas\": 3")),
                        ScriptedTurn.calls(call("sclae", "{\"service\":\"api\"}")),
                        ScriptedTurn.calls(call("scale", "{\"replicas\":\"three\"}")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\",\"replicas\":3}")),
                        ScriptedTurn.text("{{result[0]}}"))));
        AgentTree tree = Fixtures.tree(tools, model, agent("ops").tools("scale").build());

        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            outcome = runner.run(RunRequest.of("run-invalid", "ops", "scale api to 3"), new Recorder());
        }

        assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
        assertThat(outcome.finalText()).isEqualTo("scaled #1");
        assertThat(executed).hasValue(1);
        List<String> results = model.requestsOf("ops").getLast().messages().stream()
                .filter(ToolResultMessage.class::isInstance)
                .map(m -> ((ToolResultMessage) m).content())
                .toList();
        assertThat(results).hasSize(4);
        assertThat(results.get(0))
                .contains("\"code\":\"invalid_arguments\"")
                .contains("the arguments are not valid JSON (Unexpected end-of-input: expected close marker for"
                        + " Object)")
                .contains("send one JSON object matching scale's parameter schema");
        assertThat(results.get(1)).contains("\"code\":\"unknown_tool\"").contains("'sclae'; available: scale");
        assertThat(results.get(2))
                .contains("\"code\":\"invalid_arguments\"")
                .contains("$: missing required property 'service'")
                .contains("$.replicas: expected integer but was string");
        assertThat(results.get(3)).isEqualTo("scaled #1");
        assertThat(exporter.getFinishedSpanItems())
                .filteredOn(s ->
                        s.getName().equals("execute_tool scale") || s.getName().equals("execute_tool sclae"))
                .extracting(s -> s.getAttributes().get(Spans.ERROR_TYPE))
                .containsExactlyInAnyOrder("EXECUTION_ERROR", "ORCHESTRATION_ERROR", "EXECUTION_ERROR", null);
    }

    @Test
    void aModelThatNeverGetsItRight_endsAtItsIterationBudget_notInACrash() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(raw("scale", "{service: api")),
                        ScriptedTurn.calls(raw("scale", "[\"api\"]")),
                        ScriptedTurn.calls(raw("scale", "\"{\\\"service\\\":\\\"api\\\"}\"")))));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                agent("ops")
                        .tools("scale")
                        .budget(new Budget(3, 100_000, Duration.ofSeconds(30)))
                        .build());

        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            outcome = runner.run(RunRequest.of("run-never", "ops", "scale api"), new Recorder());
        }

        assertThat(outcome.status()).isEqualTo(OutcomeStatus.BUDGET_EXCEEDED);
        assertThat(FailureCode.ITERATION_BUDGET.matches(outcome.failure())).isTrue();
        assertThat(executed).hasValue(0);
        List<String> results = model.requestsOf("ops").getLast().messages().stream()
                .filter(ToolResultMessage.class::isInstance)
                .map(m -> ((ToolResultMessage) m).content())
                .toList();
        assertThat(results).hasSize(2).allSatisfy(r -> assertThat(r).contains("invalid_arguments"));
        assertThat(results.get(1)).contains("the arguments are not a JSON object but an array");
    }

    @Test
    void theSameCall_threeTimesInARow_stopsTheAgentWithRepeatedToolCall_withoutRunningItAThirdTime() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\",\"replicas\":3}")),
                        // same arguments, other key order and spacing: the same call
                        ScriptedTurn.calls(call("scale", "{ \"replicas\": 3, \"service\": \"api\" }")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\",\"replicas\":3}")),
                        ScriptedTurn.text("never reached"))));
        AgentTree tree = Fixtures.tree(tools, model, agent("ops").tools("scale").build());
        Recorder recorder = new Recorder();

        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            outcome = runner.run(RunRequest.of("run-loop", "ops", "scale api"), recorder);
        }

        assertThat(outcome.status()).isEqualTo(OutcomeStatus.FAILED);
        assertThat(outcome.failure().code()).isEqualTo("repeated_tool_call");
        assertThat(outcome.failure().category()).isEqualTo(FailureCategory.EXECUTION_ERROR);
        assertThat(outcome.failure().message())
                .isEqualTo("agent 'ops' asked for the same call (scale, same arguments) 3 times in a row;"
                        + " stopped instead of running it again");
        assertThat(executed).hasValue(2);
        assertThat(model.requestsOf("ops")).hasSize(3);

        List<SpanData> spans = exporter.getFinishedSpanItems();
        SpanData agentSpan = spans.stream()
                .filter(s -> s.getName().equals("invoke_agent ops"))
                .findFirst()
                .orElseThrow();
        assertThat(agentSpan.getAttributes().get(Spans.ERROR_TYPE)).isEqualTo("EXECUTION_ERROR");
        assertThat(agentSpan.getAttributes().get(Spans.STATUS)).isEqualTo("failed");
        assertThat(agentSpan.getStatus().getDescription()).contains("3 times in a row");
        List<SpanData> toolSpans = spans.stream()
                .filter(s -> s.getName().equals("execute_tool scale"))
                .sorted(Comparator.comparing((SpanData s) -> s.getAttributes().get(Spans.TOOL_CALL_ID)))
                .toList();
        assertThat(toolSpans)
                .extracting(s -> s.getAttributes().get(Spans.TOOL_CALL_ID) + " "
                        + s.getAttributes().get(Spans.STATUS) + " "
                        + s.getAttributes().get(Spans.ERROR_TYPE))
                .containsExactly("call_1_1 ok null", "call_2_1 ok null", "call_3_1 failed EXECUTION_ERROR");
        assertThat(toolSpans.getLast().getParentSpanId()).isEqualTo(agentSpan.getSpanId());
        assertThat(toolSpans.getLast().getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);

        assertThat(recorder.ofType(AgentEvent.ToolResultEvent.class))
                .extracting(e -> e.callId() + " " + e.status().wireName())
                .containsExactly("call_1_1 ok", "call_2_1 ok", "call_3_1 failed");
        AgentEvent.Error error = recorder.ofType(AgentEvent.Error.class).getFirst();
        assertThat(error.failure().code()).isEqualTo("repeated_tool_call");
    }

    @Test
    void theRepeatLimit_isConfigurable_andOnlyConsecutiveIdenticalTurnsCount() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\"}")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\"}")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"web\"}")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\"}")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\"}")),
                        ScriptedTurn.calls(call("scale", "{\"service\":\"api\"}")),
                        ScriptedTurn.text("done"))));
        AgentTree tree = Fixtures.tree(tools, model, agent("ops").tools("scale").build());

        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree)
                .limits(RunLimits.DEFAULT.withMaxRepeatedToolCalls(4))
                .build()) {
            outcome = runner.run(RunRequest.of("run-limit", "ops", "scale"), new Recorder());
        }

        assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
        assertThat(outcome.finalText()).isEqualTo("done");
        assertThat(executed).hasValue(6);
        assertThat(RunLimits.DEFAULT.maxRepeatedToolCalls()).isEqualTo(3);
        assertThat(new RunLimits(4, 0.5).maxRepeatedToolCalls()).isEqualTo(3);
    }
}
