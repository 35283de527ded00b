package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.tools.kubernetes.KubernetesMock;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

/**
 * The shipped Kubernetes triage team end to end on the packaged jar (embedded default database), against
 * fabric8's Kubernetes API server emulator (CRUD mode, in this JVM on loopback) through a real kubeconfig
 * file: an Alertmanager {@code KubePodCrashLooping} alert posted with an {@code intake} key → the pod and
 * rollout inspectors run at once (their agent spans overlap, under the orchestrator) → the repairer's
 * {@code k8s_rollout_undo} waits for a human, showing the exact deployment, change and its
 * resourceVersion/generation → nothing changes until another key, an operator's, approves → the
 * deployment's pod template is revision 1's → the incident is resolved. Then: the platform killed
 * ({@code kill -9}) after the emulator applied the undo but before the platform learnt it → after a
 * restart on the same data the undo is not sent again (applied exactly once) and the run ends; and a
 * deployment someone else changed after the approval → refused as {@code STATE_INCONSISTENCY}, nothing
 * applied, the run says so.
 *
 * <p>One platform process for the class (a start costs tens of seconds on the build machines): each
 * test has its own deployment and alert fingerprint, and the crash test, which restarts the process,
 * runs last. Its log is {@code target/k8s-triage-it/instance-k8s.log}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubernetesTriageIT {

    private static final String INCIDENTS = "/api/v1/memory/incidents/";

    private Path work;
    private KubernetesMock mock;
    private PlatformProcess platform;
    private Api api;
    private String intakeKey;
    private String operatorKey;

    @BeforeAll
    void start() throws Exception {
        work = Files.createTempDirectory("cadre-k8s-it");
        mock = new KubernetesMock();
        // A quick deployment controller: an approved rollback is verified like on a cluster.
        mock.controlRollouts();
        Path kubeconfig = mock.writeKubeconfig(work);
        platform = PlatformProcess.start(
                "k8s",
                PlatformProcess.freePort(),
                Path.of("target", "k8s-triage-it"),
                PlatformProcess.DEFAULT_JVM_OPTIONS,
                work,
                List.of(
                        // No datasource: the embedded default (H2 under ./data of the work directory).
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.tools.kubernetes.kubeconfig=" + kubeconfig,
                        "--cadre.tools.kubernetes.context=mock",
                        "--cadre.tools.kubernetes.verify-timeout=PT20S",
                        "--cadre.tools.kubernetes.verify-poll-interval=PT0.5S",
                        // The crash test holds the undo's answer back; the tool must not give up first.
                        "--cadre.tools.kubernetes.request-timeout=PT5M",
                        "--cadre.runbooks.install-demo=false",
                        "--cadre.approvals.timeout=PT30M"));
        platform.awaitHealthy(Duration.ofMinutes(3));
        api = platform.api();
        intakeKey = key("alertmanager", "intake");
        operatorKey = key("oncall", "operator");
    }

    @AfterAll
    void stop() {
        if (platform != null) {
            platform.destroy();
        }
        if (mock != null) {
            mock.close();
        }
    }

    @Test
    @Order(1)
    void aBrokenRevision_isInspectedInParallel_rolledBackAfterAnOperatorApproves_andTheIncidentResolved() {
        mock.seedCrashLoop("checkout");
        // The pod inspector's last call answers half a second late, so that the two inspectors, when they
        // run at once, overlap by far more than a scheduling hiccup (one after the other they never do).
        mock.answer((request, response) -> request.getPath().startsWith("/api/v1/namespaces/shop/pods/checkout-")
                        && request.getPath().contains("/log")
                ? response.setBodyDelay(Duration.ofMillis(500))
                : response);
        try {
            Deployment before = deployment("checkout");
            JsonNode accepted = alert("checkout", "it-checkout");
            String runId = accepted.get("runId").asString();
            String incident = accepted.get("incident").asString();

            JsonNode approval = api.pendingApprovalOf(runId);
            assertThat(approval.get("tool").asString()).isEqualTo("k8s_rollout_undo");
            assertThat(approval.get("agent").asString()).isEqualTo("k8s-repairer");
            JsonNode args = approval.get("arguments");
            assertThat(args.get("namespace").asString()).isEqualTo("shop");
            assertThat(args.get("deployment").asString()).isEqualTo("checkout");
            assertThat(args.get("toRevision").asInt()).isEqualTo(1);
            assertThat(args.get("change").asString())
                    .isEqualTo("Roll back deployment shop/checkout from revision 2 (shop/checkout:2) to revision 1"
                            + " (shop/checkout:1)");
            assertThat(args.get("changes").toString())
                    .isEqualTo("[\"image app: shop/checkout:2 → shop/checkout:1\",\"env app: -FEATURE_X\"]");
            JsonNode observed = args.get("observed");
            assertThat(observed.get("kind").asString()).isEqualTo("Deployment");
            assertThat(observed.get("uid").asString())
                    .isEqualTo(before.getMetadata().getUid());
            assertThat(observed.get("resourceVersion").asString())
                    .isEqualTo(before.getMetadata().getResourceVersion());
            assertThat(observed.get("generation").asLong())
                    .isEqualTo(
                            before.getMetadata().getGeneration() == null
                                    ? 0
                                    : before.getMetadata().getGeneration());

            assertThat(image(deployment("checkout")))
                    .as("nothing changes before the approval")
                    .isEqualTo("shop/checkout:2");
            assertThat(writesTo("checkout")).isZero();
            var bySubmitter = api.approve(approval.get("id").asString(), intakeKey);
            assertThat(bySubmitter.status())
                    .as("the key that raised the alert may not approve its repair: " + bySubmitter.body())
                    .isEqualTo(403);
            assertThat(image(deployment("checkout"))).isEqualTo("shop/checkout:2");

            var approved =
                    api.approve(approval.get("id").asString(), operatorKey, "{\"comment\":\"roll checkout back\"}");
            assertThat(approved.status()).as(approved.body()).isEqualTo(200);

            JsonNode done = api.awaitRunEnd(runId);
            assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
            assertThat(deployment("checkout").getSpec().getTemplate())
                    .as("the pod template is revision 1's")
                    .isEqualTo(KubernetesMock.deploymentTemplate("checkout", "shop/checkout:1", false));
            assertThat(writesTo("checkout")).as("one write: the undo").isEqualTo(1);
            JsonNode inc = incident(incident);
            assertThat(inc.get("status").asString()).as(inc.toString()).isEqualTo("resolved");
            assertThat(inc.get("timeline").toString())
                    .contains("CrashLoopBackOff")
                    .contains("FATAL: FEATURE_X requires DB_URL to be set")
                    .contains("Rolled back")
                    .contains("image app: shop/checkout:2 → shop/checkout:1");

            // The stored trace: both inspectors' agent spans under the orchestrator's, overlapping in time.
            // Spans reach the store in batches, so the run's end may precede its root span there.
            Map<String, JsonNode> parents = new HashMap<>();
            List<JsonNode> nodes = storedTrace(runId, parents);
            JsonNode pod = onlyAgent(nodes, "k8s-pod-inspector");
            JsonNode rollout = onlyAgent(nodes, "k8s-rollout-inspector");
            JsonNode orchestrator = onlyAgent(nodes, "k8s-orchestrator");
            assertThat(agentParent(pod, parents).get("spanId").asString())
                    .isEqualTo(orchestrator.get("spanId").asString());
            assertThat(agentParent(rollout, parents).get("spanId").asString())
                    .isEqualTo(orchestrator.get("spanId").asString());
            assertThat(start(pod))
                    .as("the pod inspector starts before the rollout inspector ends")
                    .isBefore(end(rollout));
            assertThat(start(rollout))
                    .as("the rollout inspector starts before the pod inspector ends")
                    .isBefore(end(pod));
        } finally {
            mock.answer((request, response) -> response);
        }
    }

    @Test
    @Order(2)
    void aDeploymentChangedAfterTheApproval_isRefusedAsStateInconsistency_andNothingIsApplied() {
        mock.seedCrashLoop("cart");
        JsonNode accepted = alert("cart", "it-cart");
        String runId = accepted.get("runId").asString();
        String incident = accepted.get("incident").asString();
        JsonNode approval = api.pendingApprovalOf(runId);

        // Someone else scales the deployment between the approval and its execution: just before the
        // undo's first read of it (the proposal's reads are over; nothing else reads it in between).
        AtomicBoolean scaled = new AtomicBoolean();
        mock.before(request -> {
            if (request.getMethod().equals("GET")
                    && request.getPath().startsWith("/apis/apps/v1/namespaces/shop/deployments/cart")
                    && scaled.compareAndSet(false, true)) {
                mock.editDeploymentDirectly("cart", d -> {
                    d.getSpec().setReplicas(4);
                    return d;
                });
            }
        });
        try {
            var approved = api.approve(approval.get("id").asString(), operatorKey);
            assertThat(approved.status()).as(approved.body()).isEqualTo(200);

            JsonNode done = api.awaitRunEnd(runId);
            assertThat(scaled)
                    .as("the deployment was changed after the approval")
                    .isTrue();
            assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
            assertThat(done.get("result").asString())
                    .contains("STATE_INCONSISTENCY")
                    .contains("changed since the approval");
            assertThat(writesTo("cart")).as("the undo sent nothing").isZero();
            Deployment after = deployment("cart");
            assertThat(image(after)).isEqualTo("shop/cart:2");
            assertThat(after.getSpec().getReplicas())
                    .as("the other change stands")
                    .isEqualTo(4);
            assertThat(incident(incident).get("status").asString()).isEqualTo("open");

            List<JsonNode> nodes = storedTrace(runId, new HashMap<>());
            assertThat(nodes)
                    .filteredOn(n -> "k8s_rollout_undo".equals(n.path("tool").asString(null)))
                    .extracting(n -> n.path("failureCategory").asString(null))
                    .containsExactly("STATE_INCONSISTENCY");
        } finally {
            mock.before(request -> {});
        }
    }

    @Test
    @Order(3)
    void aKill9AfterTheUndoWasApplied_butBeforeItsOutcomeWasRecorded_neverAppliesItAgain() throws Exception {
        mock.seedCrashLoop("payments");
        JsonNode accepted = alert("payments", "it-payments");
        String runId = accepted.get("runId").asString();
        JsonNode approval = api.pendingApprovalOf(runId);

        // The emulator applies the undo's write, and its answer never reaches the platform: the process
        // dies while the tool waits for it, with the call journalled as started and not finished.
        String deploymentPath = "/apis/apps/v1/namespaces/shop/deployments/payments";
        mock.answer((request, response) ->
                request.getMethod().equals("PUT") && request.getPath().startsWith(deploymentPath)
                        ? response.setBodyDelay(Duration.ofMinutes(10))
                        : response);
        try {
            var approved = api.approve(approval.get("id").asString(), operatorKey);
            assertThat(approved.status()).as(approved.body()).isEqualTo(200);
            Await.until("the undo's write to reach the API server", () -> writesTo("payments"), n -> n == 1);
            platform.kill();
        } finally {
            mock.answer((request, response) -> response);
        }
        assertThat(image(deployment("payments")))
                .as("the emulator applied the undo")
                .isEqualTo("shop/payments:1");
        try (Connection db = DriverManager.getConnection(
                "jdbc:h2:file:" + work.resolve("data/cadre") + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE", "sa", "")) {
            assertThat(scalar(
                            db,
                            "SELECT state FROM cadre_tool_journal WHERE run_id = '" + runId
                                    + "' AND tool = 'k8s_rollout_undo'"))
                    .as("the undo was journalled as started before it ran, and never finished")
                    .isEqualTo("started");
        }

        platform.restart();
        platform.awaitHealthy(Duration.ofMinutes(3));

        JsonNode done = api.awaitRunEnd(runId);
        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        assertThat(done.get("result").asString())
                .as("the resumed run reports the unknown outcome instead of trying again")
                .contains("interrupted before its outcome was recorded; not re-run");
        assertThat(writesTo("payments")).as("the undo was applied exactly once").isEqualTo(1);
        assertThat(deployment("payments").getSpec().getTemplate())
                .isEqualTo(KubernetesMock.deploymentTemplate("payments", "shop/payments:1", false));
        JsonNode inc = incident(accepted.get("incident").asString());
        assertThat(inc.get("status").asString())
                .as("a human checks the deployment")
                .isEqualTo("open");
        assertThat(inc.get("timeline").toString()).contains("Rollback outcome unknown");
        JsonNode pending = api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                .json()
                .get("items");
        assertThat(pending).as("the decided approval is not asked again").isEmpty();
    }

    private String key(String name, String role) {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    /** Alertmanager's webhook payload for {@code KubePodCrashLooping} of {@code <app>-2222-ccccc}, sent with the intake key. */
    private JsonNode alert(String app, String fingerprint) {
        var r = api.post("/api/v1/integrations/alertmanager", intakeKey, """
                {"version":"4","status":"firing","receiver":"cadre","groupLabels":{"alertname":"KubePodCrashLooping"},
                 "alerts":[{"status":"firing",
                   "labels":{"alertname":"KubePodCrashLooping","namespace":"shop","pod":"%1$s-2222-ccccc",
                             "deployment":"%1$s","container":"app","severity":"critical"},
                   "annotations":{"summary":"Pod shop/%1$s-2222-ccccc is crash looping"},
                   "startsAt":"2026-12-05T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%2$s"}]}
                """.formatted(app, fingerprint));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode accepted = r.json().get("alerts").get(0);
        assertThat(accepted.get("agent").asString()).as(accepted.toString()).isEqualTo("k8s-orchestrator");
        return accepted;
    }

    private Deployment deployment(String name) {
        return mock.client()
                .apps()
                .deployments()
                .inNamespace(KubernetesMock.NS)
                .withName(name)
                .get();
    }

    private static String image(Deployment d) {
        return d.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();
    }

    /** Writes (PUT, PATCH, POST) the API server received for the deployment, from anyone. */
    private long writesTo(String name) {
        String path = "/apis/apps/v1/namespaces/" + KubernetesMock.NS + "/deployments/" + name;
        return mock.requests().stream()
                .filter(r -> !r.method().equals("GET") && !r.method().equals("DELETE"))
                .filter(r -> r.path().equals(path)
                        || r.path().startsWith(path + "?")
                        || r.path().startsWith(path + "/"))
                .count();
    }

    private JsonNode incident(String id) {
        var r = api.get(INCIDENTS + id, Api.ADMIN_KEY);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("value");
    }

    /** The run's stored span tree, flattened, once its root (the orchestrator's agent span) is in it. */
    private List<JsonNode> storedTrace(String runId, Map<String, JsonNode> parents) {
        JsonNode trace = Await.until(
                "run " + runId + "'s orchestrator span in the trace store",
                () -> api.get("/api/v1/runs/" + runId + "/trace", Api.ADMIN_KEY).json(),
                // The root span ends last and is exported last: a span of the orchestrator's model or
                // tool calls may already be stored without it, so wait for the root itself.
                t -> t.get("roots").size() == 1
                        && t.get("roots").get(0).get("name").asString().equals("invoke_agent k8s-orchestrator"));
        List<JsonNode> nodes = new ArrayList<>();
        trace.get("roots").forEach(root -> flatten(root, null, parents, nodes));
        return nodes;
    }

    private static void flatten(JsonNode node, JsonNode parent, Map<String, JsonNode> parents, List<JsonNode> out) {
        out.add(node);
        if (parent != null) {
            parents.put(node.get("spanId").asString(), parent);
        }
        node.get("children").forEach(child -> flatten(child, node, parents, out));
    }

    private static JsonNode onlyAgent(List<JsonNode> nodes, String agent) {
        List<JsonNode> found = nodes.stream()
                .filter(n -> n.get("kind").asString().equals("agent")
                        && agent.equals(n.path("agent").asString(null)))
                .toList();
        assertThat(found).as("agent spans of " + agent).hasSize(1);
        return found.getFirst();
    }

    /** The nearest agent span above {@code node}. */
    private static JsonNode agentParent(JsonNode node, Map<String, JsonNode> parents) {
        JsonNode p = parents.get(node.get("spanId").asString());
        while (p != null && !p.get("kind").asString().equals("agent")) {
            p = parents.get(p.get("spanId").asString());
        }
        assertThat(p).as("an agent span above " + node.get("name")).isNotNull();
        return p;
    }

    private static java.time.Instant start(JsonNode node) {
        return java.time.Instant.parse(node.get("start").asString());
    }

    private static java.time.Instant end(JsonNode node) {
        return java.time.Instant.parse(node.get("end").asString());
    }

    private static String scalar(Connection db, String sql) throws SQLException {
        try (var st = db.createStatement();
                var rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
