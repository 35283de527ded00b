package dev.cadre.platform.models;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/** A local HTTP server replaying recorded provider answers in order and recording the requests. */
final class ReplayServer implements AutoCloseable {

    /**
     * One answer: a status and body, or, when {@code chunks} is not empty, a streamed body written chunk
     * by chunk with a flush after each (SSE {@code data:} lines or NDJSON), {@code chunkPauseMillis} apart.
     */
    record Answer(
            int status,
            String body,
            long delayMillis,
            String contentType,
            java.util.Map<String, String> headers,
            List<String> chunks,
            long chunkPauseMillis) {
        Answer(int status, String body, long delayMillis) {
            this(status, body, delayMillis, "application/json", java.util.Map.of(), List.of(), 0);
        }
    }

    /**
     * A request as received; {@code atNanos} is the server's {@code System.nanoTime()} on arrival and
     * {@code at} its clock time then.
     */
    record Request(
            String method,
            String path,
            String body,
            java.util.Map<String, String> headers,
            long atNanos,
            java.time.Instant at) {

        /** A request header by its case-insensitive name, or null. */
        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    /** A streamed answer waits for this before its first chunk (a test opens its SSE stream first). */
    volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);

    final List<Request> requests = new CopyOnWriteArrayList<>();

    ReplayServer() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", x -> {
            long at = System.nanoTime();
            java.time.Instant wall = java.time.Instant.now();
            requests.add(new Request(
                    x.getRequestMethod(),
                    x.getRequestURI().getPath(),
                    new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    headersOf(x),
                    at,
                    wall));
            Answer a = answers.poll();
            if (a == null) {
                a = new Answer(500, "{\"error\":{\"message\":\"no recorded answer left\"}}", 0);
            }
            if (a.delayMillis() > 0) {
                try {
                    Thread.sleep(a.delayMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", a.contentType());
            a.headers().forEach((k, v) -> x.getResponseHeaders().add(k, v));
            try {
                if (a.chunks().isEmpty()) {
                    x.sendResponseHeaders(a.status(), bytes.length);
                    x.getResponseBody().write(bytes);
                } else {
                    x.sendResponseHeaders(a.status(), 0);
                    var out = x.getResponseBody();
                    gate.await();
                    for (String chunk : a.chunks()) {
                        if (a.chunkPauseMillis() > 0) {
                            Thread.sleep(a.chunkPauseMillis());
                        }
                        out.write(chunk.getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException closedByClient) {
                // the client gave up (timeout test)
            }
            x.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    private static java.util.Map<String, String> headersOf(com.sun.net.httpserver.HttpExchange x) {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        x.getRequestHeaders().forEach((k, v) -> out.put(k.toLowerCase(java.util.Locale.ROOT), String.join(",", v)));
        return out;
    }

    ReplayServer answer(int status, String body) {
        answers.add(new Answer(status, body, 0));
        return this;
    }

    ReplayServer answerSlowly(long delayMillis, String body) {
        answers.add(new Answer(200, body, delayMillis));
        return this;
    }

    /** An error answer with extra response headers, e.g. {@code Retry-After}. */
    ReplayServer answer(int status, String body, java.util.Map<String, String> headers) {
        answers.add(new Answer(status, body, 0, "application/json", headers, List.of(), 0));
        return this;
    }

    /** A streamed answer: Server-Sent Events, each string one {@code data:} payload, then {@code [DONE]}. */
    ReplayServer answerSse(List<String> payloads) {
        List<String> chunks = new java.util.ArrayList<>();
        for (String p : payloads) {
            chunks.add("data: " + p + "\n\n");
        }
        chunks.add("data: [DONE]\n\n");
        answers.add(new Answer(200, "", 0, "text/event-stream", java.util.Map.of(), chunks, 0));
        return this;
    }

    /** A streamed answer as Anthropic sends it: named events ({@code event:} then {@code data:}). */
    ReplayServer answerNamedSse(List<String[]> events) {
        List<String> chunks = new java.util.ArrayList<>();
        for (String[] e : events) {
            chunks.add("event: " + e[0] + "\ndata: " + e[1] + "\n\n");
        }
        answers.add(new Answer(200, "", 0, "text/event-stream", java.util.Map.of(), chunks, 0));
        return this;
    }

    /** A streamed answer as Ollama sends it: one JSON object per line. */
    ReplayServer answerNdjson(List<String> lines) {
        List<String> chunks = new java.util.ArrayList<>();
        for (String l : lines) {
            chunks.add(l.replace("\n", " ") + "\n");
        }
        answers.add(new Answer(200, "", 0, "application/x-ndjson", java.util.Map.of(), chunks, 0));
        return this;
    }

    /** Any answer, e.g. a stream with pauses between chunks. */
    ReplayServer answer(Answer a) {
        answers.add(a);
        return this;
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
