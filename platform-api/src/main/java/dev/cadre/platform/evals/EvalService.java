package dev.cadre.platform.evals;

import dev.cadre.agent.AgentSpec;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.ApiProblem;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs evaluation suites: each case {@code repeat} times as an ordinary run of the suite's agent
 * (so queues, budgets, approvals, traces and costs are the real ones), then scores what the runs
 * delegated against what the cases expected. Durable: an evaluation interrupted by a restart
 * re-submits its runs under the same idempotency keys (getting the existing runs back) and goes on
 * waiting for them.
 */
public final class EvalService implements AutoCloseable {

    /** Label of the metrics of suites given in a request (suite names from requests never mint series). */
    static final String CUSTOM = "custom";

    private static final Logger log = LoggerFactory.getLogger(EvalService.class);
    private static final Duration POLL = Duration.ofMillis(250);

    private final EvalStore store;
    private final EvalSuites suites;
    private final RunService runs;
    private final RunEvents events;
    private final AgentCatalog catalog;
    private final AuditLog audit;
    private final JsonMapper json;
    private final MeterRegistry registry;
    private final Clock clock;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("cadre-eval-", 0).factory());
    private final Set<String> driving = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicReference<EvalReport.@Nullable Summary>> lastSummary = new ConcurrentHashMap<>();

    EvalService(
            EvalStore store,
            EvalSuites suites,
            RunService runs,
            AgentCatalog catalog,
            AuditLog audit,
            JsonMapper json,
            MeterRegistry registry,
            Clock clock,
            RunEvents events) {
        this.events = events;
        this.store = store;
        this.suites = suites;
        this.runs = runs;
        this.catalog = catalog;
        this.audit = audit;
        this.json = json;
        this.registry = registry;
        this.clock = clock;
        List<String> labels = new ArrayList<>(suites.shipped().keySet());
        labels.add(CUSTOM);
        for (String label : labels) {
            AtomicReference<EvalReport.@Nullable Summary> last = new AtomicReference<>();
            lastSummary.put(label, last);
            gauge(
                    "cadre_eval_routing_accuracy",
                    "Routing accuracy of the suite's last evaluation",
                    label,
                    last,
                    s -> s.routingAccuracy());
            gauge(
                    "cadre_eval_misroute_rate",
                    "Misroute rate of the suite's last evaluation",
                    label,
                    last,
                    s -> s.misrouteRate());
            gauge(
                    "cadre_eval_decomposition_accuracy",
                    "Decomposition accuracy of the suite's last evaluation",
                    label,
                    last,
                    s -> s.decompositionAccuracy());
            gauge(
                    "cadre_eval_consistency",
                    "Consistency across repeated runs in the suite's last evaluation",
                    label,
                    last,
                    s -> s.consistency());
        }
        suites.shipped()
                .values()
                .forEach(s -> catalog.find(s.agent()).ifPresent(a -> {
                    a.workers().forEach(w -> misroutes(s.name(), w));
                    misroutes(s.name(), "unknown");
                }));
    }

    private void gauge(
            String name,
            String help,
            String suite,
            AtomicReference<EvalReport.@Nullable Summary> last,
            java.util.function.Function<EvalReport.Summary, @Nullable Double> value) {
        Gauge.builder(name, last, ref -> {
                    EvalReport.Summary s = ref.get();
                    Double v = s == null ? null : value.apply(s);
                    return v == null ? Double.NaN : v;
                })
                .description(help)
                .tag("suite", suite)
                .register(registry);
    }

    private Counter misroutes(String suite, String worker) {
        return Counter.builder("cadre_eval_misroutes")
                .description("Delegations an evaluation found going to a worker its case did not expect")
                .tag("suite", suite)
                .tag("worker", worker)
                .register(registry);
    }

    /** Starts an evaluation of a suite; its runs are submitted before this returns. */
    public EvalStore.Row start(EvalSuite suite, boolean shipped, Actor submitter) {
        String id = "eval_" + UUID.randomUUID().toString().replace("-", "");
        Instant now = clock.instant();
        String label = shipped ? suite.name() : CUSTOM;
        var row = new EvalStore.Row(
                id,
                suite.name(),
                suite.agent(),
                suite.repeat(),
                "running",
                submitter.name(),
                now,
                null,
                suite.cases().size() * suite.repeat(),
                null,
                null,
                json.writeValueAsString(new StoredSuite(label, suite)),
                "{}",
                null,
                null,
                submitter.keyId());
        store.insert(row);
        audit.record(
                submitter.name(),
                "eval.start",
                id,
                "suite=" + suite.name() + " agent=" + suite.agent() + " runs=" + row.runsTotal());
        Map<String, List<String>> ids = submitAll(row, suite);
        executor.execute(() -> drive(id, suite, label, ids));
        return store.find(id).orElseThrow();
    }

    /** The suite and the metrics label it was started under, as kept with the evaluation. */
    record StoredSuite(String label, EvalSuite suite) {}

    /** Picks up evaluations a stopped process left running (their runs were durable all along). */
    public int resumeAll() {
        int n = 0;
        for (String id : store.running()) {
            EvalStore.Row row = store.find(id).orElse(null);
            if (row == null || driving.contains(id)) {
                continue;
            }
            StoredSuite stored = json.readValue(row.suiteJson(), StoredSuite.class);
            try {
                Map<String, List<String>> ids = submitAll(row, stored.suite());
                executor.execute(() -> drive(id, stored.suite(), stored.label(), ids));
                n++;
            } catch (RuntimeException e) {
                store.finish(id, "failed", clock.instant(), null, null, null, "could not resume: " + e.getMessage());
            }
        }
        return n;
    }

    /**
     * Submits every attempt of every case. The idempotency key names the evaluation, case and
     * attempt, so submitting again after a crash returns the runs already made instead of new ones.
     */
    private Map<String, List<String>> submitAll(EvalStore.Row row, EvalSuite suite) {
        Map<String, List<String>> ids = new LinkedHashMap<>();
        for (int c = 0; c < suite.cases().size(); c++) {
            EvalSuite.Case ec = suite.cases().get(c);
            List<String> attempts = new ArrayList<>();
            for (int k = 0; k < suite.repeat(); k++) {
                String key = row.id() + "-" + c + "-" + k;
                attempts.add(runs.submit(suite.agent(), ec.input(), ec.context(), row.submitter(), key)
                        .run()
                        .id());
            }
            ids.put(ec.name(), attempts);
        }
        store.recordRuns(row.id(), json.writeValueAsString(ids));
        return ids;
    }

    private void drive(String id, EvalSuite suite, String label, Map<String, List<String>> ids) {
        if (!driving.add(id)) {
            return;
        }
        try {
            Map<String, List<EvalScoring.Observation>> observed = await(suite, ids);
            AgentSpec agent = catalog.find(suite.agent()).orElse(null);
            Set<String> known = agent == null ? Set.of() : new HashSet<>(agent.workers());
            EvalReport report = EvalScoring.score(suite, observed, known);
            if (store.finish(
                    id,
                    "completed",
                    clock.instant(),
                    report.summary().routingAccuracy(),
                    report.summary().misrouteRate(),
                    json.writeValueAsString(report),
                    null)) {
                record(label, report, known);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("Evaluation {} failed", id, e);
            store.finish(id, "failed", clock.instant(), null, null, null, String.valueOf(e.getMessage()));
        } finally {
            driving.remove(id);
        }
    }

    private void record(String label, EvalReport report, Set<String> known) {
        AtomicReference<EvalReport.@Nullable Summary> last = lastSummary.get(label);
        if (last != null) {
            last.set(report.summary());
        }
        for (EvalReport.WorkerScore w : report.workers()) {
            if (w.misrouted() > 0) {
                misroutes(label, known.contains(w.worker()) ? w.worker() : "unknown")
                        .increment(w.misrouted());
            }
        }
    }

    /** Waits for every run to end (cancelling those past the case timeout) and reads what each did. */
    private Map<String, List<EvalScoring.Observation>> await(EvalSuite suite, Map<String, List<String>> ids)
            throws InterruptedException {
        Map<String, RunRecord> ended = new LinkedHashMap<>();
        Set<String> timedOut = new HashSet<>();
        List<String> pending = new ArrayList<>();
        ids.values().forEach(pending::addAll);
        Duration timeout = Duration.ofSeconds(suite.caseTimeoutSeconds());
        while (!pending.isEmpty()) {
            for (var it = pending.iterator(); it.hasNext(); ) {
                String runId = it.next();
                RunRecord r = runs.get(TeamScope.allTeams("an evaluation's own runs"), runId);
                if (r.status().terminal()) {
                    ended.put(runId, r);
                    it.remove();
                } else if (clock.instant().isAfter(r.createdAt().plus(timeout))) {
                    try {
                        runs.cancel(
                                TeamScope.allTeams("an evaluation's own runs"),
                                runId,
                                "evaluation (case timeout " + timeout + ")");
                    } catch (ApiProblem finishedMeanwhile) {
                        // it ended between the read and the cancel: scored as it ended
                    }
                    timedOut.add(runId);
                }
            }
            if (!pending.isEmpty()) {
                Thread.sleep(POLL.toMillis());
            }
        }
        AgentSpec agent = catalog.find(suite.agent()).orElse(null);
        Set<String> ownTools = new HashSet<>();
        if (agent != null) {
            ownTools.addAll(agent.tools());
            ownTools.addAll(agent.workers());
        }
        Map<String, List<EvalScoring.Observation>> out = new LinkedHashMap<>();
        ids.forEach((caseName, attempts) -> {
            List<EvalScoring.Observation> list = new ArrayList<>();
            for (String runId : attempts) {
                RunRecord r = ended.get(runId);
                list.add(observe(r, timedOut.contains(runId), ownTools));
            }
            out.put(caseName, list);
        });
        return out;
    }

    private EvalScoring.Observation observe(RunRecord r, boolean timedOut, Set<String> ownTools) {
        List<String> delegated = new ArrayList<>();
        if (r.subagentsJson() != null) {
            for (JsonNode s : json.readTree(r.subagentsJson())) {
                delegated.add(s.path("worker").asString(""));
            }
        }
        List<String> refused = new ArrayList<>();
        if (r.toolsCalledJson() != null) {
            for (JsonNode t : json.readTree(r.toolsCalledJson())) {
                if (!ownTools.contains(t.asString(""))) {
                    refused.add(t.asString(""));
                }
            }
        }
        long durationMs = r.startedAt() == null || r.finishedAt() == null
                ? 0
                : Duration.between(r.startedAt(), r.finishedAt()).toMillis();
        return new EvalScoring.Observation(
                r.id(),
                timedOut ? "timed_out" : r.status().wire(),
                delegated,
                refused,
                tasksSent(r),
                r.result(),
                r.inputTokens(),
                r.outputTokens(),
                // What its model calls cost (all agents of the run), when a price is configured.
                r.cost() > 0 ? r.cost() : null,
                durationMs);
    }

    /**
     * The tasks the orchestrator sent each worker, from the run's {@code subagent_started} events
     * (the delegations' arguments, redacted as stored): its own delegations, or for a workflow
     * every step's.
     */
    private Map<String, List<String>> tasksSent(RunRecord r) {
        boolean all = runs.isWorkflow(r.agent());
        Map<String, List<String>> out = new LinkedHashMap<>();
        long after = 0;
        while (true) {
            List<RunEvents.StoredEvent> page = events.since(r.id(), after, all, 1_000);
            for (RunEvents.StoredEvent e : page) {
                if ("subagent_started".equals(e.type())) {
                    out.computeIfAbsent(e.data().path("worker").asString(""), k -> new ArrayList<>())
                            .add(e.data().path("task").asString(""));
                }
                after = e.seq();
            }
            if (page.size() < 1_000) {
                return out;
            }
        }
    }

    /** The report of an ended evaluation, as stored. */
    public @Nullable JsonNode report(EvalStore.Row row) {
        return row.report() == null ? null : json.readTree(row.report());
    }

    public EvalStore.Row get(String id) {
        return store.find(id).orElseThrow(() -> ApiProblem.notFound("evaluation", id));
    }

    public List<EvalStore.Row> list(@Nullable String afterId, int limit) {
        EvalStore.Row before = afterId == null
                ? null
                : store.find(afterId)
                        .orElseThrow(() -> ApiProblem.badField(
                                        "cursor", "not the nextCursor of a page of evaluations: '" + afterId + "'")
                                .with("parameter", "cursor"));
        return store.list(before, limit);
    }

    /** The suite of a stored evaluation, for the view. */
    ObjectNode suiteOf(EvalStore.Row row) {
        return (ObjectNode) json.readTree(row.suiteJson()).path("suite");
    }

    public EvalSuites suites() {
        return suites;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
