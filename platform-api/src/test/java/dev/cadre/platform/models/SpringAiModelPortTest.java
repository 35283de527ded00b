package dev.cadre.platform.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.SystemMessage;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UserMessage;
import dev.cadre.platform.observability.OutboundTraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Spring AI adapter against a local server replaying recorded provider answers: OpenAI-compatible
 * chat completions (tool calls, usage, 429/5xx retries, auth errors, malformed JSON, slow answers),
 * Anthropic messages and Ollama's native chat.
 */
class SpringAiModelPortTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    static final String OPENAI_TOOL_CALL = """
            {"id":"chatcmpl-BxQ3mT9","object":"chat.completion","created":1746672000,"model":"gpt-4o-mini-2024-07-18",
             "choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"annotations":[],
               "tool_calls":[{"id":"call_cpu_1","type":"function","function":{"name":"host_metrics","arguments":"{\\"resource\\":\\"cpu\\"}"}},
                             {"id":"call_mem_2","type":"function","function":{"name":"host_metrics","arguments":"{\\"resource\\":\\"memory\\"}"}}]},
               "logprobs":null,"finish_reason":"tool_calls"}],
             "usage":{"prompt_tokens":182,"completion_tokens":41,"total_tokens":223,
               "prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
               "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
             "service_tier":"default","system_fingerprint":"fp_560af6e559"}
            """;

    static final String OPENAI_TEXT = """
            {"id":"chatcmpl-BxQ3nA1","object":"chat.completion","created":1746672001,"model":"gpt-4o-mini-2024-07-18",
             "choices":[{"index":0,"message":{"role":"assistant","content":"CPU 97%, memory 40%: one critical finding.","refusal":null,"annotations":[]},
               "logprobs":null,"finish_reason":"stop"}],
             "usage":{"prompt_tokens":260,"completion_tokens":14,"total_tokens":274},"system_fingerprint":"fp_560af6e559"}
            """;

    static final String OPENAI_429 = """
            {"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}
            """;

    static final String OPENAI_500 = """
            {"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}
            """;

    ReplayServer server = new ReplayServer();
    final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();

    @AfterEach
    void stop() {
        server.close();
    }

    private ModelPort port(String provider, String type, String baseUrl, Duration timeout) {
        return port(provider, type, baseUrl, timeout, null);
    }

    private ModelPort port(
            String provider, String type, String baseUrl, Duration timeout, ModelsProperties.Price price) {
        var props = new ModelsProperties(
                null,
                null,
                null,
                Map.of(provider, new ModelsProperties.Provider(type, baseUrl, "sk-test", timeout)),
                new ModelsProperties.Retry(3, Duration.ofMillis(20), Duration.ofMillis(100)),
                null,
                null,
                null,
                price == null ? null : Map.of("test-model", price),
                null);
        var providers = new ModelsConfiguration.Providers(
                Map.of(provider, props.providers().get(provider)), props, new OutboundTraceContext(otel));
        return providers.model(ModelRef.parse(provider + ":test-model")).orElseThrow();
    }

    static ModelRequest request() {
        ToolDefinition metrics = new ToolDefinition(
                "host_metrics",
                "Measure CPU, memory and disk of the host.",
                JSON.readTree("{\"type\":\"object\",\"properties\":{\"resource\":{\"type\":\"string\"}}}"));
        return new ModelRequest(
                "run-1",
                "run-1",
                "cpu-inspector",
                ModelRef.parse("openai:test-model"),
                List.of(
                        new SystemMessage("You inspect hosts."),
                        new UserMessage("check web-1"),
                        new AssistantMessage(
                                "Measuring.",
                                List.of(new ToolCall(
                                        "call_0", "host_metrics", JSON.readTree("{\"resource\":\"disk\"}")))),
                        new ToolResultMessage("call_0", "host_metrics", "{\"disk\":0.4}", false)),
                List.of(metrics),
                1000);
    }

    @Test
    void openAiCompatible_toolCallsAndUsageComeFromTheResponse_andTheRequestCarriesToolsAndHistory() throws Exception {
        server.answer(200, OPENAI_TOOL_CALL).answer(200, OPENAI_TEXT);
        ModelPort port = port("vllm", "openai", server.url("/v1"), Duration.ofSeconds(5));

        ModelResponse r = port.call(request());
        assertThat(r.toolCalls()).extracting(ToolCall::id).containsExactly("call_cpu_1", "call_mem_2");
        assertThat(r.toolCalls().getFirst().name()).isEqualTo("host_metrics");
        assertThat(r.toolCalls().getFirst().arguments().get("resource").asString())
                .isEqualTo("cpu");
        assertThat(r.usage().inputTokens()).isEqualTo(182);
        assertThat(r.usage().outputTokens()).isEqualTo(41);
        assertThat(r.truncated()).isFalse();

        ReplayServer.Request sent = server.requests.getFirst();
        assertThat(sent.path()).isEqualTo("/v1/chat/completions");
        JsonNode body = JSON.readTree(sent.body());
        assertThat(body.get("model").asString()).isEqualTo("test-model");
        assertThat(body.get("tools").get(0).get("function").get("name").asString())
                .isEqualTo("host_metrics");
        assertThat(body.get("messages").valueStream().map(m -> m.get("role").asString()))
                .containsExactly("system", "user", "assistant", "tool");
        assertThat(body.get("messages").get(3).get("tool_call_id").asString()).isEqualTo("call_0");
        // Tool output reaches the model fenced as data; the instructions explain the fence first.
        assertThat(body.get("messages").get(3).get("content").asString())
                .isEqualTo(dev.cadre.agent.model.UntrustedText.fence("tool", "{\"disk\":0.4}"));
        assertThat(body.get("messages").get(0).get("content").asString())
                .startsWith(dev.cadre.agent.model.UntrustedText.SYSTEM_NOTE)
                .endsWith("You inspect hosts.");
        assertThat(body.get("messages")
                        .get(2)
                        .get("tool_calls")
                        .get(0)
                        .get("id")
                        .asString())
                .isEqualTo("call_0");

        ModelResponse text = port.call(request());
        assertThat(text.text()).isEqualTo("CPU 97%, memory 40%: one critical finding.");
        assertThat(text.toolCalls()).isEmpty();
        assertThat(text.usage().inputTokens()).isEqualTo(260);
    }

    @Test
    void rateLimitedAndServerErrors_areRetriedWithBackOff_thenSucceed() throws Exception {
        server.answer(429, OPENAI_429).answer(503, OPENAI_500).answer(200, OPENAI_TEXT);
        ModelResponse r = port("openai", "openai", server.url("/v1"), Duration.ofSeconds(5))
                .call(request());
        assertThat(r.text()).startsWith("CPU 97%");
        assertThat(server.requests).hasSize(3);
    }

    @Test
    void persistentServerErrors_failAfterTheLastAttempt_asACommunicationErrorCode() {
        server.answer(500, OPENAI_500)
                .answer(500, OPENAI_500)
                .answer(500, OPENAI_500)
                .answer(200, OPENAI_TEXT);
        assertThatThrownBy(() -> port("openai", "openai", server.url("/v1"), Duration.ofSeconds(5))
                        .call(request()))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.code()).isEqualTo("provider_unavailable");
                    assertThat(e.getMessage()).contains("after 3 attempts");
                });
        assertThat(server.requests).hasSize(3);
    }

    @Test
    void badCredentials_areNotRetried() {
        server.answer(
                401,
                "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}");
        assertThatThrownBy(() -> port("openai", "openai", server.url("/v1"), Duration.ofSeconds(5))
                        .call(request()))
                .isInstanceOfSatisfying(
                        ModelException.class, e -> assertThat(e.code()).isEqualTo("provider_auth"));
        assertThat(server.requests).hasSize(1);
    }

    @Test
    void malformedJson_isACommunicationError_butMalformedToolArguments_reachTheLoopAsTheRawText() throws Exception {
        server.answer(200, "{\"id\":\"chatcmpl-x\",\"choices\":[{\"index\":0,\"message\":");
        assertThatThrownBy(() -> port("openai", "openai", server.url("/v1"), Duration.ofSeconds(5))
                        .call(request()))
                .isInstanceOf(ModelException.class);

        // The loop answers such a call with an invalid_arguments result the model can correct.
        server.answer(200, OPENAI_TOOL_CALL.replace("{\\\"resource\\\":\\\"cpu\\\"}", "{resource: cpu"));
        ModelResponse response = port("openai2", "openai", server.url("/v1"), Duration.ofSeconds(5))
                .call(request());
        assertThat(response.toolCalls()).hasSize(2);
        assertThat(response.toolCalls().getFirst().arguments().isString()).isTrue();
        assertThat(response.toolCalls().getFirst().arguments().stringValue()).isEqualTo("{resource: cpu");
        assertThat(response.toolCalls().get(1).arguments().toString()).isEqualTo("{\"resource\":\"memory\"}");
        // Sent back in the history as an object, which every provider's API accepts.
        var replayed = (org.springframework.ai.chat.messages.AssistantMessage)
                SpringAiModelPort.messages(List.of(new AssistantMessage(null, response.toolCalls())))
                        .getFirst();
        assertThat(replayed.getToolCalls())
                .extracting(org.springframework.ai.chat.messages.AssistantMessage.ToolCall::arguments)
                .containsExactly("{}", "{\"resource\":\"memory\"}");
    }

    @Test
    void aSlowAnswer_timesOut_isRetried_andReportedAsProviderTimeout() {
        for (int i = 0; i < 3; i++) {
            server.answerSlowly(2000, OPENAI_TEXT);
        }
        ModelPort port = port("openai", "openai", server.url("/v1"), Duration.ofMillis(300));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> port.call(request())).isInstanceOfSatisfying(ModelException.class, e -> {
            assertThat(e.code()).isEqualTo("provider_timeout");
            assertThat(e.category()).isEqualTo(dev.cadre.agent.FailureCategory.TIMEOUT_ERROR);
        });
        // Each answer would come after 2 s and succeed: failing at all proves the 300 ms timeout; the bound
        // is loose because the first call also initialises the SDK client on a busy machine.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(20));
        assertThat(server.requests).hasSize(3);
    }

    @Test
    void anthropic_toolUseAndUsage() throws Exception {
        server.answer(200, """
                {"id":"msg_01Aq9w938a90dw8q","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
                 "content":[{"type":"text","text":"Checking CPU first."},
                            {"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"host_metrics","input":{"resource":"cpu"}}],
                 "stop_reason":"tool_use","stop_sequence":null,
                 "usage":{"input_tokens":410,"output_tokens":52,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}
                """);
        ModelResponse r = port("claude", "anthropic", server.url(""), Duration.ofSeconds(5))
                .call(request());
        assertThat(r.text()).isEqualTo("Checking CPU first.");
        assertThat(r.toolCalls()).singleElement().satisfies(c -> {
            assertThat(c.id()).isEqualTo("toolu_01A09q90qw90lq917835lq9");
            assertThat(c.arguments().get("resource").asString()).isEqualTo("cpu");
        });
        assertThat(r.usage().inputTokens()).isEqualTo(410);
        assertThat(r.usage().outputTokens()).isEqualTo(52);
        assertThat(server.requests.getFirst().path()).isEqualTo("/v1/messages");
    }

    @Test
    void anthropic_promptCacheTokens_countInTheInput_areReportedApart_andPricedAtTheirOwnRates() throws Exception {
        // A turn whose prompt was mostly cached: Anthropic's input_tokens leaves the cached part out.
        server.answer(200, """
                {"id":"msg_01C","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
                 "content":[{"type":"text","text":"Same host, same answer."}],
                 "stop_reason":"end_turn","stop_sequence":null,
                 "usage":{"input_tokens":3,"output_tokens":52,"cache_creation_input_tokens":120,"cache_read_input_tokens":2900}}
                """);
        ModelResponse r = port(
                        "claude",
                        "anthropic",
                        server.url(""),
                        Duration.ofSeconds(5),
                        new ModelsProperties.Price(3.0, 15.0, null, 0.3, 3.75))
                .call(request());

        assertThat(r.usage()).isEqualTo(new dev.cadre.agent.TokenUsage(3023, 52, 2900, 120));
        // 3 x 3.0 + 2900 x 0.3 + 120 x 3.75 + 52 x 15.0 per million
        assertThat(r.cost()).isEqualTo(0.002109);
    }

    @Test
    void openAi_cachedTokens_areAlreadyPartOfThePromptTokens_andTheCostIsRoundedToMicroUnits() throws Exception {
        server.answer(200, """
                {"id":"chatcmpl-C1","object":"chat.completion","created":1746672001,"model":"gpt-4o-mini-2024-07-18",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":1,"completion_tokens":105,"total_tokens":106,
                   "prompt_tokens_details":{"cached_tokens":0}}}
                """);
        server.answer(200, """
                {"id":"chatcmpl-C2","object":"chat.completion","created":1746672002,"model":"gpt-4o-mini-2024-07-18",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,
                   "prompt_tokens_details":{"cached_tokens":1920}}}
                """);
        ModelPort port = port(
                "openai",
                "openai",
                server.url("/v1"),
                Duration.ofSeconds(5),
                new ModelsProperties.Price(2.5, 10.0, null, 1.25, null));

        ModelResponse small = port.call(request());
        // 1 x 2.5 + 105 x 10 per million is 0.0010524999999999998 in doubles
        assertThat(small.cost()).isEqualTo(0.001053);
        assertThat(JSON.writeValueAsString(small.cost())).isEqualTo("0.001053");

        ModelResponse cached = port.call(request());
        assertThat(cached.usage()).isEqualTo(new dev.cadre.agent.TokenUsage(2006, 300, 1920, 0));
        // 86 x 2.5 + 1920 x 1.25 + 300 x 10 per million
        assertThat(cached.cost()).isEqualTo(0.005615);
    }

    @Test
    void ollamaNative_toolCallsAndEvalCounts() throws Exception {
        server.answer(200, """
                {"model":"llama3.1","created_at":"2026-05-08T03:00:00.000Z",
                 "message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"host_metrics","arguments":{"resource":"cpu"}}}]},
                 "done_reason":"stop","done":true,"total_duration":912345678,"load_duration":1234567,
                 "prompt_eval_count":120,"prompt_eval_duration":21345678,"eval_count":20,"eval_duration":3456789}
                """);
        ModelResponse r =
                port("ollama", "ollama", server.url(""), Duration.ofSeconds(5)).call(request());
        assertThat(r.toolCalls())
                .singleElement()
                .satisfies(c -> assertThat(c.name()).isEqualTo("host_metrics"));
        assertThat(r.usage().inputTokens()).isEqualTo(120);
        assertThat(r.usage().outputTokens()).isEqualTo(20);
        assertThat(server.requests.getFirst().path()).isEqualTo("/api/chat");
    }

    @Test
    void withNothingConfigured_onlyTheScriptedProviderExists() {
        var none = new ModelsConfiguration.Providers(
                Map.of(), new ModelsProperties(null, null, null, null, null, null, null), OutboundTraceContext.none());
        assertThat(none.providers()).containsExactly("scripted");
        assertThat(none.model(ModelRef.parse("openai:gpt-4o"))).isEmpty();
    }

    static final String ANTHROPIC_TEXT = """
            {"id":"msg_01","type":"message","role":"assistant","model":"claude-test",
             "content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,
             "usage":{"input_tokens":12,"output_tokens":3}}
            """;

    static final String OLLAMA_TEXT = """
            {"model":"test-model","created_at":"2026-12-02T10:00:00Z","message":{"role":"assistant","content":"ok"},
             "done":true,"done_reason":"stop","prompt_eval_count":12,"eval_count":3}
            """;

    /** Each provider's HTTP request carries the W3C context of the span current during the call. */
    @ParameterizedTest
    @CsvSource({"vllm,openai,/v1", "claude,anthropic,", "local,ollama,"})
    void theProviderRequestCarriesTheCurrentTraceContext(String provider, String type, String path) throws Exception {
        server.answer(
                200,
                switch (type) {
                    case "openai" -> OPENAI_TEXT;
                    case "anthropic" -> ANTHROPIC_TEXT;
                    default -> OLLAMA_TEXT;
                });
        ModelPort port = port(provider, type, server.url(path == null ? "" : path), Duration.ofSeconds(5));
        Span chat = otel.getTracer("test").spanBuilder("chat test-model").startSpan();
        try (Scope ignored = chat.makeCurrent()) {
            port.call(request());
        } finally {
            chat.end();
        }
        String traceparent = server.requests.getFirst().header("traceparent");
        assertThat(traceparent)
                .as("traceparent sent to " + type)
                .isEqualTo("00-" + chat.getSpanContext().getTraceId() + "-"
                        + chat.getSpanContext().getSpanId() + "-01");
    }

    @Test
    void withoutACurrentSpan_noTraceparentIsInvented() throws Exception {
        server.answer(200, OPENAI_TEXT);
        port("vllm", "openai", server.url("/v1"), Duration.ofSeconds(5)).call(request());
        assertThat(server.requests.getFirst().header("traceparent")).isNull();
    }
}
