package dev.cadre.platform.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real local webhook receiver (the JDK's HttpServer on loopback) that answers from a script, one
 * step per request, the last step repeating, and keeps every request it got. It also de-duplicates on
 * {@code Idempotency-Key} the way a careful receiver does: {@link #processed()} holds each key once.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One scripted answer: a status, an optional Retry-After, or a delay longer than the sender waits. */
    public record Step(int status, String retryAfter, long delayMillis) {
        public static Step status(int status) {
            return new Step(status, "", 0);
        }

        public static Step retryAfter(int status, String value) {
            return new Step(status, value, 0);
        }

        public static Step slow(long millis) {
            return new Step(200, "", millis);
        }
    }

    /** A request as received. */
    public record Request(String path, String idempotencyKey, String contentType, String body) {}

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Step> script = new ConcurrentLinkedQueue<>();
    private volatile Step last = Step.status(200);
    public final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Set<String> processed = ConcurrentHashMap.newKeySet();
    private final List<Request> effects = new CopyOnWriteArrayList<>();
    public final java.util.concurrent.CountDownLatch firstRequest = new java.util.concurrent.CountDownLatch(1);

    public WebhookReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    public WebhookReceiver answering(Step... steps) {
        script.clear();
        script.addAll(List.of(steps));
        last = steps[steps.length - 1];
        return this;
    }

    public URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** The requests whose key this receiver had not seen: what a de-duplicating receiver acts on. */
    public List<Request> processed() {
        return effects;
    }

    private void handle(HttpExchange x) throws IOException {
        Request r = new Request(
                x.getRequestURI().getPath(),
                String.valueOf(x.getRequestHeaders().getFirst("Idempotency-Key")),
                String.valueOf(x.getRequestHeaders().getFirst("Content-Type")),
                new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        requests.add(r);
        Step step = script.poll();
        if (step == null) {
            step = last;
        }
        // A 2xx step acts on the request before answering: a slow answer, or a sender that dies
        // before it reads the answer, still leaves the effect behind (the case the key is for).
        if (step.status() / 100 == 2 && processed.add(r.idempotencyKey())) {
            effects.add(r);
        }
        firstRequest.countDown();
        try {
            if (step.delayMillis() > 0) {
                Thread.sleep(step.delayMillis());
            }
            if (!step.retryAfter().isEmpty()) {
                x.getResponseHeaders().add("Retry-After", step.retryAfter());
            }
            byte[] body = ("answer " + step.status()).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(step.status(), body.length);
            x.getResponseBody().write(body);
        } catch (InterruptedException | IOException e) {
            // the sender gave up waiting (a timeout step): nothing to answer
        } finally {
            x.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
