package dev.cadre.platform.faults;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenAI-compatible chat-completions endpoint that misbehaves, one way per base path:
 * {@code /hang/v1} accepts the request and never answers, {@code /garbage-text/v1} answers 200 with
 * a body that is not JSON, {@code /garbage-json/v1} answers 200 with JSON that has no
 * {@code choices}.
 */
final class FaultyProvider implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final CountDownLatch closed = new CountDownLatch(1);
    final AtomicInteger hangRequests = new AtomicInteger();
    final AtomicInteger garbageRequests = new AtomicInteger();

    FaultyProvider(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 100);
        server.setExecutor(threads);
        server.createContext("/hang/", this::hang);
        server.createContext("/garbage-text/", e -> {
            garbageRequests.incrementAndGet();
            answer(e, "application/json", "<html><body>502 Bad Gateway (not JSON at all)</body></html>{{{");
        });
        server.createContext("/garbage-json/", e -> {
            garbageRequests.incrementAndGet();
            answer(
                    e,
                    "application/json",
                    "{\"id\":\"chatcmpl-garbage\",\"object\":\"chat.completion\",\"created\":1,"
                            + "\"model\":\"garbage\",\"note\":\"no choices here\"}");
        });
        server.start();
    }

    String baseUrl(String mode) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + mode + "/v1";
    }

    private void hang(HttpExchange e) throws IOException {
        hangRequests.incrementAndGet();
        e.getRequestBody().readAllBytes();
        try {
            closed.await(); // never answers while the suite runs
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        e.close();
    }

    private static void answer(HttpExchange e, String type, String body) throws IOException {
        e.getRequestBody().readAllBytes();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        e.getResponseHeaders().set("Content-Type", type);
        e.sendResponseHeaders(200, bytes.length);
        e.getResponseBody().write(bytes);
        e.close();
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
