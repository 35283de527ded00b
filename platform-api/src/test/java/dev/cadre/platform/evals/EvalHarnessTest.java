package dev.cadre.platform.evals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The evaluation harness end to end over REST and its command line: an orchestrator on the OpenAI
 * wire format whose (local, deliberately imperfect) router misroutes on purpose, so that the
 * misroutes, missed workers, decomposition and consistency figures are counted from what the runs
 * really did — and the shipped ops-team suite on the scripted team.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-eval-test;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:eval-agents/*.yaml",
            "cadre.tracing.store-delay=PT0.05S",
            "cadre.runbooks.install-demo=false",
            "cadre.models.providers.router.type=openai",
            "cadre.models.providers.router.api-key=sk-eval-test",
            // Priced, so the report's cost per run is the router's calls: 2 × (100 in, 10 out).
            "cadre.models.prices.test-router.input-per-million=1000",
            "cadre.models.prices.test-router.output-per-million=2000"
        })
class EvalHarnessTest {

    static final RouterServer ROUTER = new RouterServer();

    /** Six cases, two runs each; the expected figures below are worked out in the comments. */
    static final String ROUTER_SUITE = """
            suite: router-routing
            agent: router
            repeat: 2
            caseTimeout: 60s
            cases:
              - name: cpu-load
                input: check cpu load
                expect: {workers: [cpu-worker], facts: [routed and done]}
              - name: disk-space
                input: check disk space
                expect: {workers: [disk-worker]}
              - name: memory-use          # misrouted to cpu-worker both times
                input: check memory use
                expect: {workers: [memory-worker]}
              - name: everything          # all three in one turn: the path is judged
                input: check everything
                expect: {path: [[cpu-worker, memory-worker, disk-worker]]}
              - name: ghost               # calls a worker that does not exist both times
                input: check the ghost host
                expect: {workers: [disk-worker]}
              - name: storage             # disk-worker once, cpu-worker once: inconsistent
                input: check storage
                expect: {workers: [disk-worker]}
            """;

    @DynamicPropertySource
    static void router(DynamicPropertyRegistry registry) {
        registry.add("cadre.models.providers.router.base-url", ROUTER::baseUrl);
    }

    @AfterAll
    static void stopRouter() {
        ROUTER.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    private JsonNode awaitEnd(Api api, String id) {
        // 14 runs of a real provider path: on a loaded machine they may take longer than one wait.
        for (int attempt = 1; ; attempt++) {
            try {
                return Await.until(
                        "evaluation " + id + " to end",
                        () -> api.get("/api/v1/evals/" + id, Api.ADMIN_KEY).json(),
                        e -> !e.path("status").asString().equals("running"));
            } catch (AssertionError stillRunning) {
                if (attempt == 4) {
                    throw stillRunning;
                }
            }
        }
    }

    @Test
    void anImperfectRouterIsScoredFromWhatItsRunsDid() {
        Api api = new Api(port);
        Api.Response started = api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("definition", ROUTER_SUITE)));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        assertThat(started.header("Location"))
                .isEqualTo("/api/v1/evals/" + started.json().path("id").asString());
        assertThat(started.json().path("runs").asInt()).isEqualTo(12);

        JsonNode eval = awaitEnd(api, started.json().path("id").asString());
        assertThat(eval.path("status").asString()).as(eval.toString()).isEqualTo("completed");
        JsonNode s = eval.path("report").path("summary");
        assertThat(s.path("runs").asInt()).isEqualTo(12);
        assertThat(s.path("failedRuns").asInt()).isZero();
        // Right: cpu-load 2, disk-space 2, everything 2, storage 1 → 7 of 12.
        assertThat(s.path("routingAccuracy").asDouble()).isCloseTo(7.0 / 12, within(1e-9));
        // Calls: 2+2+2+2 single calls, everything 2×3, storage 2 → 16; wrong: memory 2, ghost 2, storage 1.
        assertThat(s.path("delegations").asLong()).isEqualTo(16);
        assertThat(s.path("misroutes").asLong()).isEqualTo(5);
        assertThat(s.path("misrouteRate").asDouble()).isCloseTo(5.0 / 16, within(1e-9));
        // memory-use misses memory-worker twice, ghost misses disk-worker twice, storage once.
        assertThat(s.path("missed").asLong()).isEqualTo(5);
        assertThat(s.path("decompositionAccuracy").asDouble()).isEqualTo(1.0);
        // Five cases route the same way both times; storage splits 1:1.
        assertThat(s.path("consistency").asDouble()).isCloseTo(5.5 / 6, within(1e-9));
        assertThat(s.path("factRecall").asDouble()).isEqualTo(1.0);
        assertThat(s.path("meanInputTokens").asDouble()).isGreaterThanOrEqualTo(200);
        // 2 calls × (100 × 1000 + 10 × 2000) / 1e6; the scripted workers have no price.
        assertThat(s.path("meanCost").asDouble()).isCloseTo(0.24, within(1e-9));

        Map<String, JsonNode> workers = new java.util.HashMap<>();
        eval.path("report")
                .path("workers")
                .forEach(w -> workers.put(w.path("worker").asString(), w));
        assertThat(workers.keySet())
                .containsExactlyInAnyOrder("cpu-worker", "memory-worker", "disk-worker", "ghost-worker");
        assertWorker(workers.get("cpu-worker"), true, 4, 7, 4, 3, 0);
        assertWorker(workers.get("memory-worker"), true, 4, 2, 2, 0, 2);
        assertWorker(workers.get("disk-worker"), true, 8, 5, 5, 0, 3);
        assertWorker(workers.get("ghost-worker"), false, 0, 2, 0, 2, 0);
        assertThat(workers.get("cpu-worker").path("misrouteRate").asDouble()).isCloseTo(3.0 / 7, within(1e-9));

        JsonNode memoryCase = caseNamed(eval, "memory-use");
        assertThat(memoryCase.path("routingAccuracy").asDouble()).isZero();
        assertThat(memoryCase.path("attempts").get(0).path("misrouted").toString())
                .isEqualTo("[\"cpu-worker\"]");
        assertThat(memoryCase.path("attempts").get(0).path("missed").toString()).isEqualTo("[\"memory-worker\"]");
        JsonNode ghost = caseNamed(eval, "ghost");
        assertThat(ghost.path("attempts").get(0).path("refused").toString()).isEqualTo("[\"ghost-worker\"]");
        assertThat(caseNamed(eval, "storage").path("consistency").asDouble()).isEqualTo(0.5);
        // Every attempt is a real run of the orchestrator, linked from the report.
        String runId = memoryCase.path("attempts").get(0).path("runId").asString();
        assertThat(api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY)
                        .json()
                        .path("agent")
                        .asString())
                .isEqualTo("router");

        // Metrics: suites from requests are labelled "custom"; misroutes per known worker, others "unknown".
        assertThat(registry.get("cadre_eval_misroutes")
                        .tags("suite", "custom", "worker", "cpu-worker")
                        .counter()
                        .count())
                .isEqualTo(3.0);
        assertThat(registry.get("cadre_eval_misroutes")
                        .tags("suite", "custom", "worker", "unknown")
                        .counter()
                        .count())
                .isEqualTo(2.0);
        assertThat(registry.get("cadre_eval_routing_accuracy")
                        .tags("suite", "custom")
                        .gauge()
                        .value())
                .isCloseTo(7.0 / 12, within(1e-9));
    }

    @Test
    void theShippedOpsTeamSuiteRoutesEveryCaseTheWayItsInstructionsSay() {
        Api api = new Api(port);
        assertThat(api.get("/api/v1/evals/suites", Api.ADMIN_KEY)
                        .json()
                        .get(0)
                        .path("name")
                        .asString())
                .isEqualTo("ops-team");
        Api.Response started =
                api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("suite", "ops-team", "repeat", 1)));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        JsonNode eval = awaitEnd(api, started.json().path("id").asString());
        JsonNode s = eval.path("report").path("summary");
        assertThat(eval.path("status").asString()).as(eval.toString()).isEqualTo("completed");
        assertThat(s.path("routingAccuracy").asDouble()).as(eval.toString()).isEqualTo(1.0);
        assertThat(s.path("decompositionAccuracy").asDouble()).isEqualTo(1.0);
        assertThat(s.path("misroutes").asLong()).isZero();
        assertThat(s.path("delegations").asLong()).isEqualTo(15);
        assertThat(s.path("factRecall").asDouble()).isEqualTo(1.0);
        assertThat(registry.get("cadre_eval_routing_accuracy")
                        .tags("suite", "ops-team")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
    }

    @Test
    void theRightWorkerToldTheWrongThing_isRoutedRightButDecomposedWrong() {
        Api api = new Api(port);
        String suite = """
                suite: router-tasks
                agent: router
                repeat: 2
                caseTimeout: 60s
                cases:
                  - name: cpu-load        # the task it sends ("check cpu-worker") mentions cpu
                    input: check cpu load
                    expect: {workers: [cpu-worker], tasks: {cpu-worker: [cpu]}}
                  - name: swap            # the right worker both times, told about the disk instead
                    input: check swap usage
                    expect: {workers: [memory-worker], tasks: {memory-worker: [swap, memory]}}
                """;
        Api.Response started = api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("definition", suite)));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        JsonNode eval = awaitEnd(api, started.json().path("id").asString());
        assertThat(eval.path("status").asString()).as(eval.toString()).isEqualTo("completed");
        JsonNode s = eval.path("report").path("summary");
        // Every run reached exactly its worker; only cpu-load's two runs said what it expected.
        assertThat(s.path("routingAccuracy").asDouble()).isEqualTo(1.0);
        assertThat(s.path("misroutes").asLong()).isZero();
        assertThat(s.path("decompositionAccuracy").asDouble()).isEqualTo(0.5);

        // swap: routed right, decomposed wrong — the task it sent says neither phrase.
        JsonNode swap = caseNamed(eval, "swap");
        assertThat(swap.path("routingAccuracy").asDouble()).isEqualTo(1.0);
        assertThat(swap.path("decompositionAccuracy").asDouble()).isZero();
        JsonNode swapRun = swap.path("attempts").get(0);
        assertThat(swapRun.path("routingCorrect").asBoolean()).isTrue();
        assertThat(swapRun.path("tasksCorrect").asBoolean()).isFalse();
        assertThat(swapRun.path("pathCorrect").isNull()).isTrue();
        assertThat(swapRun.path("taskMisses").toString())
                .isEqualTo("[\"memory-worker: swap\",\"memory-worker: memory\"]");
        JsonNode cpuRun = caseNamed(eval, "cpu-load").path("attempts").get(0);
        assertThat(cpuRun.path("tasksCorrect").asBoolean()).isTrue();
        assertThat(cpuRun.path("taskMisses").toString()).isEqualTo("[]");
    }

    @Test
    void theShippedSalesSuiteCountsTheScriptedAssistantsOneMisroute() {
        Api api = new Api(port);
        Api.Response started =
                api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("suite", "sales-assistant", "repeat", 1)));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        JsonNode eval = awaitEnd(api, started.json().path("id").asString());
        JsonNode s = eval.path("report").path("summary");
        assertThat(eval.path("status").asString()).as(eval.toString()).isEqualTo("completed");
        // The script always asks for the analysis: right for the two "why" cases, one extra call
        // for the figures-only question.
        assertThat(s.path("routingAccuracy").asDouble()).isCloseTo(2.0 / 3, within(1e-9));
        assertThat(s.path("decompositionAccuracy").asDouble()).isEqualTo(1.0);
        assertThat(s.path("delegations").asLong()).isEqualTo(6);
        assertThat(s.path("misroutes").asLong()).isEqualTo(1);
        assertThat(caseNamed(eval, "figures-only")
                        .path("attempts")
                        .get(0)
                        .path("misrouted")
                        .toString())
                .isEqualTo("[\"sales-analysis\"]");
    }

    @Test
    void aSuiteWithMistakesIsRefusedWithEveryFieldNamed() {
        Api api = new Api(port);
        Api.Response bad = api.post(
                "/api/v1/evals",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "definition",
                        Map.of(
                                "suite",
                                "typo",
                                "agent",
                                "router",
                                "repeat",
                                50,
                                "cases",
                                java.util.List.of(
                                        Map.of(
                                                "name",
                                                "a",
                                                "input",
                                                "x",
                                                "expect",
                                                Map.of(
                                                        "workers",
                                                        java.util.List.of("disk-wroker"),
                                                        "tasks",
                                                        Map.of("disk-worker", java.util.List.of(" ")))),
                                        Map.of("name", "a", "expect", Map.of()))))));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("Content-Type")).startsWith("application/problem+json");
        assertThat(bad.json().path("problems").toString())
                .contains("repeat: must be a whole number from 1 to 20, got 50")
                .contains("cases[0].expect.workers[0]: 'disk-wroker' is not a worker of router")
                .contains("cases[1].input: required")
                .contains("cases[1].expect: give at least one of workers, path, facts or tasks")
                .contains("cases[0].expect.tasks.disk-worker: 'disk-worker' is not one of the workers this case"
                        + " expects [disk-wroker]")
                .contains("cases[0].expect.tasks.disk-worker[0]: must be a non-empty string");

        assertThat(api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("suite", "nope")))
                        .json()
                        .path("detail")
                        .asString())
                .isEqualTo("suite: unknown suite 'nope' (shipped: [ops-team, sales-assistant])");
        assertThat(api.post("/api/v1/evals", Api.ADMIN_KEY, "{}")
                        .json()
                        .path("detail")
                        .asString())
                .startsWith("suite: give exactly one of 'suite'");
        assertThat(api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("definition", "suite: [unclosed")))
                        .json()
                        .path("detail")
                        .asString())
                .startsWith("definition: not readable YAML or JSON");
    }

    @Test
    void theCommandLineGatesOnRoutingAccuracy() throws Exception {
        Path suite = Files.createTempFile("router-suite", ".yaml");
        Files.writeString(suite, ROUTER_SUITE);
        String url = "http://127.0.0.1:" + port;

        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = new EvalCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(
                        new String[] {
                            "--url", url, "--file", suite.toString(), "--repeat", "1", "--min-routing-accuracy", "0.9"
                        },
                        Map.of("CADRE_API_KEY", Api.ADMIN_KEY));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(1);
        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(report).contains("suite router-routing on router: 6 cases x 1 runs (0 failed)");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is below 90.0%");
        assertThat(report).containsPattern("ghost-worker \\(\\?\\) +0 +1 +1 +0 100\\.0%");

        var out2 = new ByteArrayOutputStream();
        int ok = new EvalCli(
                        new PrintStream(out2, true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream()))
                .run(
                        new String[] {
                            "--url",
                            url,
                            "--key",
                            Api.ADMIN_KEY,
                            "--suite",
                            "ops-team",
                            "--repeat",
                            "1",
                            "--min-routing-accuracy",
                            "1"
                        },
                        Map.of());
        assertThat(ok).as(out2.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out2.toString(StandardCharsets.UTF_8)).contains("routing accuracy        100.0%");

        var usage = new ByteArrayOutputStream();
        assertThat(new EvalCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(usage, true, StandardCharsets.UTF_8))
                        .run(new String[] {"--suite", "ops-team"}, Map.of()))
                .isEqualTo(2);
        assertThat(usage.toString(StandardCharsets.UTF_8)).contains("no API key: pass --key or set CADRE_API_KEY");
    }

    @Test
    void evaluationsPageByCursor() {
        Api api = new Api(port);
        for (int i = 0; i < 2; i++) {
            awaitEnd(
                    api,
                    api.post("/api/v1/evals", Api.ADMIN_KEY, Api.json(Map.of("suite", "ops-team", "repeat", 1)))
                            .json()
                            .path("id")
                            .asString());
        }
        JsonNode first = api.get("/api/v1/evals?limit=1", Api.ADMIN_KEY).json();
        assertThat(first.path("items")).hasSize(1);
        assertThat(first.path("items").get(0).path("report").isNull()).isTrue();
        String cursor = first.path("nextCursor").asString();
        JsonNode second =
                api.get("/api/v1/evals?limit=1&cursor=" + cursor, Api.ADMIN_KEY).json();
        assertThat(second.path("items").get(0).path("id").asString())
                .isNotEqualTo(first.path("items").get(0).path("id").asString());
    }

    @Autowired
    EvalService service;

    @Autowired
    EvalStore store;

    @Autowired
    org.springframework.jdbc.core.simple.JdbcClient jdbc;

    @Test
    void anEvaluationLeftRunningByAStoppedProcessIsPickedUpWithoutSubmittingTwice() {
        Api api = new Api(port);
        EvalSuite suite = service.suites().shipped("ops-team").orElseThrow().withRepeat(1);
        String id = "eval_interrupted" + System.nanoTime();
        // What a process that died right after recording the evaluation leaves behind.
        store.insert(new EvalStore.Row(
                id,
                suite.name(),
                suite.agent(),
                1,
                "running",
                "bootstrap",
                java.time.Instant.now(),
                null,
                3,
                null,
                null,
                Api.json(Map.of("label", "ops-team", "suite", suite)),
                "{}",
                null,
                null,
                null));
        assertThat(service.resumeAll()).isEqualTo(1);
        JsonNode first = awaitEnd(api, id);
        assertThat(first.path("status").asString()).as(first.toString()).isEqualTo("completed");
        List<String> runs = runIdsOf(first);
        assertThat(runs).hasSize(3).doesNotHaveDuplicates();

        // Dying again after the runs were submitted: picking it up finds the same runs, not new ones.
        jdbc.sql("UPDATE cadre_eval SET status = 'running', report = NULL WHERE id = ?")
                .param(id)
                .update();
        assertThat(service.resumeAll()).isEqualTo(1);
        JsonNode second = awaitEnd(api, id);
        assertThat(runIdsOf(second)).isEqualTo(runs);
    }

    private static List<String> runIdsOf(JsonNode eval) {
        List<String> ids = new java.util.ArrayList<>();
        eval.path("report")
                .path("cases")
                .forEach(c ->
                        c.path("attempts").forEach(a -> ids.add(a.path("runId").asString())));
        return ids;
    }

    private static void assertWorker(
            JsonNode w, boolean known, int expected, int routed, int correct, int misrouted, int missed) {
        assertThat(w.path("known").asBoolean()).as(w.toString()).isEqualTo(known);
        assertThat(w.path("expected").asInt()).as(w.toString()).isEqualTo(expected);
        assertThat(w.path("routed").asInt()).as(w.toString()).isEqualTo(routed);
        assertThat(w.path("correct").asInt()).as(w.toString()).isEqualTo(correct);
        assertThat(w.path("misrouted").asInt()).as(w.toString()).isEqualTo(misrouted);
        assertThat(w.path("missed").asInt()).as(w.toString()).isEqualTo(missed);
    }

    private static JsonNode caseNamed(JsonNode eval, String name) {
        for (JsonNode c : eval.path("report").path("cases")) {
            if (c.path("name").asString().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no case " + name + " in " + eval);
    }
}
