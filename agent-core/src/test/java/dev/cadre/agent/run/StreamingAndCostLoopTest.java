package dev.cadre.agent.run;

import static dev.cadre.agent.testing.Fixtures.agent;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.FallbackModelPort;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The loop's side of streaming (live pieces, then the turn's whole text), of the budget in currency,
 * of fallback models and of provider tool-call ids.
 */
class StreamingAndCostLoopTest {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    private final List<AgentEvent> events = new CopyOnWriteArrayList<>();
    private final RunObserver observer = new RunObserver() {
        @Override
        public void onEvent(AgentEvent event) {
            events.add(event);
        }
    };

    private RunOutcome run(ModelPort model, ToolRegistry tools, RunRequest request, String... toolNames)
            throws Exception {
        var tree = Fixtures.tree(
                tools, model, agent("solo").model("remote:m").tools(toolNames).build());
        try (AgentRunner runner = AgentRunner.builder(tree).openTelemetry(otel).build()) {
            return runner.run(request, observer);
        }
    }

    private static ToolRegistry echo() {
        return ToolRegistry.of(
                Tools.of("echo", "Echoes.", "{\"type\":\"object\"}", Risk.AUTO, (args, ctx) -> args.toString()));
    }

    @Test
    void aStreamingPort_sendsLivePiecesFirst_thenTheTurnsWholeText_andStoredSequencesStayGapFree() throws Exception {
        ModelPort streaming = new ModelPort() {
            @Override
            public ModelResponse call(ModelRequest request) {
                throw new AssertionError("the loop streams");
            }

            @Override
            public ModelResponse stream(ModelRequest request, Consumer<String> textDeltas) {
                textDeltas.accept("CPU ");
                textDeltas.accept("97%");
                return new ModelResponse("CPU 97%", List.of(), new TokenUsage(10, 4));
            }
        };
        RunOutcome outcome = run(streaming, ToolRegistry.empty(), RunRequest.of("run-s", "solo", "hi"));

        assertThat(outcome.finalText()).isEqualTo("CPU 97%");
        List<AgentEvent.TextDelta> deltas = events.stream()
                .filter(AgentEvent.TextDelta.class::isInstance)
                .map(AgentEvent.TextDelta.class::cast)
                .toList();
        assertThat(deltas)
                .extracting(AgentEvent.TextDelta::text, AgentEvent.TextDelta::partial)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("CPU ", true),
                        org.assertj.core.groups.Tuple.tuple("97%", true),
                        org.assertj.core.groups.Tuple.tuple("CPU 97%", false));
        // Pieces carry the number of the event that follows them; the stored ones count 1, 2, 3, ...
        assertThat(deltas.get(0).meta().sequence())
                .isEqualTo(deltas.get(2).meta().sequence());
        List<Long> stored = events.stream()
                .filter(e -> !(e instanceof AgentEvent.TextDelta d && d.partial()))
                .map(e -> e.meta().sequence())
                .toList();
        for (int i = 0; i < stored.size(); i++) {
            assertThat(stored.get(i)).isEqualTo(i + 1L);
        }
    }

    @Test
    void aRunOverItsBudgetInCurrency_stopsWithBudgetExceeded_costBudget() throws Exception {
        ModelPort priced = request -> new ModelResponse(
                null,
                List.of(new ToolCall("x", "echo", Fixtures.json("{}"))),
                new TokenUsage(100, 10),
                false,
                0.6,
                null);
        RunOutcome outcome = run(priced, echo(), new RunRequest("run-c", "run-c", "solo", "hi", null, 1.0), "echo");

        assertThat(outcome.status()).isEqualTo(OutcomeStatus.BUDGET_EXCEEDED);
        assertThat(outcome.failure().category()).isEqualTo(FailureCategory.BUDGET_EXCEEDED);
        assertThat(outcome.failure().code()).isEqualTo("cost_budget");
        assertThat(outcome.work().iterations()).isEqualTo(2); // 0.6, then 1.2 > 1.0
        List<SpanData> chats = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("chat m"))
                .toList();
        assertThat(chats).hasSize(2);
        assertThat(chats.getFirst().getAttributes().get(AttributeKey.doubleKey("cadre.cost")))
                .isEqualTo(0.6);
    }

    @Test
    void cachedInputTokens_countInTheInput_areReportedApart_andCostsStayInMicroUnits() throws Exception {
        // Anthropic-like turns: most of the prompt read from the cache, some written to it; the port's
        // prices come unrounded, as a sum of doubles does (2.5 and 10 per million: 0.0010524999999999998).
        java.util.concurrent.atomic.AtomicInteger turn = new java.util.concurrent.atomic.AtomicInteger();
        ModelPort cached = request -> turn.getAndIncrement() == 0
                ? new ModelResponse(
                        null,
                        List.of(new ToolCall("x", "echo", Fixtures.json("{}"))),
                        new TokenUsage(3023, 52, 2900, 120),
                        false,
                        1 * 2.5 / 1_000_000.0 + 105 * 10 / 1_000_000.0,
                        null)
                : new ModelResponse("done", List.of(), new TokenUsage(3100, 10, 3000, 0), false, 0.000123, null);

        RunOutcome outcome = run(cached, echo(), RunRequest.of("run-k", "solo", "hi"), "echo");

        assertThat(outcome.usage()).isEqualTo(new TokenUsage(6123, 62, 5900, 120));
        assertThat(events.stream()
                        .filter(AgentEvent.Done.class::isInstance)
                        .map(e -> ((AgentEvent.Done) e).usage())
                        .toList())
                .containsExactly(new TokenUsage(6123, 62, 5900, 120));
        List<SpanData> chats = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("chat m"))
                .toList();
        assertThat(chats).hasSize(2);
        var first = chats.getFirst().getAttributes();
        assertThat(first.get(AttributeKey.longKey("gen_ai.usage.input_tokens"))).isEqualTo(3023L);
        assertThat(first.get(AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens")))
                .isEqualTo(2900L);
        assertThat(first.get(AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens")))
                .isEqualTo(120L);
        assertThat(first.get(AttributeKey.doubleKey("cadre.cost"))).isEqualTo(0.001052);
        var second = chats.get(1).getAttributes();
        assertThat(second.get(AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens")))
                .isEqualTo(3000L);
        assertThat(second.get(AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens")))
                .isNull();
        SpanData agentSpan = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("invoke_agent solo"))
                .findFirst()
                .orElseThrow();
        assertThat(agentSpan.getAttributes().get(AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens")))
                .isEqualTo(5900L);
    }

    @Test
    void aLedgerOfManySmallCosts_sumsInMicroUnits() {
        var ledger = new dev.cadre.agent.run.internal.CostLedger(null, 0);
        double doubles = 0;
        for (int i = 0; i < 10; i++) {
            ledger.charge(0.000123);
            doubles += 0.000123;
        }
        assertThat(Double.toString(doubles)).isEqualTo("0.0012300000000000004");
        assertThat(Double.toString(ledger.spent())).isEqualTo("0.00123");
    }

    @Test
    void tokenUsage_cachedTokensArePartOfTheInput() {
        assertThat(new TokenUsage(10, 1, 4, 3).plus(new TokenUsage(5, 2))).isEqualTo(new TokenUsage(15, 3, 4, 3));
        assertThat(new TokenUsage(10, 1, 4, 3).total()).isEqualTo(11);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new TokenUsage(1, 0, 2, 0))
                .hasMessageContaining("part of the input tokens");
    }

    @Test
    void aFallbackModel_answersWhenTheFirstIsUnavailable_andTheRunAndSpanSaySo() throws Exception {
        ModelPort down = request -> {
            throw new ModelException("provider_circuit_open", "remote is failing");
        };
        List<ModelRef> asked = new CopyOnWriteArrayList<>();
        ModelPort local = request -> {
            asked.add(request.model());
            return new ModelResponse("from local", List.of(), new TokenUsage(5, 2));
        };
        ModelPort chain = new FallbackModelPort(List.of(
                new FallbackModelPort.Choice(ModelRef.parse("remote:m"), down),
                new FallbackModelPort.Choice(ModelRef.parse("ollama:llama3"), local)));

        RunOutcome outcome = run(chain, ToolRegistry.empty(), RunRequest.of("run-f", "solo", "hi"));

        assertThat(outcome.finalText()).isEqualTo("from local");
        assertThat(asked).containsExactly(ModelRef.parse("ollama:llama3"));
        assertThat(events)
                .filteredOn(AgentEvent.Status.class::isInstance)
                .extracting(e -> ((AgentEvent.Status) e).message())
                .contains("model fallback: remote:m unavailable (provider_circuit_open); answered by ollama:llama3");
        // The span is named after the model that answered; the configured one stays as an attribute.
        SpanData chat = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("chat llama3"))
                .findFirst()
                .orElseThrow();
        assertThat(chat.getAttributes().get(FallbackModelPort.FALLBACK)).isEqualTo("ollama:llama3");
        assertThat(chat.getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name")))
                .isEqualTo("ollama");
        assertThat(chat.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model")))
                .isEqualTo("llama3");
        assertThat(chat.getAttributes().get(AttributeKey.stringKey("cadre.model.configured")))
                .isEqualTo("remote:m");
    }

    @Test
    void aRejectedRequest_isNotRetriedOnTheFallback() throws Exception {
        List<ModelRef> asked = new CopyOnWriteArrayList<>();
        ModelPort chain = new FallbackModelPort(List.of(
                new FallbackModelPort.Choice(ModelRef.parse("remote:m"), request -> {
                    throw new ModelException("provider_rejected", "400: bad request");
                }),
                new FallbackModelPort.Choice(ModelRef.parse("ollama:llama3"), request -> {
                    asked.add(request.model());
                    return new ModelResponse("x", List.of(), TokenUsage.ZERO);
                })));
        RunOutcome outcome = run(chain, ToolRegistry.empty(), RunRequest.of("run-r", "solo", "hi"));
        assertThat(outcome.failure().code()).isEqualTo("provider_rejected");
        assertThat(asked).isEmpty();
    }

    @Test
    void theProvidersToolCallId_isKeptBesideTheStableId_forTheNextRequest() throws Exception {
        List<ModelRequest> requests = new CopyOnWriteArrayList<>();
        ModelPort model = request -> {
            requests.add(request);
            return requests.size() == 1
                    ? new ModelResponse(
                            null,
                            List.of(new ToolCall("toolu_01Abc", "echo", Fixtures.json("{}"), "toolu_01Abc")),
                            new TokenUsage(10, 2))
                    : new ModelResponse("done", List.of(), new TokenUsage(10, 2));
        };
        run(model, echo(), RunRequest.of("run-i", "solo", "hi"), "echo");

        AssistantMessage turn = requests.get(1).messages().stream()
                .filter(AssistantMessage.class::isInstance)
                .map(AssistantMessage.class::cast)
                .findFirst()
                .orElseThrow();
        ToolCall call = turn.toolCalls().getFirst();
        assertThat(call.id()).isEqualTo("call_1_1");
        assertThat(call.providerId()).isEqualTo("toolu_01Abc");
        assertThat(call.wireId()).isEqualTo("toolu_01Abc");
        assertThat(requests.get(1).deadline()).isNotNull();
    }
}
