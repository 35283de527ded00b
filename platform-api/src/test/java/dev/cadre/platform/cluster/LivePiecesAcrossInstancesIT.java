package dev.cadre.platform.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two instances (Spring contexts) share PostgreSQL and Redis; a run streams from a local
 * OpenAI-compatible provider on whichever instance took it, and a reader following the run on the
 * other instance gets its live pieces (Redis pub/sub), in order, before the stored whole text, and
 * adding up to it.
 */
class LivePiecesAcrossInstancesIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String HEAD = "{\"id\":\"chatcmpl-X\",\"object\":\"chat.completion.chunk\",\"created\":1,"
            + "\"model\":\"test-model\",\"choices\":";

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("live_it");
    private final ExternalServices.Redis redis = ExternalServices.redis();
    private final String prefix = "live" + UUID.randomUUID().toString().substring(0, 8);
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch asked = new CountDownLatch(1);
    private HttpServer provider;

    @AfterEach
    void tearDown() {
        gate.countDown();
        contexts.forEach(ConfigurableApplicationContext::close);
        if (provider != null) {
            provider.stop(0);
        }
        pg.dropSchema();
    }

    /** Streams three pieces once the gate opens (the reader follows the run first). */
    private String startProvider() throws Exception {
        provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        provider.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        provider.createContext("/", x -> {
            x.getRequestBody().readAllBytes();
            asked.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            x.getResponseHeaders().add("Content-Type", "text/event-stream");
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
                List<String> chunks = new ArrayList<>();
                chunks.add(HEAD + "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}");
                for (String p : List.of("Disk ", "is at ", "40%.")) {
                    chunks.add(HEAD + "[{\"index\":0,\"delta\":{\"content\":" + JSON.writeValueAsString(p) + "}}]}");
                }
                chunks.add(HEAD + "[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
                chunks.add(HEAD + "[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17}}");
                chunks.add("[DONE]");
                for (String c : chunks) {
                    out.write(("data: " + c + "\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        provider.start();
        return "http://127.0.0.1:" + provider.getAddress().getPort() + "/v1";
    }

    private int start(String name, Path agents, String providerUrl) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CadreApplication.class)
                .run(
                        "--server.port=0",
                        "--cadre.instance-id=" + name,
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.redis.url=" + redis.uri() + "/5",
                        "--cadre.redis.prefix=" + prefix,
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.agents.locations=file:" + agents.toAbsolutePath(),
                        "--cadre.runbooks.install-demo=false",
                        "--cadre.models.providers.local.type=openai",
                        "--cadre.models.providers.local.base-url=" + providerUrl,
                        "--cadre.models.providers.local.api-key=k");
        contexts.add(context);
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    record Received(String name, boolean hasId, JsonNode data) {}

    @Test
    void aReaderOnTheOtherInstance_getsTheLivePiecesOfTheRun() throws Exception {
        Path agents = Files.createTempFile("live-agents", ".yaml");
        Files.writeString(agents, """
                agents:
                  - name: streamer
                    description: Answers in streamed text. Test agent for live pieces across instances.
                    instructions: Answer briefly.
                    model: local:test-model
                    budget: {maxIterations: 2, maxTokens: 50000, timeout: 1m}
                """);
        String url = startProvider();
        int portA = start("live-a", agents, url);
        int portB = start("live-b", agents, url);
        Api a = new Api(portA);

        String runId = a.submitRun("streamer", "how is the disk?").get("id").asString();
        asked.await();
        // Whichever instance took the run, the reader follows it on the other one.
        String owner = owner(runId);
        int elsewhere = owner.equals("live-a") ? portB : portA;
        CountDownLatch connected = new CountDownLatch(1);
        List<Received> live = follow(elsewhere, runId, connected);
        connected.await();
        gate.countDown();

        JsonNode run = a.awaitRunEnd(runId);
        assertThat(run.get("status").asString()).isEqualTo("completed");
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
        // The pieces come after the iteration's status, never before the events they follow.
        int firstPiece = live.indexOf(texts.getFirst());
        assertThat(live.subList(0, firstPiece)).extracting(Received::name).contains("status");
    }

    private String owner(String runId) throws Exception {
        return Await.until(
                "the run's lease",
                () -> {
                    try (Connection c = pg.connect();
                            ResultSet rs = c.createStatement()
                                    .executeQuery("SELECT owner FROM cadre_run WHERE id = '" + runId + "'")) {
                        return rs.next() ? rs.getString(1) : null;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                o -> o != null);
    }

    /** Follows a run's SSE stream on a thread of its own until the server ends it. */
    private static List<Received> follow(int port, String runId, CountDownLatch firstEvent) {
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
}
