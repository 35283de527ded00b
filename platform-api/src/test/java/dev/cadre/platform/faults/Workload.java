package dev.cadre.platform.faults;

import dev.cadre.platform.support.Api;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What clients do while the faults happen: {@code appenders} threads append to one shared memory
 * entry per phase by compare-and-set over REST (GET value + ETag, PUT with If-Match, retry on
 * 412/409), each remembering every append acknowledged with a 2xx; one thread submits runs of
 * the exactly-once agent round-robin to both instances. Every client-visible failure is counted
 * per phase: refused connections, HTTP errors by status (and whether the body was problem
 * details), and requests that got no answer within the client timeout (a hang).
 */
final class Workload {

    static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** An append the server acknowledged (2xx): item {@code item} must be in entry {@code key} forever. */
    record Ack(String key, String item, String phase, long atNanos) {}

    /** A run the server accepted (202). */
    record Run(String id, String agent, String input, String phase, String instance) {}

    /** One HTTP exchange as the client saw it; status -1 = refused/reset, -2 = no answer in time. */
    record Reply(int status, String body, String contentType, String etag, long millis) {
        JsonNode json() {
            return JSON.readTree(body);
        }

        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    /** Client-visible failures during one phase. */
    static final class PhaseErrors {
        final AtomicLong requests = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong noAnswer = new AtomicLong();
        final AtomicLong notProblemDetails = new AtomicLong();
        final AtomicLong slowestErrorMillis = new AtomicLong();
        final AtomicLong slowestMillis = new AtomicLong();
        final AtomicLong slowerThan5s = new AtomicLong();
        final Map<Integer, AtomicLong> byStatus = new ConcurrentSkipListMap<>();
        final Queue<String> samples = new ConcurrentLinkedQueue<>();

        long httpErrors() {
            return byStatus.values().stream().mapToLong(AtomicLong::get).sum();
        }
    }

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .executor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor())
            .build();
    private final List<Integer> ports;
    private final Supplier<String> phase;
    private final Map<String, PhaseErrors> errors = new ConcurrentHashMap<>();
    final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
    final Map<String, Run> runs = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> appendsByPhase = new ConcurrentHashMap<>();
    final AtomicLong conflicts = new AtomicLong();
    final AtomicLong ambiguousAppends = new AtomicLong();
    final AtomicLong submitGiveUps = new AtomicLong();
    private volatile boolean running = true;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong jobs = new AtomicLong();

    Workload(List<Integer> ports, Supplier<String> phase) {
        this.ports = List.copyOf(ports);
        this.phase = phase;
    }

    PhaseErrors errors(String phase) {
        return errors.computeIfAbsent(phase, p -> new PhaseErrors());
    }

    void start(int appenders, Duration submitEvery) {
        for (int i = 0; i < appenders; i++) {
            int client = i;
            threads.add(Thread.ofVirtual().name("appender-" + i).start(() -> appendLoop(client)));
        }
        threads.add(Thread.ofVirtual().name("submitter").start(() -> submitLoop(submitEvery)));
    }

    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(CLIENT_TIMEOUT.plusSeconds(10));
        }
    }

    // ---- CAS appends ---------------------------------------------------------------------------

    static String entryKey(String phase) {
        return "log-" + phase;
    }

    private void appendLoop(int client) {
        long n = 0;
        int rr = client;
        while (running) {
            String ph = phase.get();
            String key = entryKey(ph);
            String item = "c" + client + "-" + n++;
            boolean uncertain = false; // an earlier attempt may have been applied without our knowing
            while (running) {
                int port = ports.get(rr++ % ports.size());
                Reply read = send(
                        port,
                        "GET",
                        "/api/v1/memory/faults/" + key + (uncertain ? "?consistent=true" : ""),
                        null,
                        Map.of());
                List<String> items;
                String precondition;
                String etag;
                if (read.status() == 404) {
                    items = new ArrayList<>();
                    precondition = "If-None-Match";
                    etag = "*";
                } else if (read.ok()) {
                    JsonNode value = read.json().get("value");
                    items = new ArrayList<>();
                    value.get("items").forEach(j -> items.add(j.asString()));
                    precondition = "If-Match";
                    etag = read.etag();
                } else {
                    pause(200);
                    continue;
                }
                if (uncertain && items.contains(item)) {
                    break; // applied by the attempt whose answer we lost: not acknowledged, not repeated
                }
                items.add(item);
                ObjectNode value = JSON.createObjectNode();
                ArrayNode arr = value.putArray("items");
                items.forEach(arr::add);
                Reply put = send(
                        port,
                        "PUT",
                        "/api/v1/memory/faults/" + key,
                        JSON.writeValueAsString(value),
                        Map.of(precondition, etag));
                if (put.ok()) {
                    acks.add(new Ack(key, item, ph, System.nanoTime()));
                    appendsByPhase.computeIfAbsent(ph, p -> new AtomicLong()).incrementAndGet();
                    break;
                }
                if (put.status() == 412 || put.status() == 409) {
                    conflicts.incrementAndGet();
                    continue;
                }
                // Refused, 5xx or no answer: the write may or may not have happened.
                uncertain = true;
                ambiguousAppends.incrementAndGet();
                pause(200);
            }
        }
    }

    // ---- the run stream ------------------------------------------------------------------------

    private void submitLoop(Duration every) {
        int rr = 0;
        while (running) {
            String input = "job-" + jobs.getAndIncrement();
            submit("cluster-worker", input, rr++);
            pause(every.toMillis());
        }
    }

    /**
     * Submits one run with an Idempotency-Key, retrying on the other instance when the answer is
     * lost or an error; returns the run id, or null after giving up (counted).
     */
    String submit(String agent, String input, int rr) {
        String body = Api.json(Map.of("agent", agent, "input", input));
        for (int attempt = 0; attempt < 40; attempt++) {
            int port = ports.get((rr + attempt) % ports.size());
            Reply r = send(port, "POST", "/api/v1/runs", body, Map.of("Idempotency-Key", "faults-" + input));
            if (r.status() == 202 || r.status() == 200) {
                String id = r.json().get("id").asString();
                runs.putIfAbsent(id, new Run(id, agent, input, phase.get(), String.valueOf(port)));
                return id;
            }
            pause(500);
        }
        submitGiveUps.incrementAndGet();
        return null;
    }

    // ---- HTTP ----------------------------------------------------------------------------------

    Reply send(int port, String method, String path, String body, Map<String, String> headers) {
        return send(port, method, path, body, headers, true);
    }

    /** Without the API key, as a load balancer's or Kubernetes' health probe asks. */
    Reply probe(int port, String path) {
        return send(port, "GET", path, null, Map.of(), false);
    }

    private Reply send(
            int port, String method, String path, String body, Map<String, String> headers, boolean withKey) {
        // Health probes are reported on their own: a 503 DOWN from actuator is the right answer there.
        PhaseErrors e = withKey ? errors(phase.get()) : new PhaseErrors();
        e.requests.incrementAndGet();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(CLIENT_TIMEOUT);
        if (withKey) {
            b.header("Authorization", "Bearer " + Api.ADMIN_KEY);
        }
        headers.forEach(b::header);
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        long t0 = System.nanoTime();
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            long millis = (System.nanoTime() - t0) / 1_000_000;
            e.slowestMillis.accumulateAndGet(millis, Math::max);
            if (millis > 5_000) {
                e.slowerThan5s.incrementAndGet();
                sample(e, "slow: " + method + " " + path + " -> " + r.statusCode() + " after " + millis + " ms");
            }
            String type = r.headers().firstValue("Content-Type").orElse("");
            Reply reply = new Reply(
                    r.statusCode(),
                    r.body(),
                    type,
                    r.headers().firstValue("ETag").orElse(null),
                    millis);
            if (r.statusCode() >= 500
                    || (r.statusCode() >= 400
                            && r.statusCode() != 404
                            && r.statusCode() != 409
                            && r.statusCode() != 412)) {
                e.byStatus
                        .computeIfAbsent(r.statusCode(), s -> new AtomicLong())
                        .incrementAndGet();
                e.slowestErrorMillis.accumulateAndGet(millis, Math::max);
                if (!type.startsWith("application/problem+json")) {
                    e.notProblemDetails.incrementAndGet();
                    sample(e, method + " " + path + " -> " + r.statusCode() + " " + type + " " + abbreviate(r.body()));
                } else if (e.samples.size() < 6) {
                    sample(e, method + " " + path + " -> " + r.statusCode() + " " + abbreviate(r.body()));
                }
            }
            return reply;
        } catch (HttpTimeoutException timeout) {
            e.noAnswer.incrementAndGet();
            sample(e, method + " " + path + " -> no answer within " + CLIENT_TIMEOUT);
            return new Reply(-2, "", "", null, (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException refused) {
            e.refused.incrementAndGet();
            return new Reply(-1, "", "", null, (System.nanoTime() - t0) / 1_000_000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return new Reply(-1, "", "", null, 0);
        }
    }

    private static void sample(PhaseErrors e, String line) {
        if (e.samples.size() < 20) {
            e.samples.add(line);
        }
    }

    private static String abbreviate(String s) {
        String one = s.replaceAll("\\s+", " ");
        return one.length() > 220 ? one.substring(0, 220) + "…" : one;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
