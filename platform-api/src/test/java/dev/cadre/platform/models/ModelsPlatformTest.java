package dev.cadre.platform.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Real provider calls through the whole platform against local OpenAI-compatible servers: streamed
 * text reaches the run's SSE stream piece by piece while only the turn's whole text is stored; the
 * price table gives the run its cost (record and {@code cadre_cost_total}); a budget in currency stops
 * a run; a fallback model answers for an unavailable one and the run says so; an open circuit leaves
 * readiness up. Its own context: it configures model providers.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-models;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:test-agents-models/*.yaml",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.models.retry.max-attempts=1",
            "cadre.models.circuit-breaker.failure-threshold=2",
            "cadre.models.currency=EUR",
            "cadre.models.prices.test-model.input-per-million=2.5",
            "cadre.models.prices.test-model.output-per-million=10",
            "cadre.models.prices.model-a.input-per-million=1",
            "cadre.models.prices.model-a.output-per-million=2",
            "cadre.models.prices.model-b.input-per-million=4",
            "cadre.models.prices.model-b.output-per-million=20"
        })
class ModelsPlatformTest {

    static final ReplayServer PRIMARY = new ReplayServer();
    static final ReplayServer BACKUP = new ReplayServer();
    static final JsonMapper JSON = JsonMapper.builder().build();

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry r) {
        r.add("cadre.models.providers.primary.type", () -> "openai");
        r.add("cadre.models.providers.primary.base-url", () -> PRIMARY.url("/v1"));
        r.add("cadre.models.providers.primary.api-key", () -> "k");
        r.add("cadre.models.providers.backup.type", () -> "openai");
        r.add("cadre.models.providers.backup.base-url", () -> BACKUP.url("/v1"));
        r.add("cadre.models.providers.backup.api-key", () -> "k");
        // Nothing listens there: refused connections.
        r.add("cadre.models.providers.dead.type", () -> "openai");
        r.add("cadre.models.providers.dead.base-url", () -> "http://127.0.0.1:9/v1");
        r.add("cadre.models.providers.dead.api-key", () -> "k");
        // Gone as well, with a circuit of its own (the breaker test counts dead's failures).
        r.add("cadre.models.providers.gone.type", () -> "openai");
        r.add("cadre.models.providers.gone.base-url", () -> "http://127.0.0.1:9/v1");
        r.add("cadre.models.providers.gone.api-key", () -> "k");
    }

    @AfterAll
    static void close() {
        PRIMARY.close();
        BACKUP.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    @Autowired
    dev.cadre.platform.observability.TraceStore traces;

    @Autowired
    @Qualifier("modelProviders")
    HealthIndicator modelProviders;

    static final String HEAD = "{\"id\":\"chatcmpl-E2E\",\"object\":\"chat.completion.chunk\",\"created\":1,"
            + "\"model\":\"test-model-2026\",\"choices\":";

    static List<String> textStream(String... pieces) {
        return textStreamAs(HEAD, pieces);
    }

    static List<String> textStreamAs(String head, String... pieces) {
        List<String> chunks = new ArrayList<>();
        chunks.add(
                head + "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}");
        for (String p : pieces) {
            chunks.add(head + "[{\"index\":0,\"delta\":{\"content\":" + JSON.writeValueAsString(p)
                    + "},\"finish_reason\":null}]}");
        }
        chunks.add(head + "[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
        chunks.add(head + "[],\"usage\":{\"prompt_tokens\":182,\"completion_tokens\":41,\"total_tokens\":223}}");
        return chunks;
    }

    record Received(String name, boolean hasId, JsonNode data) {}

    /** Follows a run's SSE stream on a thread of its own until the server ends it. */
    List<Received> follow(String runId, CountDownLatch firstEvent) {
        List<Received> out = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            try (HttpClient client = HttpClient.newHttpClient()) {
                HttpResponse<java.io.InputStream> response = client.send(
                        HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + port + "/api/v1/runs/" + runId + "/events"))
                                .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                                .header("Accept", "text/event-stream")
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                BufferedReader lines =
                        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
                String name = null;
                boolean id = false;
                for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("id:")) {
                        id = true;
                    } else if (line.startsWith("event:")) {
                        name = line.substring(6).trim();
                    } else if (line.startsWith("data:")) {
                        out.add(new Received(
                                name, id, JSON.readTree(line.substring(5).trim())));
                        firstEvent.countDown();
                    } else if (line.isEmpty()) {
                        name = null;
                        id = false;
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                firstEvent.countDown();
            }
        });
        return out;
    }

    @Test
    void streamedTextReachesTheSsePieceByPiece_onlyTheWholeTurnIsStored_andTheRunHasItsCost() throws Exception {
        Api api = new Api(port);
        PRIMARY.gate = new CountDownLatch(1);
        PRIMARY.answerSse(textStream("Disk ", "is at ", "40%."));
        String runId = api.submitRun("streamer", "how is the disk?").get("id").asString();
        CountDownLatch connected = new CountDownLatch(1);
        List<Received> live = follow(runId, connected);
        connected.await();
        PRIMARY.gate.countDown(); // the provider streams once the client follows the run

        JsonNode run = api.awaitRunEnd(runId);
        assertThat(run.get("status").asString()).isEqualTo("completed");
        assertThat(run.get("result").asString()).isEqualTo("Disk is at 40%.");
        Await.until(
                "the live stream to end",
                () -> live,
                l -> !l.isEmpty() && l.getLast().name().equals("done"));

        List<Received> texts =
                live.stream().filter(e -> "text_delta".equals(e.name())).toList();
        assertThat(texts)
                .extracting(
                        e -> e.data().get("text").asString(),
                        e -> e.data().path("partial").asBoolean(false),
                        Received::hasId)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("Disk ", true, false),
                        org.assertj.core.groups.Tuple.tuple("is at ", true, false),
                        org.assertj.core.groups.Tuple.tuple("40%.", true, false),
                        org.assertj.core.groups.Tuple.tuple("Disk is at 40%.", false, true));

        // Replayed from the store: the whole text once, no pieces.
        String replay =
                api.get("/api/v1/runs/" + runId + "/events", Api.ADMIN_KEY).body();
        assertThat(replay).contains("event:text_delta").doesNotContain("\"partial\"");
        assertThat(replay.split("event:text_delta", -1)).hasSize(2);

        double cost = 182 * 2.5 / 1e6 + 41 * 10.0 / 1e6;
        assertThat(run.get("cost").get("amount").asDouble())
                .isCloseTo(cost, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(run.get("cost").get("currency").asString()).isEqualTo("EUR");
        assertThat(registry.get("cadre.cost")
                        .tags("agent", "streamer", "model", "primary:test-model")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(cost);
    }

    @Test
    void aSecretSplitAcrossStreamedPieces_neverReachesAFollower_andThePiecesAddUpToTheStoredText() throws Exception {
        Api api = new Api(port);
        PRIMARY.gate = new CountDownLatch(1);
        PRIMARY.answerSse(textStream(
                "The DSN is postgres://app:Hun",
                "ter2pw@db:5432/orders",
                " and the header Authorization: Bea",
                "rer abcdefgh",
                "ijklmnop1234; the key sk-proj4bcdefg",
                "hijklmnopqrstuvwx works."));
        String runId =
                api.submitRun("streamer", "what are the credentials?").get("id").asString();
        CountDownLatch connected = new CountDownLatch(1);
        List<Received> live = follow(runId, connected);
        connected.await();
        PRIMARY.gate.countDown();

        JsonNode run = api.awaitRunEnd(runId);
        assertThat(run.get("status").asString()).isEqualTo("completed");
        Await.until(
                "the live stream to end",
                () -> live,
                l -> !l.isEmpty() && l.getLast().name().equals("done"));
        List<Received> texts =
                live.stream().filter(e -> "text_delta".equals(e.name())).toList();
        List<String> pieces = texts.stream()
                .filter(e -> e.data().path("partial").asBoolean(false))
                .map(e -> e.data().get("text").asString())
                .toList();
        String stored = texts.getLast().data().get("text").asString();
        assertThat(texts.getLast().hasId()).isTrue();
        assertThat(stored)
                .isEqualTo("The DSN is postgres://app:[REDACTED]@db:5432/orders and the header [REDACTED];"
                        + " the key [REDACTED] works.");
        assertThat(String.join("", pieces)).isEqualTo(stored);
        // Not one piece, nor what they showed so far, holds a part of a secret.
        StringBuilder shown = new StringBuilder();
        for (String p : pieces) {
            shown.append(p);
            assertThat(shown.toString()).doesNotContain("Hun", "abcdefgh", "ijklmnop", "sk-proj", "hijklmn");
        }
        assertThat(pieces).hasSizeGreaterThan(2);
    }

    @Test
    void aBudgetInCurrency_stopsTheRunWithBudgetExceeded() {
        Api api = new Api(port);
        PRIMARY.answerSse(textStream("Too ", "expensive."));
        var r = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("agent", "streamer", "input", "spend", "budget", Map.of("maxCost", 0.0001))));
        assertThat(r.status()).isEqualTo(202);
        JsonNode run = api.awaitRunEnd(r.json().get("id").asString());
        assertThat(run.get("status").asString()).isEqualTo("failed");
        assertThat(run.get("error").get("category").asString()).isEqualTo("BUDGET_EXCEEDED");
        assertThat(run.get("error").get("code").asString()).isEqualTo("cost_budget");
        assertThat(run.get("cost").get("max").asDouble()).isEqualTo(0.0001);

        var bad = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("agent", "streamer", "input", "x", "budget", Map.of("maxCost", -1))));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("budget.maxCost");
    }

    @Test
    void whenThePrimaryIsUnavailable_theFallbackAnswers_andTheRunSaysSo() {
        Api api = new Api(port);
        PRIMARY.answer(503, SpringAiModelPortTest.OPENAI_500);
        BACKUP.answerSse(textStream("From ", "the backup."));
        String runId = api.submitRun("streamer", "anyone there?").get("id").asString();
        JsonNode run = api.awaitRunEnd(runId);
        assertThat(run.get("result").asString()).isEqualTo("From the backup.");
        String events =
                api.get("/api/v1/runs/" + runId + "/events", Api.ADMIN_KEY).body();
        assertThat(events)
                .contains(
                        "model fallback: primary:test-model unavailable (provider_unavailable); answered by backup:test-model");
    }

    @Test
    void aFallbackAnswer_isPricedCountedAndNamedByTheModelThatGaveIt() {
        Api api = new Api(port);
        BACKUP.answerSse(textStreamAs(
                "{\"id\":\"chatcmpl-B\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                        + "\"model\":\"model-b-0125\",\"choices\":",
                "Cheap ",
                "it was not."));
        String runId = api.submitRun("frugal", "price it").get("id").asString();
        JsonNode run = api.awaitRunEnd(runId);
        assertThat(run.get("result").asString()).isEqualTo("Cheap it was not.");

        // 182 input and 41 output tokens at model-b's price, not model-a's (1 and 2 per million).
        double cost = 182 * 4.0 / 1e6 + 41 * 20.0 / 1e6;
        assertThat(run.get("cost").get("amount").asDouble())
                .isCloseTo(cost, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(registry.get("cadre.cost")
                        .tags("agent", "frugal", "model", "backup:model-b")
                        .counter()
                        .count())
                .isCloseTo(cost, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(registry.find("cadre.cost")
                        .tags("agent", "frugal", "model", "gone:model-a")
                        .counter())
                .isNull();
        assertThat(registry.get("cadre.tokens")
                        .tags("agent", "frugal", "model", "backup:model-b", "type", "output")
                        .counter()
                        .count())
                .isEqualTo(41.0);

        var chat = Await.until(
                "the chat span of the run",
                () -> traces.spansOfRun(runId).stream()
                        .filter(s -> "chat"
                                .equals(s.attributes()
                                        .path("gen_ai.operation.name")
                                        .asString(null)))
                        .toList(),
                l -> !l.isEmpty());
        assertThat(chat).hasSize(1);
        JsonNode a = chat.getFirst().attributes();
        assertThat(chat.getFirst().name()).isEqualTo("chat model-b");
        assertThat(a.get("gen_ai.provider.name").asString()).isEqualTo("backup");
        assertThat(a.get("gen_ai.request.model").asString()).isEqualTo("model-b");
        assertThat(a.get("gen_ai.response.model").asString()).isEqualTo("model-b-0125");
        assertThat(a.get("cadre.model.fallback").asString()).isEqualTo("backup:model-b");
        assertThat(a.get("cadre.model.configured").asString()).isEqualTo("gone:model-a");
        assertThat(a.get("cadre.cost").asDouble()).isCloseTo(cost, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void anOpenCircuit_degradesHealth_butNotReadiness() {
        Api api = new Api(port);
        for (int i = 0; i < 3; i++) {
            JsonNode run =
                    api.awaitRunEnd(api.submitRun("deadman", "hello?").get("id").asString());
            assertThat(run.get("error").get("category").asString()).isEqualTo("COMMUNICATION_ERROR");
        }
        JsonNode last =
                api.awaitRunEnd(api.submitRun("deadman", "still?").get("id").asString());
        assertThat(last.get("error").get("code").asString()).isEqualTo("provider_circuit_open");
        assertThat(modelProviders.health().getStatus().getCode()).isEqualTo("DEGRADED");
        assertThat(registry.get("cadre.provider.circuit.state")
                        .tag("provider", "dead")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(api.get("/actuator/health/readiness", null).status()).isEqualTo(200);
        assertThat(api.get("/actuator/health", null).status()).isEqualTo(200);
    }
}
