package dev.cadre.platform.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Agents with {@code http_probe} and {@code incident_update} against a real llama.cpp
 * {@code llama-server} (built by {@code test-peers/llama-server.sh}, which {@code ./test} runs), through
 * its OpenAI-compatible and its Anthropic API. llama.cpp compiles the tools' schemas into a sampling
 * grammar, so a schema bound it cannot compile (the tools validate URLs up to 2000 characters) fails
 * the first model call with HTTP 400 "failed to parse grammar"; the model-facing schemas must not.
 * The model is a tiny rigged one: one tool call, then "Done" once the result is in the conversation.
 * The second call of each run repeats the first prompt, which llama.cpp serves from its prompt cache
 * and reports as cached tokens: the run's usage counts them, apart and in the input.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-llama;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:llama-agents/*.yaml",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.retention.enabled=false",
            "cadre.models.retry.max-attempts=1",
            "cadre.models.max-output-tokens=200"
        })
class LlamaServerProviderIT {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static Process server;
    static int serverPort;

    @BeforeAll
    static void startLlamaServer() throws Exception {
        String binary = System.getenv("CADRE_TEST_LLAMA_SERVER");
        String model = System.getenv("CADRE_TEST_LLAMA_MODEL");
        if (binary == null || model == null) {
            // ./test sets both, or sets CADRE_TEST_SKIP_LLAMA after saying so; nothing skips silently.
            Assumptions.assumeTrue(
                    System.getenv("CADRE_TEST_SKIP_LLAMA") == null,
                    "llama.cpp tests skipped on request (CADRE_TEST_SKIP_LLAMA): "
                            + System.getenv("CADRE_TEST_SKIP_LLAMA"));
            throw new IllegalStateException("CADRE_TEST_LLAMA_SERVER and CADRE_TEST_LLAMA_MODEL are not set: run"
                    + " `eval \"$(test-peers/llama-server.sh --env)\"` first (./test does), or set"
                    + " CADRE_TEST_SKIP_LLAMA=<reason> to skip these tests on purpose");
        }
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serverPort = probe.getLocalPort();
        }
        Path log = Path.of("target", "llama-server-" + serverPort + ".log");
        Files.createDirectories(log.getParent());
        server = new ProcessBuilder(List.of(
                        binary,
                        "-m",
                        model,
                        "--jinja",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        Integer.toString(serverPort),
                        "-c",
                        "4096",
                        "-t",
                        "2",
                        "--no-webui"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        awaitHealthy(log.toFile());
    }

    /** Waits for llama-server's /health to answer 200 (it answers 503 while it loads the model). */
    static void awaitHealthy(File log) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            if (!server.isAlive()) {
                throw new IllegalStateException(
                        "llama-server exited with " + server.exitValue() + ": " + Files.readString(log.toPath()));
            }
            try {
                HttpResponse<String> health = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort + "/health"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYetListening) {
                // the port opens a moment after the process starts
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "llama-server not healthy after 2 min: " + Files.readString(log.toPath()));
            }
            Thread.sleep(200);
        }
    }

    @AfterAll
    static void stopLlamaServer() throws InterruptedException {
        if (server != null) {
            server.destroy();
            server.waitFor();
        }
    }

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry r) {
        r.add("cadre.models.providers.llama.type", () -> "openai");
        r.add("cadre.models.providers.llama.base-url", () -> "http://127.0.0.1:" + serverPort + "/v1");
        r.add("cadre.models.providers.llama.api-key", () -> "none");
        r.add("cadre.models.providers.llama-messages.type", () -> "anthropic");
        r.add("cadre.models.providers.llama-messages.base-url", () -> "http://127.0.0.1:" + serverPort);
        r.add("cadre.models.providers.llama-messages.api-key", () -> "none");
        // llama.cpp streams Anthropic cache counts only in message_start, which Spring AI 2.0.1 drops.
        r.add("cadre.models.providers.llama-messages.stream", () -> "false");
        // Greedy decoding: the tiny model emits exactly one tool call only when it takes its most likely
        // token; at llama-server's default temperature it once sampled a second call into the same turn.
        r.add("cadre.models.providers.llama.temperature", () -> "0");
        r.add("cadre.models.providers.llama-messages.temperature", () -> "0");
    }

    @LocalServerPort
    int port;

    @Test
    void theOpenAiCompatibleApi_runsAnAgentWithProbeAndIncidentTools_andCountsCachedPrompt() {
        runsToDone("llama-openai");
    }

    @Test
    void theAnthropicApi_runsAnAgentWithProbeAndIncidentTools_andCountsCachedPrompt() {
        runsToDone("llama-anthropic");
    }

    private void runsToDone(String agent) {
        Api api = new Api(port);
        String runId = api.submitRun(agent, "Is https://status.example.test up?")
                .get("id")
                .asString();

        JsonNode run = api.awaitRunEnd(runId);

        assertThat(run.path("error").toString()).doesNotContain("failed to parse grammar");
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("result").asString()).isEqualTo("Done");
        assertThat(run.get("iterations").asInt()).isEqualTo(2);
        List<String> called = new ArrayList<>();
        run.get("toolsCalled").forEach(t -> called.add(t.asString()));
        assertThat(called).singleElement().isIn("http_probe", "incident_update");

        JsonNode usage = doneUsage(api, runId);
        assertThat(usage.path("cacheReadTokens").asLong())
                .as("the second call's prompt starts with the first's, which llama.cpp had cached: " + usage)
                .isPositive();
        assertThat(usage.get("inputTokens").asLong())
                .as("cached tokens are part of the input")
                .isGreaterThan(usage.get("cacheReadTokens").asLong())
                .isEqualTo(run.get("usage").get("inputTokens").asLong());
    }

    /** The usage of the run's {@code done} event, replayed from the store. */
    private static JsonNode doneUsage(Api api, String runId) {
        String events =
                api.get("/api/v1/runs/" + runId + "/events", Api.ADMIN_KEY).body();
        String name = null;
        for (String line : events.split("\n")) {
            if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:") && "done".equals(name)) {
                return JSON.readTree(line.substring(5).trim()).get("usage");
            }
        }
        throw new AssertionError("no done event in " + events);
    }
}
