package dev.cadre.platform.bench;

import dev.cadre.memory.bench.ClosedLoop;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;

/**
 * An alert storm on one instance (issue 27, docs/benchmarks/storm.md): {@code notifications}
 * Alertmanager deliveries in {@code seconds} over {@code alerts} distinct alerts — each repeated
 * (round-robin, so one alert every {@code alerts * seconds / notifications} s), every tenth
 * delivery sent twice at once (an HA pair), a fifth of the alerts resolved in the last round — into
 * the intake at its default caps, while the triage agent's model calls take 1–2 s each (scripted
 * latency). It checks what the issue asks: exactly {@code alerts} incidents, one triage run per
 * incident, no notification lost or counted twice (every delivery answered, the stored sightings
 * equal to the sightings the answers report), the intake's latency during the storm, every triage
 * run finished or waiting for a human within 3 minutes after it, heap and RSS, and the run queue.
 */
final class StormBench {

    static final String AGENT = "storm-triage";

    /** The agent the warm-up alerts ({@link #WARMUP_ALERT}) are routed to, so they start no triage run. */
    static final String WARMUP_AGENT = "storm-warmup";

    static final String WARMUP_ALERT = "StormWarmup";

    /** Scripted triage: 2 model calls of 1.5 s, or (disk alerts) 3 of 1–2 s and a question to a human. */
    static final String AGENTS_YAML = """
            # Written by PlatformBenchmark (StormBench): the storm's triage agent, 1-2 s per model call.
            agents:
              - name: storm-triage
                description: Triages one alert of the storm benchmark; disk alerts go to a human.
                model: scripted:default
                tools: [incident_find, ask_human]
                budget: {maxIterations: 4, maxTokens: 50000, timeout: 30m}
              - name: storm-warmup
                description: Answers the warm-up alerts sent before the storm at once.
                model: scripted:default
                tools: []
                budget: {maxIterations: 2, maxTokens: 10000, timeout: 5m}
            scripts:
              storm-warmup:
                turns:
                  - text: Warm-up alert seen.
              storm-triage:
                variants:
                  - when: StormDisk
                    turns:
                      - latencyMillis: 1000
                        toolCalls: [{name: incident_find, arguments: {}}]
                      - latencyMillis: 2000
                        toolCalls: [{name: ask_human, arguments: {question: "Disk filling on this node: clean or grow?"}}]
                      - latencyMillis: 1000
                        text: Handed to the human.
                  - turns:
                      - latencyMillis: 1500
                        toolCalls: [{name: incident_find, arguments: {}}]
                      - latencyMillis: 1500
                        text: Transient CPU spike; nothing to do.
            """;

    private record Delivery(long atMillis, int alert, boolean resolved, boolean copy) {}

    private record Answer(
            long atMillis, int alert, boolean copy, int status, long micros, List<String> actions, JsonNode body) {}

    final List<String> report = new ArrayList<>();
    private final PlatformProcess platform;
    private final String label;
    private final int notifications;
    private final int alerts;
    private final int seconds;

    private final int warmupSeconds;

    /** The agent the intake starts for each new incident: {@link #AGENT}, or the shipped team's entry point. */
    private final String triageAgent;

    StormBench(PlatformProcess platform, String label, int notifications, int alerts, int seconds, int warmupSeconds) {
        this(platform, label, notifications, alerts, seconds, warmupSeconds, AGENT);
    }

    StormBench(
            PlatformProcess platform,
            String label,
            int notifications,
            int alerts,
            int seconds,
            int warmupSeconds,
            String triageAgent) {
        this.triageAgent = triageAgent;
        this.warmupSeconds = warmupSeconds;
        this.platform = platform;
        this.label = label;
        this.notifications = notifications;
        this.alerts = alerts;
        this.seconds = seconds;
    }

    void run() throws Exception {
        Http admin = new Http(platform.base(), Api.ADMIN_KEY);
        var key = admin.post(
                "/api/v1/keys",
                Http.JSON
                        .createObjectNode()
                        .put("name", "storm-intake-" + UUID.randomUUID())
                        .put("role", "intake")
                        .toString());
        if (key.status() != 201) {
            throw new IllegalStateException("could not create the intake key: " + key.body());
        }
        Http intake = new Http(platform.base(), key.json().get("secret").asString());
        String warmup = warmupSeconds > 0 ? warmUp(admin) : "none: the storm hits a freshly started platform";
        String series = "storm-" + UUID.randomUUID().toString().substring(0, 8);
        String startsAt = Instant.now().minusSeconds(60).toString();
        List<Delivery> plan = plan();
        int copies = (int) plan.stream().filter(Delivery::copy).count();
        int resolves = (int) plan.stream().filter(Delivery::resolved).count();

        // Samplers: RSS, heap and queue depth every 500 ms, through the storm and after it — read one
        // meter at a time; the whole Prometheus page only every 15 s, as the shipped Prometheus scrapes
        // (deploy/prometheus). Rendering the page twice a second allocated ~30 MB/s in the platform,
        // 40 % of all its allocation in the storm, and its young collections were the storm's tail.
        ConcurrentLinkedQueue<double[]> samples = new ConcurrentLinkedQueue<>();
        long t0 = System.nanoTime();
        var sampler = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger tick = new AtomicInteger();
        sampler.scheduleAtFixedRate(
                () -> samples.add(sample(admin, (System.nanoTime() - t0) / 1e9, tick.getAndIncrement() % 30 == 0)),
                0,
                500,
                TimeUnit.MILLISECONDS);

        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        AtomicInteger retried = new AtomicInteger();
        AtomicLong lastSent = new AtomicLong();
        long start = System.nanoTime();
        try (var senders = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Delivery d : plan) {
                long wait = d.atMillis() - (System.nanoTime() - start) / 1_000_000;
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                senders.submit(() -> {
                    answers.add(deliver(intake, series, startsAt, d, retried));
                    lastSent.accumulateAndGet(System.nanoTime(), Math::max);
                    return null;
                });
            }
        }
        double stormSeconds = (System.nanoTime() - start) / 1e9;

        // After the storm: every triage run finished or waiting for a human, within 3 minutes.
        long settleStart = System.nanoTime();
        Map<String, String> runStatus = Map.of();
        while ((System.nanoTime() - settleStart) < Duration.ofMinutes(3).toNanos()) {
            runStatus = runs(admin, triageAgent);
            if (runStatus.values().stream()
                            .allMatch(s -> s.matches("completed|failed|canceled|rejected|input-required"))
                    && runStatus.size() >= alerts) {
                break;
            }
            Thread.sleep(500);
        }
        double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
        sampler.shutdownNow();

        // What the answers say against what is stored.
        List<Answer> all = new ArrayList<>(answers);
        Map<String, Integer> actions = new TreeMap<>();
        Map<Integer, String> incidentOf = new HashMap<>();
        Map<Integer, Integer> sightingsAnswered = new HashMap<>();
        Set<String> incidentIds = new HashSet<>();
        Set<String> runIds = new HashSet<>();
        int failed = 0;
        Map<Integer, Integer> failedStatuses = new TreeMap<>();
        for (Answer a : all) {
            if (a.status() != 200) {
                failed++;
                failedStatuses.merge(a.status(), 1, Integer::sum);
                continue;
            }
            for (JsonNode r : a.body().path("alerts")) {
                String action = r.path("action").asString();
                actions.merge(action, 1, Integer::sum);
                if (r.has("incident")) {
                    incidentIds.add(r.get("incident").asString());
                    incidentOf.put(a.alert(), r.get("incident").asString());
                }
                if (r.has("runId")) {
                    runIds.add(r.get("runId").asString());
                }
                if (action.equals("incident-opened") || action.startsWith("seen-again")) {
                    sightingsAnswered.merge(a.alert(), 1, Integer::sum);
                }
            }
        }
        int storedMismatch = 0;
        int escalated = 0;
        int resolvedIncidents = 0;
        long storedSightings = 0;
        for (var e : incidentOf.entrySet()) {
            JsonNode incident =
                    admin.get("/api/v1/memory/incidents/" + e.getValue()).json().path("value");
            int occurrences = incident.path("occurrences").asInt();
            storedSightings += occurrences;
            if (occurrences != sightingsAnswered.getOrDefault(e.getKey(), 0)) {
                storedMismatch++;
            }
            escalated += incident.has("escalatedAt") ? 1 : 0;
            resolvedIncidents += "resolved".equals(incident.path("status").asString()) ? 1 : 0;
        }
        Map<String, Integer> byStatus = new TreeMap<>();
        runStatus.values().forEach(s -> byStatus.merge(s, 1, Integer::sum));

        long[] micros = all.stream()
                .filter(a -> a.status() == 200)
                .mapToLong(Answer::micros)
                .sorted()
                .toArray();
        double maxRss = samples.stream().mapToDouble(s -> s[1]).max().orElse(0);
        double maxHeap = samples.stream().mapToDouble(s -> s[2]).max().orElse(0);
        double maxQueued = samples.stream().mapToDouble(s -> s[3]).max().orElse(0);
        double maxAge = samples.stream().mapToDouble(s -> s[4]).max().orElse(0);
        double endRss = samples.stream().reduce((a, b) -> b).map(s -> s[1]).orElse(0.0);

        report.add("### " + label);
        report.add("");
        report.add(Measure.fmt(
                "%d notifications (%d of them resolves) + %d HA copies = %d deliveries in %.1f s over %d alerts;"
                        + " %d answered 429 and retried after Retry-After; %d not answered 200 in the end",
                plan.size() - copies, resolves, copies, plan.size(), stormSeconds, alerts, retried.get(), failed));
        report.add("");
        report.add("Warm-up before the storm: " + warmup);
        report.add("");
        report.add("| target | measured | met |");
        report.add("|---|---|---|");
        row(
                "incidents",
                incidentIds.size() + " (" + resolvedIncidents + " resolved, " + escalated + " escalated)",
                incidentIds.size() == alerts);
        row(
                "triage runs (one per incident)",
                runIds.size() + " started, " + runStatus.size() + " of agent " + triageAgent,
                runIds.size() == alerts && runStatus.size() == alerts);
        row(
                "no notification lost",
                failed + " deliveries without a 200 " + failedStatuses + "; answers " + actions,
                failed == 0);
        row(
                "none counted twice",
                "stored sightings " + storedSightings + " = sightings answered "
                        + sightingsAnswered.values().stream()
                                .mapToInt(Integer::intValue)
                                .sum() + "; incidents whose stored"
                        + " count differs from the answers: " + storedMismatch,
                storedMismatch == 0);
        row(
                "intake p99 ≤ 50 ms during the storm",
                Measure.fmt(
                        "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
                        Measure.percentileMs(micros, 0.50),
                        Measure.percentileMs(micros, 0.90),
                        Measure.percentileMs(micros, 0.99),
                        Measure.percentileMs(micros, 1.0)),
                Measure.percentileMs(micros, 0.99) <= 50);
        row(
                "every triage run finished or waiting for a human ≤ 3 min after the storm",
                Measure.fmt("after %.1f s: %s", settleSeconds, byStatus),
                settleSeconds < 180
                        && runStatus.values().stream()
                                .allMatch(s -> s.matches("completed|failed|canceled|rejected|input-required")));
        row(
                "heap and RSS",
                Measure.fmt("max heap used %.0f MB, max RSS %.0f MB (at the end %.0f MB)", maxHeap, maxRss, endRss),
                true);
        row(
                "queue depth and age in metrics",
                Measure.fmt(
                        "max cadre_runs_queued %.0f, max cadre_runs_oldest_submitted_age_seconds %.1f",
                        maxQueued, maxAge),
                true);
        report.add("");
        // Where the tail is: a p99 made of the first seconds (JIT, pools warming) reads differently
        // from one spread over the storm or bunched at the resolves.
        report.add("Slowest 12 deliveries (second of the storm it was sent at, ms, action): "
                + all.stream()
                        .filter(a -> a.status() == 200)
                        .sorted(java.util.Comparator.comparingLong(Answer::micros)
                                .reversed())
                        .limit(12)
                        .map(a -> Measure.fmt(
                                "%.1f s %.0f ms %s%s",
                                a.atMillis() / 1000.0,
                                a.micros() / 1000.0,
                                String.join("+", a.actions()),
                                a.copy() ? " (copy)" : ""))
                        .collect(java.util.stream.Collectors.joining("; ")));
        report.add("");
        report.forEach(System.out::println);
    }

    private void row(String target, String measured, boolean met) {
        report.add("| " + target + " | " + measured + " | " + (met ? "yes" : "**no**") + " |");
    }

    /**
     * The storm: notification k goes to alert k mod alerts at k × seconds / notifications; every
     * tenth also goes out as a second, simultaneous copy; in the last round a fifth of the alerts
     * (every fifth, half of them disk alerts) is resolved instead.
     */
    /**
     * What an instance that has been up a while has behind it: {@code warmupSeconds} of a small alert
     * stream (10 alerts of their own, a delivery every 100 ms, through its own intake key and routed to
     * {@link #WARMUP_AGENT}), every one resolved at the end, their runs ended — so the storm meets warm
     * code paths and connections, not the first seconds after start-up (the JIT compiling the intake
     * while it serves). Answers a line for the report, with the warm-up's own latency.
     */
    private String warmUp(Http admin) throws Exception {
        var key = admin.post(
                "/api/v1/keys",
                Http.JSON
                        .createObjectNode()
                        .put("name", "storm-warmup-" + UUID.randomUUID())
                        .put("role", "intake")
                        .toString());
        if (key.status() != 201) {
            throw new IllegalStateException("could not create the warm-up intake key: " + key.body());
        }
        Http intake = new Http(platform.base(), key.json().get("secret").asString());
        String series = "warmup-" + UUID.randomUUID().toString().substring(0, 8);
        String startsAt = Instant.now().minusSeconds(30).toString();
        int alerts = 10;
        int count = warmupSeconds * 10;
        List<Long> micros = new ArrayList<>();
        AtomicInteger retried = new AtomicInteger();
        long start = System.nanoTime();
        for (int k = 0; k < count + alerts; k++) {
            long wait = k * 100L - (System.nanoTime() - start) / 1_000_000;
            if (wait > 0) {
                Thread.sleep(wait);
            }
            Delivery d = new Delivery(k * 100L, k % alerts, k >= count, false);
            Answer a = deliver(intake, series, startsAt, WARMUP_ALERT, d, retried);
            if (a.status() != 200) {
                throw new IllegalStateException("warm-up delivery answered " + a.status() + ": " + a.body());
            }
            micros.add(a.micros());
        }
        long settle = System.nanoTime();
        while (!runs(admin, WARMUP_AGENT).values().stream().allMatch(st -> st.matches("completed|failed|canceled"))) {
            if (System.nanoTime() - settle > Duration.ofMinutes(1).toNanos()) {
                throw new IllegalStateException("the warm-up runs did not end within a minute");
            }
            Thread.sleep(200);
        }
        Thread.sleep(2000);
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        return Measure.fmt(
                "%d deliveries over %d alerts of their own in %d s, all resolved, %d runs of %s ended; their latency"
                        + " (a fresh platform's first seconds) p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                sorted.length,
                alerts,
                warmupSeconds,
                runs(admin, WARMUP_AGENT).size(),
                WARMUP_AGENT,
                Measure.percentileMs(sorted, 0.50),
                Measure.percentileMs(sorted, 0.99),
                Measure.percentileMs(sorted, 1.0));
    }

    private List<Delivery> plan() {
        List<Delivery> plan = new ArrayList<>();
        long spacing = Math.max(1, seconds * 1000L / notifications);
        for (int k = 0; k < notifications; k++) {
            int alert = k % alerts;
            boolean lastRound = k >= notifications - alerts;
            boolean resolved = lastRound && resolvedAlert(alert);
            plan.add(new Delivery(k * spacing, alert, resolved, false));
            if (k % 10 == 3) {
                plan.add(new Delivery(k * spacing, alert, resolved, true));
            }
        }
        return plan;
    }

    private static boolean resolvedAlert(int alert) {
        return alert % 5 == 0 || alert % 5 == 1 && alert % 10 == 1;
    }

    private static String alertname(int alert) {
        return alert % 5 == 0 ? "StormDisk" : "StormCpu";
    }

    private Answer deliver(Http intake, String series, String startsAt, Delivery d, AtomicInteger retried)
            throws Exception {
        return deliver(intake, series, startsAt, alertname(d.alert()), d, retried);
    }

    private Answer deliver(
            Http intake, String series, String startsAt, String alertname, Delivery d, AtomicInteger retried)
            throws Exception {
        String status = d.resolved() ? "resolved" : "firing";
        String body = """
                {"version":"4","groupKey":"{}:{alertname=\\"%1$s\\",instance=\\"node-%2$d\\"}","truncatedAlerts":0,
                 "status":"%3$s","receiver":"cadre","groupLabels":{"alertname":"%1$s","instance":"node-%2$d"},
                 "commonLabels":{"alertname":"%1$s","instance":"node-%2$d","severity":"critical"},
                 "commonAnnotations":{"summary":"storm alert %2$d"},"externalURL":"http://alertmanager:9093",
                 "alerts":[{"status":"%3$s","labels":{"alertname":"%1$s","instance":"node-%2$d","severity":"critical"},
                   "annotations":{"summary":"storm alert %2$d"},"startsAt":"%4$s","endsAt":"%5$s",
                   "generatorURL":"http://prometheus:9090/graph","fingerprint":"%6$s-%2$d"}]}
                """.formatted(
                        alertname,
                        d.alert(),
                        status,
                        startsAt,
                        d.resolved() ? Instant.now().toString() : "0001-01-01T00:00:00Z",
                        series);
        for (int attempt = 0; ; attempt++) {
            long t = System.nanoTime();
            Http.Response r = intake.post("/api/v1/integrations/alertmanager", body);
            long micros = (System.nanoTime() - t) / 1000;
            if (r.status() == 429 && attempt < 5) {
                // What Alertmanager does with a refused flush is send it again later (here: when told).
                retried.incrementAndGet();
                String after = r.header("Retry-After");
                Thread.sleep(1000L * (after == null ? 1 : Long.parseLong(after)));
                continue;
            }
            List<String> actions = new ArrayList<>();
            JsonNode json = r.status() == 200 ? r.json() : Http.JSON.createObjectNode();
            json.path("alerts").forEach(a -> actions.add(a.path("action").asString()));
            return new Answer(d.atMillis(), d.alert(), d.copy(), r.status(), micros, actions, json);
        }
    }

    /** Run id → status of every run of {@code agent}, through the runs list (500 a page). */
    static Map<String, String> runs(Http admin, String agent) throws Exception {
        Map<String, String> out = new ConcurrentHashMap<>();
        String cursor = null;
        do {
            JsonNode page = admin.get(
                            "/api/v1/runs?agent=" + agent + "&limit=500" + (cursor == null ? "" : "&cursor=" + cursor))
                    .json();
            page.path("items")
                    .forEach(
                            r -> out.put(r.get("id").asString(), r.get("status").asString()));
            cursor = page.path("nextCursor").isString() ? page.get("nextCursor").asString() : null;
        } while (cursor != null);
        return out;
    }

    /** {at, RSS MB, heap used MB, runs queued, oldest submitted age s}; the whole page when {@code full}. */
    private double[] sample(Http admin, double at, boolean full) {
        double rss = Measure.rssMb(platform.pid());
        try {
            if (full) {
                Measure.Scrape m = Measure.Scrape.of(admin);
                return new double[] {
                    at, rss, m.heapMb(), Measure.orZero(m.queued()), Measure.orZero(m.oldestSubmittedAge())
                };
            }
            return new double[] {
                at,
                rss,
                meter(admin, "jvm.memory.used?tag=area:heap") / 1e6,
                meter(admin, "cadre.runs.queued"),
                meter(admin, "cadre.runs.oldest.submitted.age")
            };
        } catch (Exception e) {
            return new double[] {at, rss, 0, 0, 0};
        }
    }

    /** One meter's value through {@code /actuator/metrics} (0 when it has none). */
    private static double meter(Http admin, String nameAndTags) throws Exception {
        JsonNode m = admin.get("/actuator/metrics/" + nameAndTags).json();
        return m.path("measurements").path(0).path("value").asDouble(0);
    }

    static double median(double[] values) {
        return ClosedLoop.median(values);
    }
}
