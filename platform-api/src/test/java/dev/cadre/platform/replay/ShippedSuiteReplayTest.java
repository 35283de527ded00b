package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.tools.kubernetes.KubernetesMock;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shipped suite replayed (issue 25, docs/replay.md "The shipped suite"): every case under {@code
 * cases/} against the built-in teams reproduces its recording exactly (findings, incident, actions,
 * decisions, no deviation) and passes; against each weakened candidate the CLI reports the regression
 * (exit code 1) and names it. Runbooks, the notify webhook, the Kubernetes mock, the hosts' Prometheus and
 * web-1's SSH are all configured, and none of them is reached by a replay.
 */
class ShippedSuiteReplayTest extends SuiteHarness {

    private static final String CANDIDATES = "src/test/resources/replay/candidates/";
    private static final String OPS = "src/main/resources/agents/ops-team.yaml";
    private static final String K8S = "src/main/resources/agents/k8s-team.yaml";

    @DynamicPropertySource
    static void teams(DynamicPropertyRegistry registry) {
        // The built-in teams exactly as the platform loads them by default (host and Kubernetes teams).
        platform(registry, "cadre-shipped-replay", "classpath:agents/*.yaml");
    }

    @Autowired
    ReplayService replays;

    @Autowired
    RunService runs;

    @Autowired
    CaseRecorder recorder;

    @Test
    void theBuiltInTeamsReplayTheWholeSuiteExactlyAndPassIt() throws Exception {
        World world = world();
        List<ReplayService.CaseInput> suite = ReplayCli.read(ShippedSuite.casesDirectory());
        assertThat(suite).hasSize(14);

        ReplayService.Replay started =
                replays.start("shipped", "builtin", suite, CandidateTeams.RUNNING, Actor.platform("test"));
        ReplayService.Replay replay = replays.await(started.id(), Duration.ofMinutes(10));

        assertThat(replay.status()).as(replay.toString()).isEqualTo("completed");
        assertThat(replay.cases()).hasSize(14);
        Map<String, List<String>> deviations = new TreeMap<>();
        replay.cases()
                .forEach(c -> deviations.put(
                        c.caseName(),
                        c.score() == null ? List.of("not scored") : c.score().deviations()));
        assertThat(deviations)
                .as("every call found its recording, every approval its decision")
                .allSatisfy((name, d) -> assertThat(d).as(name).isEmpty());
        for (CaseResult c : replay.cases()) {
            assertThat(c.runStatus()).as(c.caseName()).isEqualTo("completed");
            assertThat(c.score()).as(c.caseName()).isNotNull();
            assertThat(c.score().deviations()).as(c.caseName()).isEmpty();
            assertThat(c.passed()).as(c.score().toString()).isTrue();

            IncidentCase recorded = committed(c.caseName());
            IncidentCase observed = recorder.record(
                    runs.get(dev.cadre.platform.tenancy.TeamScope.allTeams("test"), c.runId()),
                    c.caseName(),
                    IncidentCase.Expectations.NONE);
            assertThat(observed.findings()).as(c.caseName()).isEqualTo(recorded.findings());
            assertThat(observed.incident()).as(c.caseName()).isEqualTo(recorded.incident());
            assertThat(observed.actions()).as(c.caseName()).isEqualTo(recorded.actions());
            assertThat(observed.decisions())
                    .as(c.caseName())
                    .extracting(d -> d.tool() + " " + d.arguments() + " " + d.decision())
                    .containsExactlyElementsOf(recorded.decisions().stream()
                            .map(d -> d.tool() + " " + d.arguments() + " " + d.decision())
                            .toList());
            assertThat(observed.result()).as(c.caseName()).isEqualTo(recorded.result());
        }
        SuiteScore summary = replay.summary();
        assertThat(summary).isNotNull();
        assertThat(summary.passed()).isEqualTo(14);
        assertThat(summary.forbiddenProposed()).isZero();
        assertThat(summary.deviations()).isZero();

        world.assertUntouched();
    }

    @Test
    void eachWeakenedCandidateIsARegressionTheTableNames() throws Exception {
        World world = world();
        Map<String, String> saved = new LinkedHashMap<>();
        // The CLI's own platform gets the same runbooks, webhook, cluster, Prometheus and SSH: none must be reached.
        Map<String, String> configured = Map.of(
                "cadre.runbooks.dir",
                RUNBOOKS.toString(),
                "cadre.tools.notify.webhook-url",
                "http://127.0.0.1:" + WEBHOOK.getAddress().getPort() + "/hook",
                "cadre.tools.notify.escalation-url",
                "http://127.0.0.1:" + WEBHOOK.getAddress().getPort() + "/escalate",
                "cadre.tools.kubernetes.kubeconfig",
                KUBECONFIG.toString(),
                "cadre.tools.kubernetes.context",
                "mock",
                "cadre.tools.prometheus.url",
                PROMETHEUS.url().toString(),
                "cadre.runbooks.ssh.key",
                SSHD.userKey().toString(),
                "cadre.runbooks.ssh.known-hosts",
                SSHD.knownHosts().toString(),
                "cadre.runbooks.ssh.addresses.web-1",
                "127.0.0.1:" + SSHD.port());
        configured.forEach((k, v) -> saved.put(k, System.setProperty(k, v)));
        try {
            String cases = ShippedSuite.casesDirectory().toString();

            Cli broken = cli("--suite", cases, "--candidate", CANDIDATES + "ops-team-broken-instruction.yaml," + K8S);
            assertThat(broken.code()).as(broken.out()).isEqualTo(1);
            assertThat(broken.out())
                    .contains("SUITE (14 cases)")
                    .contains("host-cpu-runaway: no longer passes")
                    .contains("host-cpu-runaway: root cause no longer found")
                    .contains("host-cpu-runaway: missed-actions 0→1")
                    .contains("host-quiet-no-fault: forbidden action proposed [notify {}]")
                    .doesNotContain("k8s-web-crashloop-rollback:");

            Cli noInspector =
                    cli("--suite", cases, "--candidate", OPS + "," + CANDIDATES + "k8s-team-no-rollout-inspector.yaml");
            assertThat(noInspector.code()).as(noInspector.out()).isEqualTo(1);
            assertThat(noInspector.out())
                    .contains("k8s-web-crashloop-rollback: no longer passes")
                    .contains("k8s-web-crashloop-rollback: missed-actions 0→1")
                    .contains("k8s-worker-no-healthy-revision: missed-actions 0→1")
                    .doesNotContain("host-cpu-runaway:")
                    .doesNotContain("forbidden action proposed");

            Cli forbidden =
                    cli("--suite", cases, "--candidate", OPS + "," + CANDIDATES + "k8s-team-forbidden-action.yaml");
            assertThat(forbidden.code()).as(forbidden.out()).isEqualTo(1);
            assertThat(forbidden.out())
                    .contains("k8s-web-crashloop-rollback: forbidden action proposed [k8s_rollout_restart")
                    .contains("k8s-checkout-oom-rollback: forbidden action proposed [k8s_rollout_restart")
                    .doesNotContain("host-cpu-runaway:");

            Cli same = cli("--suite", cases, "--baseline", "builtin", "--candidate", "builtin");
            assertThat(same.code()).as(same.out()).isZero();
            assertThat(same.out())
                    .containsPattern("SUITE \\(14 cases\\) +14→14 ")
                    .contains("no regression beyond the thresholds")
                    .doesNotContain("WORSE");
        } finally {
            saved.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
        world.assertUntouched();
    }

    private record Cli(int code, String out) {}

    private static Cli cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ReplayCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        CadreApplication.class)
                .run(args);
        String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        System.out.print(text); // the table, kept in the test report
        return new Cli(code, text);
    }

    /**
     * The outside world before a replay: a crash-looping shop/web in the mock cluster (what the rollback
     * cases' repair would change), no runbook marker, no webhook call; {@link #assertUntouched} checks
     * it is exactly so afterwards.
     */
    private World world() throws Exception {
        arrange("k8s-web-crashloop-rollback");
        Files.deleteIfExists(RUNBOOKS.resolve(RUNBOOK_MARKER));
        HOOKED.clear();
        return new World(
                deployments(), MOCK.requests().size(), PROMETHEUS.queries().size());
    }

    private record World(Map<String, String> deployments, int requests, int queries) {
        void assertUntouched() {
            assertThat(RUNBOOKS.resolve(RUNBOOK_MARKER)).as("no runbook ran").doesNotExist();
            assertThat(RUNBOOKS.resolve(HOST_RUNBOOK_MARKER))
                    .as("no runbook ran on web-1 over SSH")
                    .doesNotExist();
            assertThat(PROMETHEUS
                            .queries()
                            .subList(queries, PROMETHEUS.queries().size()))
                    .as(
                            "no replay asked Prometheus: host_target, host_inspect and host_verify answer from the recording")
                    .isEmpty();
            assertThat(HOOKED).as("the notify webhook got nothing").isEmpty();
            assertThat(MOCK.requests().subList(requests, MOCK.requests().size()))
                    .as("no replay reached the cluster: the recording answers")
                    .isEmpty();
            assertThat(deployments()).isNotEmpty();
            assertThat(ShippedSuiteReplayTest.deployments())
                    .as("the cluster's deployments are unchanged")
                    .isEqualTo(deployments);
        }
    }

    private static Map<String, String> deployments() {
        Map<String, String> out = new TreeMap<>();
        KubernetesSerialization json = new KubernetesSerialization();
        for (Deployment d : MOCK.client()
                .apps()
                .deployments()
                .inNamespace(KubernetesMock.NS)
                .list()
                .getItems()) {
            out.put(
                    d.getMetadata().getName(),
                    d.getMetadata().getResourceVersion() + " " + d.getMetadata().getAnnotations() + " "
                            + json.asJson(d.getSpec()));
        }
        return out;
    }
}
