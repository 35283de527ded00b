package dev.cadre.agent.telemetry;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static dev.cadre.agent.testing.Fixtures.delegate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.internal.Spans;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import io.opentelemetry.api.trace.SpanId;
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

class SpanTreeTest {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();

    @Test
    void orchestratorWithThreeWorkers_oneFailing_producesTheExactSpanTree() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(
                                        delegate("cpu", "check cpu"),
                                        delegate("disk", "check disk"),
                                        delegate("mem", "check mem"))
                                .withUsage(new TokenUsage(100, 20)),
                        ScriptedTurn.text("report").withUsage(new TokenUsage(200, 10))),
                "cpu",
                AgentScript.of(
                        ScriptedTurn.calls(call("host_metrics", "{\"host\":\"api-1\"}"))
                                .withUsage(new TokenUsage(30, 5)),
                        ScriptedTurn.text("cpu 93%").withUsage(new TokenUsage(40, 5))),
                "disk",
                AgentScript.of(ScriptedTurn.failing("provider unreachable")),
                "mem",
                AgentScript.of(ScriptedTurn.text("mem fine").withUsage(new TokenUsage(10, 3)))));
        ToolRegistry tools = ToolRegistry.of(Tools.of(
                "host_metrics",
                "Metrics of a host.",
                "{\"type\":\"object\",\"properties\":{\"host\":{\"type\":\"string\"}}}",
                Risk.AUTO,
                (args, ctx) -> "cpu=93 token=SECRET"));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                Fixtures.root("orchestrator")
                        .model("scripted:ops")
                        .workers("cpu", "disk", "mem")
                        .build(),
                agent("cpu").model("scripted:ops").tools("host_metrics").build(),
                agent("disk").model("scripted:ops").build(),
                agent("mem").model("scripted:ops").build());
        List<AgentTelemetryListener.AgentFinished> finished = new CopyOnWriteArrayList<>();
        AgentTelemetryListener listener = new AgentTelemetryListener() {
            @Override
            public void agentFinished(AgentFinished event) {
                finished.add(event);
            }
        };

        try (AgentRunner runner = AgentRunner.builder(tree)
                .openTelemetry(otel)
                .telemetryListener(listener)
                .telemetryOptions(new TelemetryOptions(true, (tool, text) -> text.replace("SECRET", "***")))
                .build()) {
            runner.run(RunRequest.of("run-spans", "orchestrator", "health"), new Recorder());
        }

        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(render(spans))
                .isEqualTo(String.join(
                        "\n",
                        "invoke_agent orchestrator",
                        "  chat ops",
                        "  execute_tool cpu",
                        "    invoke_agent cpu",
                        "      chat ops",
                        "      execute_tool host_metrics",
                        "      chat ops",
                        "  execute_tool disk [EXECUTION_ERROR]",
                        "    invoke_agent disk [COMMUNICATION_ERROR]",
                        "      chat ops [COMMUNICATION_ERROR]",
                        "  execute_tool mem",
                        "    invoke_agent mem",
                        "      chat ops",
                        "  chat ops"));

        SpanData root = one(spans, "invoke_agent orchestrator");
        assertThat(root.getParentSpanId()).isEqualTo(SpanId.getInvalid());
        assertThat(root.getAttributes().get(Spans.OPERATION)).isEqualTo("invoke_agent");
        assertThat(root.getAttributes().get(Spans.AGENT_NAME)).isEqualTo("orchestrator");
        assertThat(root.getAttributes().get(Spans.CONVERSATION_ID)).isEqualTo("run-spans");
        assertThat(root.getAttributes().get(Spans.PROVIDER)).isEqualTo("scripted");
        assertThat(root.getAttributes().get(Spans.RUN_ID)).isEqualTo("run-spans");
        assertThat(root.getAttributes().get(Spans.DEPTH)).isZero();
        assertThat(root.getAttributes().get(Spans.ITERATIONS)).isEqualTo(2);
        assertThat(root.getAttributes().get(Spans.TOOLS_CALLED)).containsExactly("cpu", "disk", "mem");
        // Its own model calls only; the tree's tokens apart: orchestrator 330, cpu 80, disk 0 (failed call), mem 13.
        assertThat(root.getAttributes().get(Spans.INPUT_TOKENS)).isEqualTo(100 + 200);
        assertThat(root.getAttributes().get(Spans.OUTPUT_TOKENS)).isEqualTo(20 + 10);
        assertThat(root.getAttributes().get(Spans.TREE_INPUT_TOKENS)).isEqualTo(100 + 200 + 30 + 40 + 10);
        assertThat(root.getAttributes().get(Spans.TREE_OUTPUT_TOKENS)).isEqualTo(20 + 10 + 5 + 5 + 3);
        assertThat(root.getAttributes().get(Spans.ERROR_TYPE)).isNull();
        assertThat(root.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        SpanData cpu = one(spans, "invoke_agent cpu");
        assertThat(cpu.getAttributes().get(Spans.DEPTH)).isEqualTo(1);
        assertThat(cpu.getAttributes().get(Spans.AGENT_ID)).isEqualTo("run-spans/cpu#1");
        assertThat(cpu.getAttributes().get(Spans.PARENT_SESSION_ID)).isEqualTo("run-spans");
        assertThat(cpu.getAttributes().get(Spans.TOOLS_CALLED)).containsExactly("host_metrics");
        assertThat(cpu.getAttributes().get(Spans.ITERATIONS)).isEqualTo(2);
        assertThat(cpu.getAttributes().get(Spans.INPUT_TOKENS)).isEqualTo(30 + 40);
        assertThat(cpu.getAttributes().get(Spans.TREE_INPUT_TOKENS)).isEqualTo(30 + 40);

        SpanData diskTool = one(spans, "execute_tool disk");
        assertThat(diskTool.getAttributes().get(Spans.TOOL_NAME)).isEqualTo("disk");
        assertThat(diskTool.getAttributes().get(Spans.TOOL_CALL_ID)).isEqualTo("call_1_2");
        assertThat(diskTool.getAttributes().get(Spans.TOOL_TYPE)).isEqualTo("agent");
        assertThat(diskTool.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(diskTool.getStatus().getDescription()).hasSizeLessThanOrEqualTo(200);

        SpanData metrics = one(spans, "execute_tool host_metrics");
        assertThat(metrics.getAttributes().get(Spans.TOOL_TYPE)).isEqualTo("function");
        assertThat(metrics.getAttributes().get(Spans.TOOL_ARGUMENTS)).isEqualTo("{\"host\":\"api-1\"}");
        assertThat(metrics.getAttributes().get(Spans.TOOL_RESULT)).isEqualTo("cpu=93 token=***");

        SpanData firstChat = spans.stream()
                .filter(s ->
                        s.getName().equals("chat ops") && s.getParentSpanId().equals(root.getSpanId()))
                .min(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .orElseThrow();
        assertThat(firstChat.getAttributes().get(Spans.OPERATION)).isEqualTo("chat");
        assertThat(firstChat.getAttributes().get(Spans.REQUEST_MODEL)).isEqualTo("ops");
        assertThat(firstChat.getAttributes().get(Spans.INPUT_TOKENS)).isEqualTo(100);
        assertThat(firstChat.getAttributes().get(Spans.OUTPUT_TOKENS)).isEqualTo(20);

        assertThat(finished)
                .extracting(AgentTelemetryListener.AgentFinished::agent)
                .containsExactlyInAnyOrder("cpu", "disk", "mem", "orchestrator");
    }

    @Test
    void toolContent_isNotCaptured_unlessOptedIn() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "solo",
                AgentScript.of(ScriptedTurn.calls(call("echo", "{\"x\":\"secret\"}")), ScriptedTurn.text("ok"))));
        ToolRegistry tools = ToolRegistry.of(
                Tools.of("echo", "Echoes.", "{\"type\":\"object\"}", Risk.AUTO, (args, ctx) -> args.toString()));
        AgentTree tree = Fixtures.tree(tools, model, agent("solo").tools("echo").build());

        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            runner.run(RunRequest.of("run-nocapture", "solo", "go"), new Recorder());
        }

        SpanData echo = one(exporter.getFinishedSpanItems(), "execute_tool echo");
        assertThat(echo.getAttributes().get(Spans.TOOL_ARGUMENTS)).isNull();
        assertThat(echo.getAttributes().get(Spans.TOOL_RESULT)).isNull();
    }

    private static SpanData one(List<SpanData> spans, String name) {
        List<SpanData> found =
                spans.stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as(name).hasSize(1);
        return found.getFirst();
    }

    /** The tree as indented names, children by start time, failures as [error.type]. */
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
        lines.add("  ".repeat(depth) + span.getName() + (error == null ? "" : " [" + error + "]"));
        List<SpanData> children = all.stream()
                .filter(s -> s.getParentSpanId().equals(span.getSpanId()))
                .toList();
        // Concurrent tool calls start in any order: give the k-th call (by call id) the k-th start time
        // of the tool spans, so the tree is stable while model calls keep their place between turns.
        List<SpanData> toolsByCall = children.stream()
                .filter(s -> s.getAttributes().get(Spans.TOOL_CALL_ID) != null)
                .sorted(Comparator.comparing((SpanData s) -> s.getAttributes().get(Spans.TOOL_CALL_ID)))
                .toList();
        List<Long> toolStarts =
                toolsByCall.stream().map(SpanData::getStartEpochNanos).sorted().toList();
        java.util.Map<SpanData, Long> key = new java.util.IdentityHashMap<>();
        for (SpanData child : children) {
            key.put(child, child.getStartEpochNanos());
        }
        for (int i = 0; i < toolsByCall.size(); i++) {
            key.put(toolsByCall.get(i), toolStarts.get(i));
        }
        children.stream().sorted(Comparator.comparing(key::get)).forEach(child -> render(child, all, depth + 1, lines));
    }
}
