package dev.cadre.platform.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.platform.observability.OutboundTraceContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Streaming against a local server speaking each provider's real streaming wire format: OpenAI-compatible
 * Server-Sent Events ({@code data:} chunks, {@code [DONE]}, usage in the final chunk), Anthropic's named
 * events ({@code message_start}, {@code content_block_delta}, {@code message_delta}) and Ollama's NDJSON.
 */
class ProviderStreamingTest {

    static final String HEAD = "{\"id\":\"chatcmpl-S1\",\"object\":\"chat.completion.chunk\",\"created\":1746672000,"
            + "\"model\":\"gpt-4o-mini-2024-07-18\",\"system_fingerprint\":\"fp_1\",\"choices\":";

    static String delta(String delta, String finish) {
        return HEAD + "[{\"index\":0,\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":" + finish + "}]}";
    }

    /** Text in three pieces, then two tool calls whose fragments interleave by index, then usage. */
    static final List<String> OPENAI_STREAM = List.of(
            delta("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}", "null"),
            delta("{\"content\":\"Checking \"}", "null"),
            delta("{\"content\":\"CPU and \"}", "null"),
            delta("{\"content\":\"memory.\"}", "null"),
            delta(
                    "{\"tool_calls\":[{\"index\":0,\"id\":\"call_cpu_1\",\"type\":\"function\",\"function\":{\"name\":\"host_metrics\",\"arguments\":\"\"}}]}",
                    "null"),
            delta(
                    "{\"tool_calls\":[{\"index\":1,\"id\":\"call_mem_2\",\"type\":\"function\",\"function\":{\"name\":\"host_metrics\",\"arguments\":\"{\\\"reso\"}}]}",
                    "null"),
            delta("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"resource\\\"\"}}]}", "null"),
            delta("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"urce\\\":\\\"memory\\\"}\"}}]}", "null"),
            delta("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":\\\"cpu\\\"}\"}}]}", "null"),
            delta("{}", "\"tool_calls\""),
            HEAD + "[],\"usage\":{\"prompt_tokens\":182,\"completion_tokens\":41,\"total_tokens\":223}}");

    ReplayServer server = new ReplayServer();

    @AfterEach
    void stop() {
        server.close();
    }

    ModelPort port(String provider, String type, String url) {
        var props = new ModelsProperties(
                null,
                null,
                null,
                Map.of(provider, new ModelsProperties.Provider(type, url, "sk-test", Duration.ofSeconds(5))),
                new ModelsProperties.Retry(3, Duration.ofMillis(20), Duration.ofMillis(100)),
                null,
                null);
        return new ModelsConfiguration.Providers(props.providers(), props, OutboundTraceContext.none())
                .model(ModelRef.parse(provider + ":test-model"))
                .orElseThrow();
    }

    @Test
    void openAiCompatible_textPiecesArriveAsSent_interleavedToolCallFragmentsAreAssembled_usageFromTheLastChunk()
            throws Exception {
        server.answerSse(OPENAI_STREAM);
        List<String> pieces = new CopyOnWriteArrayList<>();

        ModelResponse r =
                port("vllm", "openai", server.url("/v1")).stream(SpringAiModelPortTest.request(), pieces::add);

        assertThat(pieces).containsExactly("Checking ", "CPU and ", "memory.");
        assertThat(r.text()).isEqualTo("Checking CPU and memory.");
        assertThat(r.toolCalls()).extracting(ToolCall::providerId).containsExactly("call_cpu_1", "call_mem_2");
        assertThat(r.toolCalls())
                .extracting(c -> c.arguments().get("resource").asString())
                .containsExactly("cpu", "memory");
        assertThat(r.usage().inputTokens()).isEqualTo(182);
        assertThat(r.usage().outputTokens()).isEqualTo(41);

        JsonNode body =
                SpringAiModelPortTest.JSON.readTree(server.requests.getFirst().body());
        assertThat(body.get("stream").asBoolean()).isTrue();
        assertThat(body.get("stream_options").get("include_usage").asBoolean()).isTrue();
    }

    @Test
    void openAiCompatible_withStreamingOff_answersInOnePiece() throws Exception {
        server.answer(200, SpringAiModelPortTest.OPENAI_TEXT);
        var props = new ModelsProperties(
                null,
                null,
                null,
                Map.of(
                        "vllm",
                        new ModelsProperties.Provider(
                                "openai", server.url("/v1"), "k", Duration.ofSeconds(5), false, null, null)),
                null,
                null,
                null);
        ModelPort port = new ModelsConfiguration.Providers(props.providers(), props, OutboundTraceContext.none())
                .model(ModelRef.parse("vllm:test-model"))
                .orElseThrow();
        List<String> pieces = new CopyOnWriteArrayList<>();
        ModelResponse r = port.stream(SpringAiModelPortTest.request(), pieces::add);
        assertThat(pieces).isEmpty();
        assertThat(r.text()).startsWith("CPU 97%");
        assertThat(SpringAiModelPortTest.JSON
                        .readTree(server.requests.getFirst().body())
                        .path("stream")
                        .asBoolean(false))
                .isFalse();
    }

    @Test
    void anthropic_textDeltasStream_toolUseInputJsonIsAssembled_usageFromMessageStartAndDelta() throws Exception {
        server.answerNamedSse(List.of(
                new String[] {
                    "message_start",
                    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01S\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
                            + "\"model\":\"claude-sonnet-4-5-20250929\",\"stop_reason\":null,\"stop_sequence\":null,"
                            + "\"usage\":{\"input_tokens\":410,\"output_tokens\":1}}}"
                },
                new String[] {
                    "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"
                },
                new String[] {"ping", "{\"type\":\"ping\"}"},
                new String[] {
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Checking \"}}"
                },
                new String[] {
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"CPU first.\"}}"
                },
                new String[] {"content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"},
                new String[] {
                    "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01A09q\","
                            + "\"name\":\"host_metrics\",\"input\":{}}}"
                },
                new String[] {
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}"
                },
                new String[] {
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"resource\\\": \"}}"
                },
                new String[] {
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"cpu\\\"}\"}}"
                },
                new String[] {"content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}"},
                new String[] {
                    "message_delta",
                    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":52}}"
                },
                new String[] {"message_stop", "{\"type\":\"message_stop\"}"}));
        List<String> pieces = new CopyOnWriteArrayList<>();

        ModelResponse r =
                port("claude", "anthropic", server.url("")).stream(SpringAiModelPortTest.request(), pieces::add);

        assertThat(pieces).containsExactly("Checking ", "CPU first.");
        assertThat(r.text()).isEqualTo("Checking CPU first.");
        assertThat(r.toolCalls()).singleElement().satisfies(c -> {
            assertThat(c.providerId()).isEqualTo("toolu_01A09q");
            assertThat(c.name()).isEqualTo("host_metrics");
            assertThat(c.arguments().get("resource").asString()).isEqualTo("cpu");
        });
        assertThat(r.usage().inputTokens()).isEqualTo(410);
        assertThat(r.usage().outputTokens()).isEqualTo(52);
        assertThat(SpringAiModelPortTest.JSON
                        .readTree(server.requests.getFirst().body())
                        .get("stream")
                        .asBoolean())
                .isTrue();
    }

    @Test
    void anthropic_streamedPromptCacheTokens_countInTheInput_andAreReportedApart() throws Exception {
        server.answerNamedSse(List.of(
                new String[] {
                    "message_start",
                    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01K\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
                            + "\"model\":\"claude-sonnet-4-5-20250929\",\"stop_reason\":null,\"stop_sequence\":null,"
                            + "\"usage\":{\"input_tokens\":3,\"cache_creation_input_tokens\":120,\"cache_read_input_tokens\":2900,\"output_tokens\":1}}}"
                },
                new String[] {
                    "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"
                },
                new String[] {
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Same answer.\"}}"
                },
                new String[] {"content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"},
                new String[] {
                    "message_delta",
                    // Anthropic's message_delta carries the cumulative counts, cache ones included: that is
                    // where Spring AI 2.0.1 reads them (it keeps only input_tokens of message_start).
                    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
                            + "\"usage\":{\"input_tokens\":3,\"cache_creation_input_tokens\":120,\"cache_read_input_tokens\":2900,"
                            + "\"output_tokens\":52}}"
                },
                new String[] {"message_stop", "{\"type\":\"message_stop\"}"}));

        ModelResponse r =
                port("claude", "anthropic", server.url("")).stream(SpringAiModelPortTest.request(), piece -> {});

        assertThat(r.text()).isEqualTo("Same answer.");
        assertThat(r.usage()).isEqualTo(new dev.cadre.agent.TokenUsage(3023, 52, 2900, 120));
    }

    @Test
    void ollama_ndjsonPiecesStream_andTheLastLineCarriesTheCounts() throws Exception {
        server.answerNdjson(
                List.of(
                        "{\"model\":\"llama3.1\",\"created_at\":\"2026-12-03T10:00:00.000Z\",\"message\":{\"role\":\"assistant\",\"content\":\"CPU \"},\"done\":false}",
                        "{\"model\":\"llama3.1\",\"created_at\":\"2026-12-03T10:00:00.050Z\",\"message\":{\"role\":\"assistant\",\"content\":\"is at 97%.\"},\"done\":false}",
                        "{\"model\":\"llama3.1\",\"created_at\":\"2026-12-03T10:00:00.090Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},"
                                + "\"done_reason\":\"stop\",\"done\":true,\"total_duration\":912345678,\"load_duration\":1234567,"
                                + "\"prompt_eval_count\":120,\"prompt_eval_duration\":21345678,\"eval_count\":20,\"eval_duration\":3456789}"));
        List<String> pieces = new CopyOnWriteArrayList<>();

        ModelResponse r = port("local", "ollama", server.url("")).stream(SpringAiModelPortTest.request(), pieces::add);

        assertThat(pieces).containsExactly("CPU ", "is at 97%.");
        assertThat(r.text()).isEqualTo("CPU is at 97%.");
        assertThat(r.usage().inputTokens()).isEqualTo(120);
        assertThat(r.usage().outputTokens()).isEqualTo(20);
        assertThat(server.requests.getFirst().path()).isEqualTo("/api/chat");
        assertThat(SpringAiModelPortTest.JSON
                        .readTree(server.requests.getFirst().body())
                        .get("stream")
                        .asBoolean())
                .isTrue();
    }
}
