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

    record Answer(int status, String body, long delayMillis) {}

    record Request(String method, String path, String body, java.util.Map<String, String> headers) {

        /** A request header by its case-insensitive name, or null. */
        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    final List<Request> requests = new CopyOnWriteArrayList<>();

    ReplayServer() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", x -> {
            requests.add(new Request(
                    x.getRequestMethod(),
                    x.getRequestURI().getPath(),
                    new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    headersOf(x)));
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
            x.getResponseHeaders().add("Content-Type", "application/json");
            try {
                x.sendResponseHeaders(a.status(), bytes.length);
                x.getResponseBody().write(bytes);
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

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
