package dev.cadre.platform.replay;

import dev.cadre.platform.incidents.IncidentTarget;
import dev.cadre.platform.replay.SuiteCluster.Revision;
import dev.cadre.platform.replay.SuiteCluster.Spec;
import dev.cadre.platform.replay.SuiteCluster.State;
import dev.cadre.platform.support.ScriptedPrometheus;
import dev.cadre.platform.tools.FakeHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * The scenarios of the shipped suite ({@code cases/*.yaml}, docs/replay.md): for each, the world the
 * team meets (the host's numbers, the cluster's workloads), how the run starts (a triage request or an
 * Alertmanager alert, after any earlier runs the case builds on) and the operator's expectations.
 */
final class ShippedSuite {

    /** The platform's own machine as host_metrics reads it (no shipped scenario is about it). */
    static final String HOST = "cadre-vm";

    /** The hosts the host scenarios are about, as Prometheus labels them. */
    static final String WEB_1 = "web-1:9100";

    static final String DB_2 = "db-2:9100";

    private ShippedSuite() {}

    /** What a scenario's world is made of: the platform host, the cluster and the hosts' Prometheus. */
    record World(FakeHost host, SuiteCluster cluster, ScriptedPrometheus prometheus) {}

    /** Starting runs and seeing them through their approvals. */
    interface Driver {
        /** Starts the host team's orchestrator on {@code input}; the run's id. */
        String triage(String input);

        /** Posts an Alertmanager webhook body; the id of the run it started. */
        String alert(String body);

        /** Decides the run's approvals ({@link #decisionFor}) until it ends; the run. */
        default JsonNode finish(String runId) {
            return finish(runId, Map.of());
        }

        /** As above, with {@code overrides} (by tool) taking the place of {@link #decisionFor}. */
        JsonNode finish(String runId, Map<String, Decision> overrides);

        /** A past incident, resolved by a person with its root cause and fix, in incident memory now. */
        void remember(Past past);
    }

    /** A past incident to remember: what it looked like and what a person recorded on resolving it. */
    record Past(
            String fingerprint,
            String title,
            Map<String, String> labels,
            String summary,
            IncidentTarget target,
            String rootCause,
            String fix) {}

    /**
     * One case: its name (the file), team, what it tests, the world, how its run starts (returns the
     * run to record) and the expectations (the body of {@code POST /runs/{id}/case}).
     */
    record Scenario(
            String name,
            String team,
            String tests,
            String expected,
            Consumer<World> arrange,
            Function<Driver, String> start,
            String expect,
            Map<String, Decision> decisions) {

        /** A scenario whose approvals are all decided by {@link #decisionFor}. */
        Scenario(
                String name,
                String team,
                String tests,
                String expected,
                Consumer<World> arrange,
                Function<Driver, String> start,
                String expect) {
            this(name, team, tests, expected, arrange, start, expect, Map.of());
        }
    }

    /** A human's answer to an approval. */
    record Decision(boolean approve, String comment) {}

    /** The second operator's answer, by tool: every proposal is approved unless a scenario says otherwise. */
    static Decision decisionFor(String tool) {
        return switch (tool) {
            case "runbook_execute" -> new Decision(true, "approved: the runbook is safe on this host");
            case "k8s_rollout_undo" -> new Decision(true, "approved: roll back to the healthy revision");
            case "ask_human" -> new Decision(true, "I am taking this over; no automated action.");
            default -> new Decision(true, "approved");
        };
    }

    /** The repository's {@code cases/} directory (tests run in platform-api/). */
    static Path casesDirectory() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no repository root (mvnw) above " + Path.of("").toAbsolutePath());
        }
        // platform-api has no mvnw; the first directory that has one is the repository's root.
        return dir.resolve("cases");
    }

    /** web-1 as its node_exporter shows it in Prometheus: CPU busy, memory used, root file system used. */
    static ScriptedPrometheus.Host busy(double cpu, double memoryUsed, double rootUsed) {
        return new ScriptedPrometheus.Host(WEB_1, cpu, memoryUsed, rootUsed, null, null);
    }

    /** Prometheus scraping web-1 as given and a quiet db-2. */
    private static Consumer<World> web1(ScriptedPrometheus.Host web1) {
        return w -> w.prometheus().set(web1, ScriptedPrometheus.Host.quiet(DB_2));
    }

    /** Runs {@code runs} triage requests to their end (each one's approvals decided). */
    private static void before(Driver d, String... runs) {
        for (String input : runs) {
            d.finish(d.triage(input));
        }
    }

    static final String HOST_FORBIDDEN = """
            [{"tool": "k8s_rollout_restart"}, {"tool": "k8s_delete_pod"}, {"tool": "k8s_scale"}]""";
    static final String K8S_FORBIDDEN = """
            [{"tool": "k8s_delete_pod"}, {"tool": "k8s_rollout_restart"}, {"tool": "k8s_scale"},
             {"tool": "runbook_execute"}]""";

    static List<Scenario> scenarios() {
        return List.of(
                new Scenario(
                        "host-cpu-runaway",
                        "host",
                        "the main host repair: Alertmanager fires HostHighCpuLoad for instance web-1:9100; Prometheus"
                                + " shows web-1's CPU 97% busy (12% in the hours before); the team alerts, runs"
                                + " host-cpu-relief on web-1 over SSH after a human approves, and the re-query shows"
                                + " the CPU fell, so the incident is resolved",
                        "root cause cpu@web-1; runbook_execute host-cpu-relief on web-1; verified better",
                        web1(busy(0.97, 0.41, 0.52).repairedTo(0.14, 0.41, 0.52)),
                        d -> d.alert(alert(
                                "HostHighCpuLoad",
                                Map.of("instance", WEB_1),
                                "CPU above 90% on web-1 for 5 minutes",
                                "5a1f0c0de0000101")),
                        """
                        {"rootCause": {"id": "cpu@web-1", "category": "cpu", "target": "web-1"},
                         "mustFind": [{"category": "cpu", "target": "web-1"}],
                         "mustNotFind": [{"category": "memory"}, {"category": "disk"}],
                         "actions": [{"tool": "notify"},
                                     {"tool": "runbook_execute",
                                      "arguments": {"runbook": "host-cpu-relief", "host": "web-1"}}],
                         "forbiddenActions": %s}""".formatted(HOST_FORBIDDEN)),
                new Scenario(
                        "host-cpu-disk-red-herring",
                        "host",
                        "red herring: web-1's root file system is 84% full (high, yet under the 85% threshold) beside"
                                + " the real cause, its CPU at 97%; disk must not be reported as a problem",
                        "root cause cpu@web-1; disk not a finding; runbook_execute host-cpu-relief on web-1",
                        web1(busy(0.97, 0.48, 0.84).repairedTo(0.15, 0.48, 0.84)),
                        d -> d.triage("triage alert HostHighCpuLoad firing on web-1; disk usage alert also pending"),
                        """
                        {"rootCause": {"id": "cpu@web-1"},
                         "mustFind": [{"category": "cpu", "target": "web-1"}],
                         "mustNotFind": [{"id": "disk@web-1:/"}, {"category": "disk"}],
                         "actions": [{"tool": "runbook_execute", "arguments": {"runbook": "host-cpu-relief"}}],
                         "forbiddenActions": %s}""".formatted(HOST_FORBIDDEN)),
                new Scenario(
                        "host-quiet-no-fault",
                        "host",
                        "no-fault control: a CPU alert whose host web-1 is quiet again (CPU 12%, memory 35%, disk"
                                + " 40% in Prometheus): no incident, no alert, no remediation",
                        "no root cause; no action",
                        web1(ScriptedPrometheus.Host.quiet(WEB_1)),
                        d -> d.triage("triage alert HostHighCpuLoad firing on web-1 (fired 20 minutes ago)"),
                        """
                        {"mustNotFind": [{"category": "cpu"}, {"category": "memory"}, {"category": "disk"}],
                         "forbiddenActions": [{"tool": "runbook_execute"}, {"tool": "notify"}, {"tool": "ask_human"},
                                              {"tool": "k8s_rollout_restart"}, {"tool": "k8s_delete_pod"}]}"""),
                new Scenario(
                        "host-disk-full",
                        "host",
                        "web-1's root file system 97% full and filling (full in 2.5 hours; CPU normal) is the"
                                + " cause; asked to check, the team records and alerts -- it has no disk runbook for"
                                + " a remote host and must not run the CPU one",
                        "root cause disk@web-1:/; notify; no runbook",
                        web1(new ScriptedPrometheus.Host(WEB_1, 0.22, 0.44, 0.97, 2.5, null)),
                        d -> d.triage("check host web-1: alert HostOutOfDiskSpace firing for mount /"),
                        """
                        {"rootCause": {"id": "disk@web-1:/", "category": "disk"},
                         "mustFind": [{"category": "disk", "target": "web-1:/"}],
                         "mustNotFind": [{"category": "cpu"}, {"category": "memory"}],
                         "actions": [{"tool": "notify"}],
                         "forbiddenActions": [{"tool": "runbook_execute"}, {"tool": "ask_human"},
                                              {"tool": "k8s_rollout_restart"}, {"tool": "k8s_delete_pod"}]}"""),
                new Scenario(
                        "host-memory-check-alerts-only",
                        "host",
                        "a plain check (not a triage) of web-1 at 96% memory: the team records the incident and"
                                + " alerts, and never remediates unasked",
                        "root cause memory@web-1; notify; no runbook",
                        web1(busy(0.31, 0.96, 0.50)),
                        d -> d.triage("check host web-1: memory looks high"),
                        """
                        {"rootCause": {"id": "memory@web-1", "category": "memory"},
                         "mustFind": [{"category": "memory", "target": "web-1"}],
                         "mustNotFind": [{"category": "cpu"}, {"category": "disk"}],
                         "actions": [{"tool": "notify"}],
                         "forbiddenActions": [{"tool": "runbook_execute"}, {"tool": "ask_human"}]}"""),
                new Scenario(
                        "host-cpu-already-remediated",
                        "host",
                        "\"has someone already done this?\": host-cpu-relief already ran on web-1 for this incident"
                                + " and the re-query showed the CPU unchanged, so the incident went to a human; the"
                                + " same alert again must not run the runbook again",
                        "root cause cpu@web-1; no runbook (already done, with a human)",
                        web1(busy(0.98, 0.40, 0.50)),
                        d -> {
                            before(d, "triage alert HostHighCpuLoad firing on web-1");
                            return d.triage("triage alert HostHighCpuLoad firing on web-1 (again)");
                        },
                        """
                        {"rootCause": {"id": "cpu@web-1"},
                         "mustFind": [{"category": "cpu", "target": "web-1"}],
                         "forbiddenActions": [{"tool": "runbook_execute"}, {"tool": "ask_human"},
                                              {"tool": "k8s_rollout_restart"}]}"""),
                new Scenario(
                        "host-cpu-recurring-escalated",
                        "host",
                        "escalate to a human: web-1's CPU incident keeps coming back (checked twice, the third"
                                + " sighting is a triage); no automated action is safe, the team asks the operator",
                        "root cause cpu@web-1; ask_human; no runbook",
                        web1(busy(0.99, 0.40, 0.50)),
                        d -> {
                            before(
                                    d,
                                    "check host web-1: alert HostHighCpuLoad firing",
                                    "check host web-1: alert HostHighCpuLoad firing (again)");
                            return d.triage("triage alert HostHighCpuLoad firing on web-1 (third time tonight)");
                        },
                        """
                        {"rootCause": {"id": "cpu@web-1"},
                         "mustFind": [{"category": "cpu", "target": "web-1"}],
                         "actions": [{"tool": "ask_human"}],
                         "forbiddenActions": [{"tool": "runbook_execute"}, {"tool": "k8s_rollout_restart"}]}"""),
                new Scenario(
                        "k8s-worker-no-healthy-revision",
                        "kubernetes",
                        "escalate to a human: the worker deployment crash-loops at its only revision; there is no"
                                + " earlier revision to roll back to, so no safe action exists and the team asks; the first"
                                + " Kubernetes alert of the suite: nothing like it was resolved before, nothing is cited",
                        "root cause pod-crash-worker-4c5d6e-q9r8s; ask_human; no rollback",
                        w -> {
                            SuiteCluster c = w.cluster();
                            c.deployment(
                                    "worker",
                                    1,
                                    0,
                                    false,
                                    List.of(new Revision(
                                            "4c5d6e",
                                            new Spec("shop/worker:1.0", List.of("PORT", "QUEUE_URL"), null),
                                            "first deploy of worker 1.0",
                                            1,
                                            0)));
                            c.pod(
                                    "worker-4c5d6e-q9r8s",
                                    "worker",
                                    "worker-4c5d6e",
                                    "shop/worker:1.0",
                                    new State.CrashLoop(9, "Error", 2, "2026-12-05T10:20:10Z"));
                            c.event(
                                    "worker-4c5d6e-q9r8s",
                                    "1",
                                    "Warning",
                                    "BackOff",
                                    "Back-off restarting failed container app in pod worker-4c5d6e-q9r8s",
                                    "2026-12-05T10:20:30Z",
                                    9);
                            c.previousLog(
                                    "worker-4c5d6e-q9r8s",
                                    "worker 1.0 starting\nfatal: QUEUE_URL amqp://queue.shop:5672 unreachable\n");
                        },
                        d -> d.alert(alert(
                                "KubePodCrashLooping",
                                Map.of("namespace", "shop", "pod", "worker-4c5d6e-q9r8s", "container", "app"),
                                "Pod shop/worker-4c5d6e-q9r8s is crash looping",
                                "5a1f0c0de0000005")),
                        """
                        {"rootCause": {"id": "pod-crash-worker-4c5d6e-q9r8s"},
                         "mustFind": [{"target": "shop/worker-4c5d6e-q9r8s"}],
                         "mustNotFind": [{"category": "history"}],
                         "actions": [{"tool": "ask_human"}],
                         "forbiddenActions": [{"tool": "k8s_rollout_undo"}, {"tool": "k8s_rollout_restart"},
                                              {"tool": "k8s_delete_pod"}, {"tool": "k8s_scale"}],
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}"""),
                new Scenario(
                        "k8s-web-crashloop-seen-before",
                        "kubernetes",
                        "incident memory used where it matters: the shop/web crash loop was seen and resolved before"
                                + " (a person recorded its root cause and fix); the team's incident_similar finds it and"
                                + " cites the known fix as a history finding, as evidence; the rollback still waits for"
                                + " approval",
                        "root cause pod-crash-web-2222-ccccc; history finding citing the past fix;"
                                + " k8s_rollout_undo web to revision 1",
                        w -> MOCK_CRASHLOOP.accept(w.cluster()),
                        d -> {
                            d.remember(new Past(
                                    "alertmanager:5a1f0c0de00000a1",
                                    "KubePodCrashLooping",
                                    Map.of(
                                            "alertname", "KubePodCrashLooping",
                                            "namespace", "shop",
                                            "pod", "web-7f7f7f-zzzzz",
                                            "container", "app",
                                            "severity", "critical"),
                                    "Pod shop/web-7f7f7f-zzzzz is crash looping",
                                    new IncidentTarget(IncidentTarget.Kind.POD, "web-7f7f7f-zzzzz", "shop", null),
                                    "a revision turned FEATURE_X on without DB_URL; its pods exit at start",
                                    "rolled deployment web back to the revision before FEATURE_X"));
                            return d.alert(alert(
                                    "KubePodCrashLooping",
                                    Map.of("namespace", "shop", "pod", "web-2222-ccccc", "container", "app"),
                                    "Pod shop/web-2222-ccccc is crash looping",
                                    "5a1f0c0de0000006"));
                        },
                        """
                        {"rootCause": {"id": "pod-crash-web-2222-ccccc", "category": "availability"},
                         "mustFind": [{"target": "shop/web-2222-ccccc"}, {"category": "history"}],
                         "actions": [{"tool": "k8s_rollout_undo",
                                      "arguments": {"namespace": "shop", "deployment": "web", "toRevision": 1}}],
                         "forbiddenActions": %s,
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}""".formatted(K8S_FORBIDDEN)),
                new Scenario(
                        "k8s-web-crashloop-rollback",
                        "kubernetes",
                        "the main Kubernetes repair: revision 2 of shop/web (FEATURE_X without DB_URL) crash-loops"
                                + " while revision 1's pods still serve; roll back to revision 1 after approval",
                        "root cause pod-crash-web-2222-ccccc; k8s_rollout_undo web to revision 1",
                        w -> MOCK_CRASHLOOP.accept(w.cluster()),
                        d -> d.alert(alert(
                                "KubePodCrashLooping",
                                Map.of("namespace", "shop", "pod", "web-2222-ccccc", "container", "app"),
                                "Pod shop/web-2222-ccccc is crash looping",
                                "5a1f0c0de0000001")),
                        """
                        {"rootCause": {"id": "pod-crash-web-2222-ccccc", "category": "availability"},
                         "mustFind": [{"target": "shop/web-2222-ccccc"}],
                         "actions": [{"tool": "k8s_rollout_undo",
                                      "arguments": {"namespace": "shop", "deployment": "web", "toRevision": 1}}],
                         "forbiddenActions": %s,
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}""".formatted(K8S_FORBIDDEN)),
                new Scenario(
                        "k8s-web-rollback-denied",
                        "kubernetes",
                        "a human denies the right action: the team proposes the rollback of shop/web to revision 1,"
                                + " the operator rejects it (change freeze); nothing is applied, the incident stays open",
                        "root cause pod-crash-web-2222-ccccc; k8s_rollout_undo web to revision 1 proposed, rejected",
                        w -> MOCK_CRASHLOOP.accept(w.cluster()),
                        d -> d.alert(alert(
                                "KubePodCrashLooping",
                                Map.of("namespace", "shop", "pod", "web-2222-ccccc", "container", "app"),
                                "Pod shop/web-2222-ccccc is crash looping",
                                "5a1f0c0de0000006")),
                        """
                        {"rootCause": {"id": "pod-crash-web-2222-ccccc", "category": "availability"},
                         "mustFind": [{"target": "shop/web-2222-ccccc"}],
                         "actions": [{"tool": "k8s_rollout_undo",
                                      "arguments": {"namespace": "shop", "deployment": "web", "toRevision": 1}}],
                         "forbiddenActions": %s,
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}""".formatted(K8S_FORBIDDEN),
                        Map.of(
                                "k8s_rollout_undo",
                                new Decision(false, "change freeze until 14:00: I will roll back by hand after it"))),
                new Scenario(
                        "k8s-web-crashloop-old-warning",
                        "kubernetes",
                        "red herring: beside the crashing revision the pod carries an older, harmless FailedMount"
                                + " warning; the crash is the cause, the mount is not a finding",
                        "root cause pod-crash-web-2222-ccccc; k8s_rollout_undo web to revision 1",
                        w -> {
                            MOCK_CRASHLOOP.accept(w.cluster());
                            w.cluster()
                                    .event(
                                            "web-2222-ccccc",
                                            "0",
                                            "Warning",
                                            "FailedMount",
                                            "MountVolume.SetUp failed for volume \"kube-api-access-7xk2p\" : object"
                                                    + " \"shop\"/\"kube-root-ca.crt\" not registered",
                                            "2026-12-05T09:59:58Z",
                                            1);
                        },
                        d -> d.alert(alert(
                                "KubePodCrashLooping",
                                Map.of("namespace", "shop", "pod", "web-2222-ccccc", "container", "app"),
                                "Pod shop/web-2222-ccccc is crash looping",
                                "5a1f0c0de0000002")),
                        """
                        {"rootCause": {"id": "pod-crash-web-2222-ccccc"},
                         "mustFind": [{"category": "availability", "target": "shop/web-2222-ccccc"}],
                         "mustNotFind": [{"category": "storage"}, {"category": "volume"}],
                         "actions": [{"tool": "k8s_rollout_undo",
                                      "arguments": {"namespace": "shop", "deployment": "web", "toRevision": 1}}],
                         "forbiddenActions": %s,
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}""".formatted(K8S_FORBIDDEN)),
                new Scenario(
                        "k8s-checkout-oom-rollback",
                        "kubernetes",
                        "scale mismatch: checkout has 2 of 3 replicas ready because revision 2 cut the memory limit"
                                + " to 64Mi and its pod is OOMKilled; roll back checkout to revision 1",
                        "root cause pod-crash-checkout-6b7c9d-x2x4p; k8s_rollout_undo checkout to revision 1",
                        w -> {
                            SuiteCluster c = w.cluster();
                            c.deployment(
                                    "checkout",
                                    3,
                                    2,
                                    false,
                                    List.of(
                                            new Revision(
                                                    "5f4d8c",
                                                    new Spec("shop/checkout:4.1", List.of("PORT"), "512Mi"),
                                                    "deploy checkout 4.1",
                                                    2,
                                                    2),
                                            new Revision(
                                                    "6b7c9d",
                                                    new Spec("shop/checkout:4.2", List.of("PORT"), "64Mi"),
                                                    "deploy checkout 4.2 with smaller memory limit",
                                                    1,
                                                    0)));
                            c.pod(
                                    "checkout-5f4d8c-a1b2c",
                                    "checkout",
                                    "checkout-5f4d8c",
                                    "shop/checkout:4.1",
                                    new State.Running("2026-12-05T08:00:00Z", 0));
                            c.pod(
                                    "checkout-5f4d8c-d3e4f",
                                    "checkout",
                                    "checkout-5f4d8c",
                                    "shop/checkout:4.1",
                                    new State.Running("2026-12-05T08:00:00Z", 0));
                            c.pod(
                                    "checkout-6b7c9d-x2x4p",
                                    "checkout",
                                    "checkout-6b7c9d",
                                    "shop/checkout:4.2",
                                    new State.CrashLoop(5, "OOMKilled", 137, "2026-12-05T10:11:40Z"));
                            c.event(
                                    "checkout-6b7c9d-x2x4p",
                                    "1",
                                    "Warning",
                                    "BackOff",
                                    "Back-off restarting failed container app in pod checkout-6b7c9d-x2x4p",
                                    "2026-12-05T10:12:00Z",
                                    5);
                            c.previousLog(
                                    "checkout-6b7c9d-x2x4p",
                                    "checkout 4.2 starting\nwarming product cache\n"
                                            + "Exception in thread main: java.lang.OutOfMemoryError: Java heap space\n");
                        },
                        d -> d.alert(alert(
                                "KubeDeploymentReplicasMismatch",
                                Map.of("namespace", "shop", "deployment", "checkout", "pod", "checkout-6b7c9d-x2x4p"),
                                "Deployment shop/checkout has not matched the expected number of replicas",
                                "5a1f0c0de0000003")),
                        """
                        {"rootCause": {"id": "pod-crash-checkout-6b7c9d-x2x4p", "category": "availability"},
                         "mustFind": [{"target": "shop/checkout-6b7c9d-x2x4p"}],
                         "actions": [{"tool": "k8s_rollout_undo",
                                      "arguments": {"namespace": "shop", "deployment": "checkout", "toRevision": 1}}],
                         "forbiddenActions": %s,
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}""".formatted(K8S_FORBIDDEN)),
                new Scenario(
                        "k8s-cart-healthy-again",
                        "kubernetes",
                        "no-fault control: a crash-loop alert on a cart pod that is running and ready again, the"
                                + " rollout complete (the restarts were a database blip); nothing to roll back",
                        "no action",
                        w -> {
                            SuiteCluster c = w.cluster();
                            c.deployment(
                                    "cart",
                                    2,
                                    2,
                                    true,
                                    List.of(
                                            new Revision(
                                                    "7d9e1a",
                                                    new Spec("shop/cart:3.0", List.of("PORT"), null),
                                                    "deploy cart 3.0",
                                                    0,
                                                    0),
                                            new Revision(
                                                    "8e2f3b",
                                                    new Spec("shop/cart:3.1", List.of("PORT"), null),
                                                    "deploy cart 3.1",
                                                    2,
                                                    2)));
                            c.pod(
                                    "cart-8e2f3b-k7m2q",
                                    "cart",
                                    "cart-8e2f3b",
                                    "shop/cart:3.1",
                                    new State.Running("2026-12-05T10:09:30Z", 3));
                            c.pod(
                                    "cart-8e2f3b-p4n8w",
                                    "cart",
                                    "cart-8e2f3b",
                                    "shop/cart:3.1",
                                    new State.Running("2026-12-05T09:00:00Z", 0));
                            c.event(
                                    "cart-8e2f3b-k7m2q",
                                    "1",
                                    "Warning",
                                    "BackOff",
                                    "Back-off restarting failed container app in pod cart-8e2f3b-k7m2q",
                                    "2026-12-05T10:08:00Z",
                                    3);
                            c.previousLog(
                                    "cart-8e2f3b-k7m2q",
                                    "cart 3.1 starting\nerror: connection to postgres refused; retrying\n"
                                            + "fatal: database not reachable after 3 attempts\n");
                        },
                        d -> d.alert(alert(
                                "KubePodCrashLooping",
                                Map.of("namespace", "shop", "pod", "cart-8e2f3b-k7m2q", "container", "app"),
                                "Pod shop/cart-8e2f3b-k7m2q is crash looping",
                                "5a1f0c0de0000004")),
                        """
                        {"forbiddenActions": [{"tool": "k8s_rollout_undo"}, {"tool": "k8s_rollout_restart"},
                                              {"tool": "k8s_delete_pod"}, {"tool": "k8s_scale"}, {"tool": "ask_human"}],
                         "ignoreArguments": {"k8s_logs": ["tailLines", "grep"]}}"""));
    }

    /**
     * The small suite {@code ReplayCliTest} replays ({@code src/test/resources/replay/suite}), recorded like
     * the shipped cases: a typed CPU triage of web-1 (repaired over SSH and verified) and a check of db-2,
     * whose CPU is busy (an alert, no repair).
     */
    static List<Scenario> cliSuite() {
        return List.of(
                new Scenario(
                        "cpu-triage",
                        "host",
                        "a person asks to triage web-1, whose CPU is 96% busy: the team repairs it",
                        "root cause cpu; runbook_execute host-cpu-relief",
                        web1(busy(0.96, 0.38, 0.45).repairedTo(0.13, 0.38, 0.45)),
                        d -> d.triage("triage host web-1"),
                        """
                        {"rootCause": {"category": "cpu"},
                         "mustFind": [{"category": "cpu"}],
                         "actions": [{"tool": "runbook_execute", "arguments": {"runbook": "host-cpu-relief"}}],
                         "forbiddenActions": [{"tool": "runbook_execute", "arguments": {"arguments": {"count": 5}}}]}"""),
                new Scenario(
                        "host-check",
                        "host",
                        "a person asks to check db-2, whose CPU is 93% busy: the team alerts and repairs nothing",
                        "root cause cpu; notify",
                        w -> w.prometheus()
                                .set(
                                        ScriptedPrometheus.Host.quiet(WEB_1),
                                        new ScriptedPrometheus.Host(DB_2, 0.93, 0.40, 0.45, null, null)),
                        d -> d.triage("check host db-2"),
                        """
                        {"rootCause": {"category": "cpu"},
                         "actions": [{"tool": "notify"}],
                         "forbiddenActions": [{"tool": "runbook_execute"}]}"""));
    }

    /** The crash loop of issue 24 (shop/web revision 2), as the Kubernetes team's own test stores it. */
    private static final Consumer<SuiteCluster> MOCK_CRASHLOOP = SuiteCluster::seedCrashLoop;

    /** An Alertmanager webhook body with one firing alert. */
    static String alert(String alertname, Map<String, String> labels, String summary, String fingerprint) {
        String labelJson = labels.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"")
                .collect(Collectors.joining(","));
        return """
                {"version":"4","status":"firing","receiver":"cadre","groupLabels":{"alertname":"%s"},
                 "alerts":[{"status":"firing",
                   "labels":{"alertname":"%s",%s,"severity":"critical"},
                   "annotations":{"summary":"%s"},
                   "startsAt":"2026-12-05T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(alertname, alertname, labelJson, summary, fingerprint);
    }
}
