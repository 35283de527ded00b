package dev.cadre.platform.replay;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.AgentConfigException;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.tenancy.TeamScope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Replays a suite of incident cases against a team — the running one or a candidate team YAML — each
 * case as an ordinary run (same submission path, traced, in the console) marked as a replay: its tools
 * answer from the recording ({@link ReplayTool}), its approvals from the recorded decisions ({@link
 * ReplayApprovals}). When every run has ended each is scored ({@link CaseScore}) and the suite
 * aggregated ({@link SuiteScore}); results are durable and a replay a stopped process left running is
 * driven again at start-up.
 */
public final class ReplayService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplayService.class);
    private static final Duration POLL = Duration.ofMillis(200);
    static final int MAX_CASES = 500;
    /** Distinct suite names that get their own metric series; later ones share {@code other}. */
    private static final int MAX_SUITE_SERIES = 50;

    /** A case as given: where it comes from (for errors: a file or {@code suite[i]}) and its YAML. */
    public record CaseInput(String source, String yaml) {}

    /** A replay as it stands: its cases' results and, once ended, the suite's aggregate. */
    public record Replay(
            String id,
            String suite,
            @Nullable String label,
            String team,
            String status,
            String submittedBy,
            Instant createdAt,
            @Nullable Instant finishedAt,
            List<CaseResult> cases,
            @Nullable SuiteScore summary,
            @Nullable String error) {
        /** Whether every case's run has ended and the suite is scored (or the replay failed). */
        public boolean ended() {
            return !status.equals("running");
        }
    }

    private final ReplayStore store;
    private final ReplayRuns replays;
    private final CandidateTeams teams;
    private final RunService runs;
    private final AgentCatalog running;
    private final CaseRecorder recorder;
    private final AuditLog audit;
    private final JsonMapper json;
    private final MeterRegistry registry;
    private final Clock clock;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("cadre-replay-", 0).factory());
    private final Set<String> driving = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicReference<SuiteScore>> lastScore = new ConcurrentHashMap<>();
    private final CaseFile lenient = new CaseFile(name -> true);

    ReplayService(
            ReplayStore store,
            ReplayRuns replays,
            CandidateTeams teams,
            RunService runs,
            AgentCatalog running,
            CaseRecorder recorder,
            AuditLog audit,
            JsonMapper json,
            MeterRegistry registry,
            Clock clock) {
        this.store = store;
        this.replays = replays;
        this.teams = teams;
        this.runs = runs;
        this.running = running;
        this.recorder = recorder;
        this.audit = audit;
        this.json = json;
        this.registry = registry;
        this.clock = clock;
    }

    /**
     * Starts replaying {@code cases} against {@code team} ({@code running}, or the path of a team YAML or
     * a directory of them); throws {@link ReplayInputException} naming the wrong field before anything
     * runs.
     */
    public Replay start(String suite, @Nullable String label, List<CaseInput> cases, String team, Actor actor) {
        if (suite.isBlank() || suite.length() > 100) {
            throw new ReplayInputException("name", "must be 1 to 100 characters");
        }
        if (cases.isEmpty() || cases.size() > MAX_CASES) {
            throw new ReplayInputException("suite", "must list 1 to " + MAX_CASES + " cases");
        }
        AgentCatalog catalog;
        boolean candidate = !team.equals(CandidateTeams.RUNNING);
        try {
            catalog = candidate ? teams.load(team) : running;
        } catch (AgentConfigException e) {
            throw new ReplayInputException(
                    "team", e.problems().stream().map(p -> "team: " + p).toList());
        } catch (IllegalArgumentException e) {
            throw new ReplayInputException("team", e.getMessage());
        }
        // Tools come from the platform's providers; workers and agents from the team replayed.
        CaseFile files = new CaseFile(
                name -> running.tools().contains(name) || catalog.find(name).isPresent());
        List<IncidentCase> parsed = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (CaseInput in : cases) {
            try {
                IncidentCase c = files.read(in.source(), in.yaml());
                String agent = c.input().agent();
                if (!catalog.runnable(agent)) {
                    errors.add(in.source() + ": input.agent: the team replayed has no agent or workflow '" + agent
                            + "' (it has " + catalog.entryPoints() + ")");
                } else if (catalog.isInternal(agent)) {
                    // As over REST: an internal agent is a worker or step only, never a run's entry.
                    errors.add(in.source() + ": input.agent: '" + agent
                            + "' is internal (a worker or step only) and cannot start a run; entry points: "
                            + catalog.entryPoints());
                } else if (candidate && catalog.workflow(agent).isPresent()) {
                    errors.add(in.source() + ": input.agent: '" + agent
                            + "' is a workflow; workflows are replayed on the running team only");
                }
                parsed.add(c);
            } catch (CaseFormatException e) {
                errors.addAll(e.errors());
            }
        }
        if (!errors.isEmpty()) {
            throw new ReplayInputException(fieldOf(errors.getFirst()), errors);
        }
        String id = "rpl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        Instant now = clock.instant();
        store.insert(new ReplayStore.Row(
                id, suite, label, team, "running", actor.name(), now, null, parsed.size(), null, null));
        CandidateTeams.Team loaded = candidate ? teams.register(id, catalog) : null;
        audit.record(actor.name(), "replay.start", id, "suite=" + suite + " team=" + team + " cases=" + parsed.size());
        for (int i = 0; i < parsed.size(); i++) {
            IncidentCase c = parsed.get(i);
            int index = i;
            String yaml = cases.get(i).yaml();
            try {
                runs.submitPrepared(
                        c.input().agent(),
                        c.input().input(),
                        c.input().context(),
                        actor,
                        RunService.Envelope.NONE,
                        catalog::runnable,
                        run -> {
                            // Durable first, then known here: the run is stored (and can execute) only after.
                            store.insertRun(
                                    new ReplayStore.RunRow(run.id(), id, index, c.name(), yaml, team, now, null));
                            replays.begin(run.id(), c, loaded == null ? null : loaded.runner());
                        });
            } catch (dev.cadre.platform.web.ApiProblem refused) {
                // The run was refused (e.g. an input longer than a run takes): the replay cannot be whole.
                String source = cases.get(i).source();
                String why = source + ": " + refused.getMessage();
                store.finish(id, "failed", clock.instant(), null, why);
                teams.release(id);
                throw new ReplayInputException(fieldOf(why), List.of(why));
            }
        }
        log.info("Replay {} of suite {} ({} cases) against team {} started", id, suite, parsed.size(), team);
        drive(id);
        return find(id).orElseThrow();
    }

    /** The field an error names: {@code suite[2]: version: ...} names {@code suite[2].version}. */
    static String fieldOf(String error) {
        String[] parts = error.split(": ", 3);
        return parts.length >= 3 ? parts[0] + "." + parts[1] : parts[0];
    }

    public Optional<Replay> find(String id) {
        return store.find(id).map(this::view);
    }

    /** The newest replays first. */
    public List<Replay> list(int limit) {
        return store.list(limit).stream().map(this::view).toList();
    }

    /** Waits until the replay {@code id} has ended (or {@code timeout} passed) and answers it as it stands. */
    public Replay await(String id, Duration timeout) throws InterruptedException {
        Instant deadline = clock.instant().plus(timeout);
        Replay r = find(id).orElseThrow();
        while (!r.ended() && clock.instant().isBefore(deadline)) {
            Thread.sleep(POLL.toMillis());
            r = find(id).orElseThrow();
        }
        return r;
    }

    /** Drives again the replays a stopped process left running (their runs are durable). */
    public void resumeAll() {
        store.running().forEach(this::drive);
    }

    private void drive(String id) {
        if (!driving.add(id)) {
            return;
        }
        executor.submit(() -> {
            try {
                while (!scoreEnded(id)) {
                    Thread.sleep(POLL.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("Replay {} failed while scoring", id, e);
                store.finish(id, "failed", clock.instant(), null, "scoring failed: " + e.getMessage());
                teams.release(id);
            } finally {
                driving.remove(id);
            }
        });
    }

    /** Scores the ended runs of replay {@code id} not scored yet; true once every run is scored and the replay ended. */
    private boolean scoreEnded(String id) {
        ReplayStore.Row replay = store.find(id).orElse(null);
        if (replay == null || !replay.status().equals("running")) {
            return true;
        }
        List<ReplayStore.RunRow> rows = store.runsOf(id);
        boolean all = rows.size() == replay.casesTotal();
        for (ReplayStore.RunRow row : rows) {
            if (row.score() != null) {
                continue;
            }
            RunRecord run = runs.get(TeamScope.allTeams("a replay's own runs"), row.runId());
            if (!run.status().terminal()) {
                all = false;
                continue;
            }
            CaseScore score = score(run, row);
            store.score(row.runId(), json.writeValueAsString(score));
            replays.end(row.runId());
        }
        if (!all) {
            return false;
        }
        Replay done = view(replay);
        SuiteScore summary = SuiteScore.of(done.cases());
        if (store.finish(id, "completed", clock.instant(), json.writeValueAsString(summary), null)) {
            record(replay.suite(), done.cases(), summary);
            log.info(
                    "Replay {} of suite {} ended: {} of {} cases passed",
                    id,
                    replay.suite(),
                    summary.passed(),
                    summary.cases());
        }
        teams.release(id);
        return true;
    }

    /** The replay run {@code run} (ended) scored against its case's expectations. */
    CaseScore score(RunRecord run, ReplayStore.RunRow row) {
        IncidentCase c = lenient.read(row.caseName(), row.caseYaml());
        IncidentCase observed = recorder.record(run, row.caseName(), IncidentCase.Expectations.NONE);
        List<String> deviations = new ArrayList<>();
        for (IncidentCase.Call call : observed.calls()) {
            JsonNode out = parse(call.output());
            if (out != null
                    && "no_recording".equals(out.path("error").path("code").asString(""))) {
                deviations.add(out.path("error").path("message").asString());
            }
        }
        for (IncidentCase.Decision d : observed.decisions()) {
            if (ReplayApprovals.NO_DECISION.equals(d.comment())) {
                deviations.add("no recorded decision for " + d.tool() + " "
                        + dev.cadre.agent.approval.CanonicalJson.write(d.arguments()));
            }
        }
        Duration duration = run.startedAt() == null || run.finishedAt() == null
                ? Duration.ZERO
                : Duration.between(run.startedAt(), run.finishedAt());
        return CaseScore.of(
                row.caseName(),
                c.expect(),
                observed,
                deviations,
                run.iterations() + subagentTurns(run.subagentsJson() == null ? null : parse(run.subagentsJson())),
                run.inputTokens() + run.outputTokens(),
                run.cost(),
                duration);
    }

    private static int subagentTurns(@Nullable JsonNode subagents) {
        int n = 0;
        if (subagents != null && subagents.isArray()) {
            for (JsonNode s : subagents) {
                n += s.path("iterations").asInt(0) + subagentTurns(s.path("subagents"));
            }
        }
        return n;
    }

    private @Nullable JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (JacksonException e) {
            return null;
        }
    }

    private Replay view(ReplayStore.Row row) {
        List<CaseResult> results = new ArrayList<>();
        for (ReplayStore.RunRow r : store.runsOf(row.id())) {
            String status;
            try {
                status = runs.get(TeamScope.allTeams("a replay's own runs"), r.runId())
                        .status()
                        .wire();
            } catch (dev.cadre.platform.web.ApiProblem gone) {
                status = "unknown"; // removed by retention
            }
            results.add(new CaseResult(
                    r.caseIndex(),
                    r.caseName(),
                    r.runId(),
                    status,
                    r.score() == null ? null : json.readValue(r.score(), CaseScore.class)));
        }
        return new Replay(
                row.id(),
                row.suite(),
                row.label(),
                row.team(),
                row.status(),
                row.submittedBy(),
                row.createdAt(),
                row.finishedAt(),
                List.copyOf(results),
                row.summary() == null ? null : json.readValue(row.summary(), SuiteScore.class),
                row.error());
    }

    /** Metrics of an ended replay, labelled by suite name only (at most {@value #MAX_SUITE_SERIES} of them). */
    private void record(String suite, List<CaseResult> cases, SuiteScore summary) {
        String label = lastScore.containsKey(suite) || lastScore.size() < MAX_SUITE_SERIES ? suite : "other";
        for (CaseResult c : cases) {
            Counter.builder("cadre.replay.cases")
                    .description("Replayed incident cases by suite and outcome (passed, failed)")
                    .tag("suite", label)
                    .tag("outcome", c.passed() ? "passed" : "failed")
                    .register(registry)
                    .increment();
        }
        AtomicReference<SuiteScore> last = lastScore.computeIfAbsent(label, s -> {
            AtomicReference<SuiteScore> ref = new AtomicReference<>(summary);
            gauge(
                    "cadre.replay.pass.ratio",
                    "Share of the suite's cases that passed, last replay",
                    s,
                    ref,
                    x -> x.cases() == 0 ? 1.0 : (double) x.passed() / x.cases());
            gauge(
                    "cadre.replay.root.cause.ratio",
                    "Share of cases whose root cause was found, last replay",
                    s,
                    ref,
                    x -> x.cases() == 0 ? 1.0 : (double) x.rootCauseFound() / x.cases());
            gauge("cadre.replay.recall", "Mean recall over expected findings, last replay", s, ref, SuiteScore::recall);
            gauge("cadre.replay.precision", "Mean precision of findings, last replay", s, ref, SuiteScore::precision);
            gauge(
                    "cadre.replay.forbidden.actions",
                    "Forbidden actions proposed, last replay",
                    s,
                    ref,
                    x -> x.forbiddenProposed());
            gauge("cadre.replay.deviations", "Calls without a recording, last replay", s, ref, x -> x.deviations());
            gauge("cadre.replay.tokens", "Tokens the suite's runs used, last replay", s, ref, x -> x.tokens());
            return ref;
        });
        last.set(summary);
    }

    private void gauge(
            String name,
            String description,
            String suite,
            AtomicReference<SuiteScore> ref,
            ToDoubleFunction<SuiteScore> value) {
        Gauge.builder(name, ref, r -> value.applyAsDouble(r.get()))
                .description(description)
                .tag("suite", suite)
                .register(registry);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        teams.close();
    }
}
