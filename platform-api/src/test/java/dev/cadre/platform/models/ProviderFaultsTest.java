package dev.cadre.platform.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.FallbackModelPort;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UserMessage;
import dev.cadre.platform.observability.OutboundTraceContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.health.contributor.Health;
import tools.jackson.databind.JsonNode;

/**
 * Provider faults handled like an SRE would, against the local provider server: Retry-After honoured
 * (seconds and HTTP date) within the agent's deadline, a circuit breaker per endpoint (fail fast,
 * half-open probe, gauge, DEGRADED health), fallback models; and the wire details: max_completion_tokens,
 * provider tool-call ids, GenAI response attributes and the cost of a call.
 */
class ProviderFaultsTest {

    ReplayServer server = new ReplayServer();
    ReplayServer second = new ReplayServer();
    final AtomicLong clock = new AtomicLong();
    final Collected spans = new Collected();
    final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();

    /** Finished spans, kept in memory. */
    static final class Collected implements io.opentelemetry.sdk.trace.export.SpanExporter {
        private final List<SpanData> finished = new java.util.concurrent.CopyOnWriteArrayList<>();

        List<SpanData> getFinishedSpanItems() {
            return finished;
        }

        @Override
        public io.opentelemetry.sdk.common.CompletableResultCode export(java.util.Collection<SpanData> batch) {
            finished.addAll(batch);
            return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
        }

        @Override
        public io.opentelemetry.sdk.common.CompletableResultCode flush() {
            return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
        }

        @Override
        public io.opentelemetry.sdk.common.CompletableResultCode shutdown() {
            return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
        }
    }

    @AfterEach
    void stop() {
        server.close();
        second.close();
    }

    ModelsConfiguration.Providers providers(
            Map<String, ModelsProperties.Provider> configured,
            int attempts,
            int threshold,
            Map<String, ModelsProperties.Price> prices) {
        var props = new ModelsProperties(
                null,
                null,
                null,
                configured,
                new ModelsProperties.Retry(attempts, Duration.ofMillis(20), Duration.ofMillis(100)),
                null,
                null,
                new ModelsProperties.CircuitBreakerSettings(threshold, Duration.ofSeconds(30)),
                prices,
                "EUR");
        return new ModelsConfiguration.Providers(props.providers(), props, OutboundTraceContext.none(), clock::get);
    }

    ModelPort openai(String url, int attempts) {
        return providers(
                        Map.of("openai", new ModelsProperties.Provider("openai", url, "k", Duration.ofSeconds(5))),
                        attempts,
                        5,
                        Map.of())
                .model(ModelRef.parse("openai:test-model"))
                .orElseThrow();
    }

    static ModelRequest withDeadline(Instant deadline) {
        ModelRequest r = SpringAiModelPortTest.request();
        return new ModelRequest(
                r.runId(), r.sessionId(), r.agent(), r.model(), r.messages(), r.tools(), r.maxOutputTokens(), deadline);
    }

    @Test
    void retryAfterInSeconds_onA429_isWaitedBeforeTheNextAttempt() throws Exception {
        server.answer(429, SpringAiModelPortTest.OPENAI_429, Map.of("Retry-After", "1"))
                .answer(200, SpringAiModelPortTest.OPENAI_TEXT);

        ModelResponse r = openai(server.url("/v1"), 3).call(SpringAiModelPortTest.request());

        assertThat(r.text()).startsWith("CPU 97%");
        assertThat(server.requests).hasSize(2);
        // Measured by the server between the two requests it received: the back-off alone is 20 ms.
        assertThat(Duration.ofNanos(server.requests.get(1).atNanos()
                        - server.requests.get(0).atNanos()))
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void retryAfter_isHonouredOnAStreamingCallToo() throws Exception {
        server.answer(429, SpringAiModelPortTest.OPENAI_429, Map.of("Retry-After", "1"))
                .answerSse(ProviderStreamingTest.OPENAI_STREAM);
        List<String> pieces = new java.util.concurrent.CopyOnWriteArrayList<>();

        ModelResponse r = openai(server.url("/v1"), 3).stream(SpringAiModelPortTest.request(), pieces::add);

        assertThat(r.text()).isEqualTo("Checking CPU and memory.");
        assertThat(pieces).hasSize(3);
        assertThat(Duration.ofNanos(server.requests.get(1).atNanos()
                        - server.requests.get(0).atNanos()))
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void retryAfterAsAnHttpDate_onA503_isWaitedUntilThatTime() throws Exception {
        Instant at = Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(at.atZone(ZoneOffset.UTC));
        server.answer(503, SpringAiModelPortTest.OPENAI_500, Map.of("Retry-After", date))
                .answer(200, SpringAiModelPortTest.OPENAI_TEXT);

        openai(server.url("/v1"), 3).call(SpringAiModelPortTest.request());

        assertThat(server.requests).hasSize(2);
        assertThat(server.requests.get(1).at()).isAfterOrEqualTo(at);
    }

    @Test
    void aRetryAfterPastTheAgentsDeadline_failsAtOnce_asRateLimitedNotAsATimeout() {
        server.answer(429, SpringAiModelPortTest.OPENAI_429, Map.of("Retry-After", "5"))
                .answer(200, SpringAiModelPortTest.OPENAI_TEXT);
        ModelPort port = openai(server.url("/v1"), 3);

        assertThatThrownBy(() -> port.call(withDeadline(Instant.now().plusSeconds(2))))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.code()).isEqualTo("provider_rate_limited");
                    assertThat(e.category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR);
                    assertThat(e.getMessage()).contains("deadline");
                });
        assertThat(server.requests).hasSize(1);
    }

    @Test
    void retryAfter_parsesSecondsAndHttpDates() {
        Instant now = Instant.parse("2026-12-03T10:00:00Z");
        assertThat(RetryAfter.parse("2", now)).isEqualTo(Duration.ofSeconds(2));
        assertThat(RetryAfter.parse("Thu, 03 Dec 2026 10:00:07 GMT", now)).isEqualTo(Duration.ofSeconds(7));
        assertThat(RetryAfter.parse("Thu, 03 Dec 2026 09:00:00 GMT", now)).isEqualTo(Duration.ZERO);
        assertThat(RetryAfter.parse("soon", now)).isNull();
    }

    @Test
    void theCircuitOpensAfterRepeatedFailures_failsFast_thenRecoversThroughAHalfOpenProbe() throws Exception {
        var providers = providers(
                Map.of(
                        "openai",
                        new ModelsProperties.Provider("openai", server.url("/v1"), "k", Duration.ofSeconds(5))),
                2,
                2,
                Map.of());
        ModelPort port = providers.model(ModelRef.parse("openai:test-model")).orElseThrow();
        MeterRegistry registry = new SimpleMeterRegistry();
        ModelsConfiguration config = new ModelsConfiguration();
        ProviderCircuits circuits = config.providerCircuits(
                providers,
                new StaticListableBeanFactory(Map.of("registry", registry)).getBeanProvider(MeterRegistry.class));
        var health = config.modelProviders(circuits);
        java.util.function.DoubleSupplier gauge = () -> registry.get("cadre.provider.circuit.state")
                .tag("provider", "openai")
                .gauge()
                .value();
        assertThat(gauge.getAsDouble()).isEqualTo(0.0);
        assertThat(health.health().getStatus().getCode()).isEqualTo("UP");

        server.answer(500, SpringAiModelPortTest.OPENAI_500).answer(502, SpringAiModelPortTest.OPENAI_500);
        assertThatThrownBy(() -> port.call(SpringAiModelPortTest.request()))
                .isInstanceOfSatisfying(
                        ModelException.class, e -> assertThat(e.code()).isEqualTo("provider_unavailable"));
        assertThat(gauge.getAsDouble()).isEqualTo(1.0);

        // Open: no request reaches the provider.
        assertThatThrownBy(() -> port.call(SpringAiModelPortTest.request()))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.code()).isEqualTo("provider_circuit_open");
                    assertThat(e.category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR);
                });
        assertThat(server.requests).hasSize(2);
        Health degraded = health.health();
        assertThat(degraded.getStatus().getCode()).isEqualTo("DEGRADED");
        assertThat(degraded.getDetails()).containsEntry("circuits", Map.of("openai", "open"));

        // After the open duration one probe goes through; it fails, so the circuit opens again.
        clock.addAndGet(Duration.ofSeconds(31).toNanos());
        assertThat(gauge.getAsDouble()).isEqualTo(2.0);
        server.answer(503, SpringAiModelPortTest.OPENAI_500);
        assertThatThrownBy(() -> port.call(SpringAiModelPortTest.request()))
                .isInstanceOfSatisfying(
                        ModelException.class, e -> assertThat(e.code()).isEqualTo("provider_unavailable"));
        assertThat(server.requests).hasSize(3); // the probe only: no retry while half-open
        assertThat(gauge.getAsDouble()).isEqualTo(1.0);

        // Next probe succeeds: closed again.
        clock.addAndGet(Duration.ofSeconds(31).toNanos());
        server.answer(200, SpringAiModelPortTest.OPENAI_TEXT);
        assertThat(port.call(SpringAiModelPortTest.request()).text()).startsWith("CPU 97%");
        assertThat(gauge.getAsDouble()).isEqualTo(0.0);
        assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
    }

    @Test
    void aFallbackModel_answersWhenThePrimaryStaysUnavailable_recordedOnTheChatSpan() throws Exception {
        var configured = new LinkedHashMap<String, ModelsProperties.Provider>();
        configured.put(
                "openai", new ModelsProperties.Provider("openai", server.url("/v1"), "k", Duration.ofSeconds(5)));
        configured.put("ollama", new ModelsProperties.Provider("ollama", second.url(""), null, Duration.ofSeconds(5)));
        var providers = providers(configured, 2, 5, Map.of());
        ModelPort chain = new FallbackModelPort(List.of(
                new FallbackModelPort.Choice(
                        ModelRef.parse("openai:primary"),
                        providers.model(ModelRef.parse("openai:primary")).orElseThrow()),
                new FallbackModelPort.Choice(
                        ModelRef.parse("ollama:local"),
                        providers.model(ModelRef.parse("ollama:local")).orElseThrow())));
        server.answer(503, SpringAiModelPortTest.OPENAI_500).answer(503, SpringAiModelPortTest.OPENAI_500);
        second.answer(200, SpringAiModelPortTest.OLLAMA_TEXT);

        Span chat = otel.getTracer("test").spanBuilder("chat primary").startSpan();
        ModelResponse r;
        try (Scope ignored = chat.makeCurrent()) {
            r = chain.call(SpringAiModelPortTest.request());
        } finally {
            chat.end();
        }

        assertThat(r.text()).isEqualTo("ok");
        assertThat(r.fallback())
                .isEqualTo("openai:primary unavailable (provider_unavailable); answered by ollama:local");
        assertThat(server.requests).hasSize(2);
        assertThat(SpringAiModelPortTest.JSON
                        .readTree(second.requests.getFirst().body())
                        .get("model")
                        .asString())
                .isEqualTo("local");
        assertThat(spans.getFinishedSpanItems().getFirst().getAttributes().get(FallbackModelPort.FALLBACK))
                .isEqualTo("ollama:local");
    }

    @Test
    void maxCompletionTokens_isSentInsteadOfMaxTokens_whenTheProviderIsConfiguredSo() throws Exception {
        server.answer(200, SpringAiModelPortTest.OPENAI_TEXT).answer(200, SpringAiModelPortTest.OPENAI_TEXT);
        var configured = Map.of(
                "reasoning",
                new ModelsProperties.Provider(
                        "openai", server.url("/v1"), "k", Duration.ofSeconds(5), null, "max_completion_tokens", null),
                "plain",
                new ModelsProperties.Provider("openai", server.url("/v1"), "k", Duration.ofSeconds(5)));
        var providers = providers(configured, 1, 5, Map.of());
        providers.model(ModelRef.parse("reasoning:o3-mini")).orElseThrow().call(SpringAiModelPortTest.request());
        providers.model(ModelRef.parse("plain:gpt-4o")).orElseThrow().call(SpringAiModelPortTest.request());

        JsonNode reasoning =
                SpringAiModelPortTest.JSON.readTree(server.requests.get(0).body());
        assertThat(reasoning.get("max_completion_tokens").asInt()).isEqualTo(1000);
        assertThat(reasoning.has("max_tokens")).isFalse();
        JsonNode plain =
                SpringAiModelPortTest.JSON.readTree(server.requests.get(1).body());
        assertThat(plain.get("max_tokens").asInt()).isEqualTo(1000);
        assertThat(plain.has("max_completion_tokens")).isFalse();
    }

    @Test
    void theProvidersToolCallIds_goBackToIt_withTheCallAndItsResult() throws Exception {
        server.answer(200, SpringAiModelPortTest.OPENAI_TEXT);
        ModelRequest base = SpringAiModelPortTest.request();
        ModelRequest r = new ModelRequest(
                base.runId(),
                base.sessionId(),
                base.agent(),
                base.model(),
                List.of(
                        new UserMessage("check web-1"),
                        new AssistantMessage(
                                null,
                                List.of(new ToolCall(
                                        "call_1_1",
                                        "host_metrics",
                                        SpringAiModelPortTest.JSON.readTree("{\"resource\":\"cpu\"}"),
                                        "call_cpu_1"))),
                        new ToolResultMessage("call_1_1", "host_metrics", "{\"cpu\":0.97}", false)),
                base.tools(),
                base.maxOutputTokens());

        openai(server.url("/v1"), 1).call(r);

        JsonNode messages = SpringAiModelPortTest.JSON
                .readTree(server.requests.getFirst().body())
                .get("messages");
        assertThat(messages.get(1).get("tool_calls").get(0).get("id").asString())
                .isEqualTo("call_cpu_1");
        assertThat(messages.get(2).get("tool_call_id").asString()).isEqualTo("call_cpu_1");
    }

    @Test
    void theChatSpanGetsTheGenAiResponseAttributes_andTheCallItsPrice() throws Exception {
        server.answer(200, SpringAiModelPortTest.OPENAI_TEXT);
        var providers = providers(
                Map.of(
                        "openai",
                        new ModelsProperties.Provider(
                                "openai", server.url("/v1"), "k", Duration.ofSeconds(5), null, null, 0.2)),
                1,
                5,
                Map.of("test-model", new ModelsProperties.Price(2.5, 10.0, null)));
        ModelPort port = providers.model(ModelRef.parse("openai:test-model")).orElseThrow();

        Span chat = otel.getTracer("test").spanBuilder("chat test-model").startSpan();
        ModelResponse r;
        try (Scope ignored = chat.makeCurrent()) {
            r = port.call(SpringAiModelPortTest.request());
        } finally {
            chat.end();
        }

        // 260 input tokens at 2.5 per million, 14 output tokens at 10 per million.
        assertThat(r.cost()).isCloseTo(260 * 2.5 / 1e6 + 14 * 10.0 / 1e6, org.assertj.core.data.Offset.offset(1e-12));
        SpanData span = spans.getFinishedSpanItems().getFirst();
        assertThat(span.getAttributes().get(AttributeKey.stringKey("gen_ai.response.model")))
                .isEqualTo("gpt-4o-mini-2024-07-18");
        assertThat(span.getAttributes().get(AttributeKey.stringKey("gen_ai.response.id")))
                .isEqualTo("chatcmpl-BxQ3nA1");
        assertThat(span.getAttributes().get(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons")))
                .containsExactly("stop");
        assertThat(span.getAttributes().get(AttributeKey.longKey("gen_ai.request.max_tokens")))
                .isEqualTo(1000L);
        assertThat(span.getAttributes().get(AttributeKey.doubleKey("gen_ai.request.temperature")))
                .isEqualTo(0.2);
        assertThat(SpringAiModelPortTest.JSON
                        .readTree(server.requests.getFirst().body())
                        .get("temperature")
                        .asDouble())
                .isEqualTo(0.2);
    }
}
