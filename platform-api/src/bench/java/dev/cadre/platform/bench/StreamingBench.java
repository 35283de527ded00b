package dev.cadre.platform.bench;

import com.sun.net.httpserver.HttpServer;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Streaming latency of docs/benchmarks/models.md: a local OpenAI-compatible server in this JVM streams
 * {@code CHUNKS} text pieces ({@code PAUSE_MS} apart) to the packaged platform, and a client in this
 * JVM follows the run's SSE stream. Both ends read {@code System.nanoTime()} of this one JVM, so the
 * figures are direct: from the provider flushing its first text chunk to the first {@code text_delta}
 * on the run's SSE stream, and for every chunk the time from its flush to its {@code text_delta}.
 * The provider starts streaming only once the client follows the run (after {@code run_started}).
 */
final class StreamingBench {

    static final int CHUNKS = 40;
    static final long PAUSE_MS = 10;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    final List<String> report = new ArrayList<>();
    private final int runs;
    private final Path out;

    StreamingBench(int runs, Path out) {
        this.runs = runs;
        this.out = out;
    }

    /** One streamed answer: when each chunk was flushed, released by {@code gate}. */
    private static final class Turn {
        final CountDownLatch gate = new CountDownLatch(1);
        final long[] sentAt = new long[CHUNKS];
        final long leadMillis;

        Turn(long leadMillis) {
            this.leadMillis = leadMillis;
        }
    }

    private volatile Turn turn;

    void runAll() throws Exception {
        HttpServer provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        provider.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        provider.createContext("/v1/chat/completions", x -> {
            x.getRequestBody().readAllBytes();
            Turn t = turn;
            x.getResponseHeaders().add("Content-Type", "text/event-stream");
            x.sendResponseHeaders(200, 0);
            OutputStream o = x.getResponseBody();
            try {
                t.gate.await();
                if (t.leadMillis > 0) {
                    Thread.sleep(t.leadMillis); // the client's stream is set up before the first chunk
                }
                for (int i = 0; i < CHUNKS; i++) {
                    o.write(chunk("{\"content\":\"p" + i + " \"}", "null").getBytes(StandardCharsets.UTF_8));
                    o.flush();
                    t.sentAt[i] = System.nanoTime();
                    Thread.sleep(PAUSE_MS);
                }
                o.write(chunk("{}", "\"stop\"").getBytes(StandardCharsets.UTF_8));
                o.write(("data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                                + "\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":80,\"total_tokens\":130}}\n\n"
                                + "data: [DONE]\n\n")
                        .getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            x.close();
        });
        provider.start();
        Path agents = out.resolve("streaming-agents.yaml");
        Files.writeString(agents, """
                agents:
                  - name: streamer
                    description: Streams its answer.
                    instructions: Answer.
                    model: bench:m
                    budget: {maxIterations: 2, maxTokens: 100000, timeout: 1m}
                """);
        String url = "http://127.0.0.1:" + provider.getAddress().getPort() + "/v1";
        try (PlatformProcess p = PlatformBenchmark.platform(
                "streaming",
                out,
                agents,
                List.of(
                        "--spring.datasource.url=jdbc:h2:mem:bench-streaming;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                        "--cadre.models.providers.bench.type=openai",
                        "--cadre.models.providers.bench.base-url=" + url,
                        "--cadre.models.providers.bench.api-key=none"),
                "512m")) {
            Api api = new Api(p.port());
            List<String> rows = new ArrayList<>();
            for (long lead : new long[] {0, 50}) {
                List<Double> first = new ArrayList<>();
                List<Double> perChunk = new ArrayList<>();
                for (int r = -3; r < runs; r++) { // three warm-up runs
                    double[] figures = oneRun(api, p.port(), lead);
                    if (r >= 0) {
                        first.add(figures[0]);
                        for (int i = 2; i < figures.length; i++) {
                            perChunk.add(figures[i]);
                        }
                    }
                }
                String when = lead == 0 ? "sent with the response headers" : "sent " + lead + " ms after the headers";
                rows.add(row("first text chunk (" + when + ") → first text_delta on the run's SSE", first));
                rows.add(row(
                        "chunks 2.." + CHUNKS + " → their text_delta (added latency per chunk; first chunk " + when
                                + ")",
                        perChunk));
            }
            report.add(Measure.fmt(
                    "%d runs of %d chunks %d ms apart per row pair (after 3 warm-up runs); load average %.2f",
                    runs, CHUNKS, PAUSE_MS, Measure.loadAverage()));
            report.add("");
            report.add("| measure | samples | median ms | p90 ms | max ms |");
            report.add("|---|---:|---:|---:|---:|");
            report.addAll(rows);
        } finally {
            provider.stop(0);
        }
    }

    /** Milliseconds: [0] first chunk to first text_delta, then each chunk to its text_delta. */
    private double[] oneRun(Api api, int port, long leadMillis) throws Exception {
        Turn t = new Turn(leadMillis);
        turn = t;
        String runId = api.submitRun("streamer", "stream please").get("id").asString();
        long[] received = new long[CHUNKS];
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<java.io.InputStream> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/runs/" + runId + "/events"))
                            .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                            .header("Accept", "text/event-stream")
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
            String name = null;
            int seen = 0;
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("event:")) {
                    name = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    long now = System.nanoTime();
                    t.gate.countDown(); // following: let the provider stream
                    if ("text_delta".equals(name)) {
                        JsonNode d = JSON.readTree(line.substring(5).trim());
                        if (d.path("partial").asBoolean(false)) {
                            int i = Integer.parseInt(
                                    d.get("text").asString().trim().substring(1));
                            received[i] = now;
                            seen++;
                        }
                    }
                    if ("done".equals(name) || "error".equals(name)) {
                        break;
                    }
                }
            }
            if (seen != CHUNKS) {
                throw new IllegalStateException("saw " + seen + " of " + CHUNKS + " pieces of run " + runId);
            }
        }
        double[] out = new double[CHUNKS + 1];
        out[0] = (received[0] - t.sentAt[0]) / 1e6;
        for (int i = 0; i < CHUNKS; i++) {
            out[i + 1] = (received[i] - t.sentAt[i]) / 1e6;
        }
        return out;
    }

    private static String chunk(String delta, String finish) {
        return "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":"
                + "[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":" + finish + "}]}\n\n";
    }

    private static String row(String what, List<Double> samples) {
        double[] s = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return Measure.fmt(
                "| %s | %d | %.2f | %.2f | %.2f |",
                what,
                s.length,
                s[s.length / 2],
                s[(int) Math.min(s.length - 1, Math.floor(s.length * 0.9))],
                s[s.length - 1]);
    }
}
