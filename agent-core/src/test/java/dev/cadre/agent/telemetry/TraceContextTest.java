package dev.cadre.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.tool.ToolRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceContextTest {

    @Test
    void aRunStartedUnderACallersTraceContext_continuesThatTrace() throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .build();
        ScriptedModel model = new ScriptedModel(Map.of("solo", AgentScript.of(ScriptedTurn.text("done"))));
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("solo").model("scripted:t").build());
        // A remote caller's span, as a W3C traceparent would carry it.
        SpanContext caller = SpanContext.createFromRemoteParent(
                "4bf92f3577b34da6a3ce929d0e0e4736",
                "00f067aa0ba902b7",
                TraceFlags.getSampled(),
                TraceState.getDefault());
        Context parent = Context.root().with(Span.wrap(caller));

        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            runner.start(RunRequest.of("run-tc", "solo", "hi"), RunObserver.NONE, parent)
                    .outcome()
                    .join();
        }

        SpanData root = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("invoke_agent solo"))
                .findFirst()
                .orElseThrow();
        assertThat(root.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(root.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(exporter.getFinishedSpanItems())
                .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736"));
    }

    @Test
    void theChatSpanIsCurrentWhileTheModelPortRuns_soAnHttpPortCanPropagateIt() throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .build();
        ScriptedModel scripted = new ScriptedModel(Map.of("solo", AgentScript.of(ScriptedTurn.text("done"))));
        java.util.List<SpanContext> seenByPort = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.cadre.agent.model.ModelPort port = request -> {
            seenByPort.add(Span.current().getSpanContext());
            return scripted.call(request);
        };
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                port,
                Fixtures.root("solo").model("scripted:t").build());

        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            runner.start(RunRequest.of("run-cur", "solo", "hi"), RunObserver.NONE, Context.root())
                    .outcome()
                    .join();
        }

        SpanData chat = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("chat "))
                .findFirst()
                .orElseThrow();
        assertThat(seenByPort).hasSize(1);
        assertThat(seenByPort.get(0).getSpanId()).isEqualTo(chat.getSpanId());
        assertThat(seenByPort.get(0).getTraceId()).isEqualTo(chat.getTraceId());
    }
}
