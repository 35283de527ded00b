package dev.cadre.platform.tools.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every Kubernetes tool against fabric8's API server emulator in CRUD mode, reached through a
 * kubeconfig file as in production: compact views, the namespace allowlist (refused without a request),
 * RBAC 403, an unreachable server, a time-out, and the write tools' proposal and state check.
 */
class KubernetesToolsTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-05T10:10:00Z"), ZoneOffset.UTC);
    static final ToolContext CTX = new ToolContext("run-1", "run-1", "k8s-agent", "call-1");

    @TempDir
    Path dir;

    KubernetesMock mock;
    KubernetesAccess access;
    Map<String, Tool> tools;

    @BeforeEach
    void start() throws Exception {
        mock = new KubernetesMock();
        mock.seedCrashLoop();
        access = access(mock.writeKubeconfig(dir), Duration.ofSeconds(5));
        tools = tools(access);
    }

    @AfterEach
    void stop() {
        access.close();
        mock.close();
    }

    static KubernetesAccess access(Path kubeconfig, Duration timeout) {
        return new KubernetesAccess(
                new KubernetesProperties(kubeconfig, "mock", null, timeout, Duration.ofSeconds(2), 0, 0, 0),
                agent -> agent.equals("k8s-agent") ? List.of("shop", "team-*") : List.of());
    }

    static Map<String, Tool> tools(KubernetesAccess access) {
        List<Tool> all = new ArrayList<>(KubernetesReadTools.all(access, JSON, CLOCK));
        all.addAll(KubernetesWriteTools.all(access, JSON, CLOCK));
        Map<String, Tool> byName = new java.util.LinkedHashMap<>();
        all.forEach(t -> byName.put(t.name(), t));
        return byName;
    }

    JsonNode call(String tool, String args) throws Exception {
        return JSON.readTree(tools.get(tool).execute(JSON.readTree(args), CTX));
    }

    @Test
    void get_listsPodsBySelector_asCompactRows() throws Exception {
        JsonNode out = call("k8s_get", "{\"kind\":\"pods\",\"namespace\":\"shop\",\"selector\":\"app=web\"}");

        assertThat(out.path("count").asInt()).isEqualTo(3);
        JsonNode crashing = row(out, "web-2222-ccccc");
        assertThat(crashing.path("status").asString()).isEqualTo("CrashLoopBackOff");
        assertThat(crashing.path("restarts").asInt()).isEqualTo(7);
        assertThat(crashing.path("ready").asString()).isEqualTo("0/1");
        assertThat(row(out, "web-1111-aaaaa").path("status").asString()).isEqualTo("Running");
        // Compact: no raw object fields.
        assertThat(out.toString()).doesNotContain("managedFields").doesNotContain("ownerReferences");
    }

    @Test
    void get_byName_whenMissing_answersNotFoundForTheModel() throws Exception {
        JsonNode out = call("k8s_get", "{\"kind\":\"deployments\",\"namespace\":\"shop\",\"name\":\"nope\"}");

        assertThat(out.path("found").asBoolean(true)).isFalse();
        assertThat(out.path("hint").asString()).contains("no deployments 'nope'");
    }

    @Test
    void get_deploymentsAndEvents() throws Exception {
        JsonNode deployments = call("k8s_get", "{\"kind\":\"deployments\",\"namespace\":\"shop\"}");
        assertThat(row(deployments, "web").path("revision").asString()).isEqualTo("2");
        assertThat(row(deployments, "web").path("images").asString()).isEqualTo("app=shop/web:2");

        JsonNode events = call("k8s_get", "{\"kind\":\"events\",\"namespace\":\"shop\"}");
        assertThat(events.path("rows").get(0).path("reason").asString()).isEqualTo("BackOff");
        assertThat(events.path("rows").get(0).path("object").asString()).isEqualTo("Pod/web-2222-ccccc");
    }

    @Test
    void describe_pod_showsContainerStateLastTerminationOwnerChainAndEventsNewestFirst() throws Exception {
        JsonNode out = call("k8s_describe", "{\"kind\":\"pod\",\"namespace\":\"shop\",\"name\":\"web-2222-ccccc\"}");

        JsonNode app = out.path("containers").get(0);
        assertThat(app.path("restarts").asInt()).isEqualTo(7);
        assertThat(app.path("state").asString()).startsWith("waiting: CrashLoopBackOff");
        assertThat(app.path("lastTermination").path("reason").asString()).isEqualTo("Error");
        assertThat(app.path("lastTermination").path("exitCode").asInt()).isEqualTo(1);
        assertThat(out.path("owners").asString()).isEqualTo("ReplicaSet/web-2222 → Deployment/web");
        assertThat(out.path("events").get(0).path("reason").asString()).isEqualTo("BackOff");
        assertThat(out.path("events").get(1).path("reason").asString()).isEqualTo("Pulled");
        assertThat(out.path("resourceVersion").asString()).isNotEmpty();
    }

    @Test
    void describe_deployment_listsItsPodsAndGeneration() throws Exception {
        JsonNode out = call("k8s_describe", "{\"kind\":\"deployment\",\"namespace\":\"shop\",\"name\":\"web\"}");

        assertThat(out.path("revision").asString()).isEqualTo("2");
        assertThat(out.path("podCount").asInt()).isEqualTo(3);
        assertThat(out.has("generation")).isTrue();
    }

    @Test
    void logs_grepWithANestedQuantifier_isMatchedInLinearTime_notBacktracked() {
        // With backtracking (java.util.regex) this pattern over a 43-character line never ends and
        // pins a core; the bound only turns that hang into a failure.
        JsonNode out = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(60),
                () -> call(
                        "k8s_logs",
                        "{\"namespace\":\"shop\",\"pod\":\"web-2222-ccccc\",\"previous\":true,"
                                + "\"grep\":\"((.+)+)+QQQ\"}"));

        assertThat(out.path("lines").asInt()).isZero();
        assertThat(out.path("linesRead").asInt()).isEqualTo(3);
        assertThat(out.path("grep").asString()).isEqualTo("((.+)+)+QQQ");
    }

    @Test
    void logs_previousContainer_withGrep() throws Exception {
        JsonNode out = call(
                "k8s_logs",
                "{\"namespace\":\"shop\",\"pod\":\"web-2222-ccccc\",\"previous\":true,\"grep\":\"fatal|error\"}");

        assertThat(out.path("log").asString()).isEqualTo("FATAL: FEATURE_X requires DB_URL to be set");
        assertThat(out.path("lines").asInt()).isEqualTo(1);
        assertThat(out.path("linesRead").asInt()).isEqualTo(3);
    }

    @Test
    void logs_ofAMissingPod_answersNotFound() throws Exception {
        JsonNode out = call("k8s_logs", "{\"namespace\":\"shop\",\"pod\":\"gone\",\"tailLines\":5}");

        assertThat(out.path("found").asBoolean(true)).isFalse();
    }

    @Test
    void rolloutHistory_showsWhatEachRevisionChangedAndTheLastHealthyOne() throws Exception {
        JsonNode out = call("k8s_rollout_history", "{\"namespace\":\"shop\",\"deployment\":\"web\"}");

        assertThat(out.path("currentRevision").asInt()).isEqualTo(2);
        assertThat(out.path("revisions")).hasSize(2);
        JsonNode second = out.path("revisions").get(1);
        assertThat(second.path("changeCause").asString()).isEqualTo("deploy shop/web:2 with FEATURE_X");
        assertThat(second.path("changes").toString())
                .contains("image app: shop/web:1 → shop/web:2")
                .contains("env app: +FEATURE_X=on");
        assertThat(out.path("lastHealthyRevision").asInt()).isEqualTo(1);
        assertThat(out.path("lastHealthyEvidence").asString()).contains("2 ready pod(s)");
    }

    @Test
    void rolloutHistory_withoutAnEarlierRevision_saysSoWithLastHealthyRevisionZero() throws Exception {
        mock.client()
                .apps()
                .replicaSets()
                .inNamespace("shop")
                .withName("web-1111")
                .delete();

        JsonNode out = call("k8s_rollout_history", "{\"namespace\":\"shop\",\"deployment\":\"web\"}");

        assertThat(out.path("revisions")).hasSize(1);
        assertThat(out.path("lastHealthyRevision").isInt()).as(out.toString()).isTrue();
        assertThat(out.path("lastHealthyRevision").asInt()).isZero();
        assertThat(out.path("lastHealthyEvidence").asString()).contains("nothing to roll back to");
        assertThat(out.path("changedSinceLastHealthy")).isEmpty();
    }

    @Test
    void aNamespaceOutsideTheAgentsList_isRefusedWithoutARequest() throws Exception {
        int before = mock.server().getRequestCount();

        assertThatThrownBy(() -> call("k8s_get", "{\"kind\":\"pods\",\"namespace\":\"kube-system\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.EXECUTION_ERROR);
                    assertThat(e.code()).isEqualTo("namespace_not_allowed");
                    assertThat(e.getMessage()).contains("kube-system").contains("kubernetes.namespaces");
                });
        assertThatThrownBy(() -> call("k8s_rollout_undo", "{\"namespace\":\"payments\",\"deployment\":\"web\"}"))
                .isInstanceOf(ToolException.class);
        assertThat(mock.server().getRequestCount()).isEqualTo(before);
        // A prefix entry ("team-*") admits its namespaces.
        assertThat(call("k8s_get", "{\"kind\":\"pods\",\"namespace\":\"team-a\"}")
                        .path("count")
                        .asInt())
                .isZero();
    }

    @Test
    void rbacForbidden_isAnExecutionErrorNamingVerbResourceAndNamespace() throws Exception {
        mock.server()
                .expect()
                .get()
                .withPath("/api/v1/namespaces/team-b/pods")
                .andReturn(
                        403,
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\","
                                + "\"code\":403,\"message\":\"pods is forbidden: User \\\"system:serviceaccount:cadre:cadre\\\""
                                + " cannot list resource \\\"pods\\\" in API group \\\"\\\" in the namespace \\\"team-b\\\"\"}")
                .always();

        assertThatThrownBy(() -> call("k8s_get", "{\"kind\":\"pods\",\"namespace\":\"team-b\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.EXECUTION_ERROR);
                    assertThat(e.code()).isEqualTo("k8s_forbidden");
                    assertThat(e.getMessage()).contains("list pods in namespace team-b");
                    assertThat(e.getMessage().length()).isLessThanOrEqualTo(200);
                });
    }

    @Test
    void anUnreachableApiServer_isACommunicationError() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Path other = Files.createDirectories(dir.resolve("closed"));
        try (KubernetesAccess unreachable =
                access(KubernetesMock.writeKubeconfig(other, "http://127.0.0.1:" + closed), Duration.ofSeconds(5))) {
            Tool get = tools(unreachable).get("k8s_get");

            assertThatThrownBy(() -> get.execute(JSON.readTree("{\"kind\":\"pods\",\"namespace\":\"shop\"}"), CTX))
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR);
                        assertThat(e.code()).isEqualTo("k8s_unreachable");
                    });
        }
    }

    @Test
    void aSlowApiServer_isATimeoutError() throws Exception {
        mock.server()
                .expect()
                .get()
                .delay(5, TimeUnit.SECONDS)
                .withPath("/api/v1/namespaces/shop/pods/slow")
                .andReturn(200, "{}")
                .always();
        try (KubernetesAccess impatient = access(mock.writeKubeconfig(dir), Duration.ofMillis(300))) {
            Tool get = tools(impatient).get("k8s_get");

            assertThatThrownBy(() -> get.execute(
                            JSON.readTree("{\"kind\":\"pods\",\"namespace\":\"shop\",\"name\":\"slow\"}"), CTX))
                    .isInstanceOfSatisfying(
                            ToolException.class,
                            e -> assertThat(e.category()).isEqualTo(FailureCategory.TIMEOUT_ERROR));
        }
    }

    @Test
    void notConfigured_theToolsSaySo() {
        KubernetesAccess none = new KubernetesAccess(
                new KubernetesProperties(null, null, null, null, null, 0, 0, 0), agent -> List.of("shop"));
        Tool get = tools(none).get("k8s_get");

        assertThatThrownBy(() -> get.execute(JSON.readTree("{\"kind\":\"pods\",\"namespace\":\"shop\"}"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo("kubernetes_not_configured");
                    assertThat(e.getMessage()).contains("cadre.tools.kubernetes.kubeconfig");
                });
    }

    @Test
    void rolloutUndo_proposesTheExactChangeAndState_thenAppliesRevisionOnesTemplate() throws Exception {
        ProposingTool undo = (ProposingTool) tools.get("k8s_rollout_undo");
        Deployment before = deployment();

        JsonNode proposed =
                undo.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\",\"toRevision\":1}"), CTX);

        assertThat(proposed.path("change").asString())
                .isEqualTo("Roll back deployment shop/web from revision 2 (shop/web:2) to revision 1 (shop/web:1)");
        assertThat(proposed.path("changes").toString())
                .isEqualTo("[\"image app: shop/web:2 → shop/web:1\",\"env app: -FEATURE_X\"]");
        assertThat(proposed.path("observed").path("resourceVersion").asString())
                .isEqualTo(before.getMetadata().getResourceVersion());
        assertThat(proposed.path("observed").path("generation").asLong())
                .isEqualTo(before.getMetadata().getGeneration());
        // Proposing changes nothing.
        assertThat(deployment()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getImage())
                .isEqualTo("shop/web:2");

        JsonNode applied = JSON.readTree(undo.execute(proposed, CTX));

        assertThat(applied.path("status").asString()).isEqualTo("applied");
        Deployment after = deployment();
        assertThat(after.getSpec().getTemplate()).isEqualTo(KubernetesMock.deploymentTemplate("shop/web:1", false));
        assertThat(after.getMetadata().getGeneration())
                .isGreaterThan(before.getMetadata().getGeneration());
    }

    @Test
    void rolloutUndo_whenTheDeploymentChangedAfterTheApproval_isRefusedAsStateInconsistency() throws Exception {
        ProposingTool undo = (ProposingTool) tools.get("k8s_rollout_undo");
        JsonNode proposed = undo.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\"}"), CTX);
        // Someone else acts in between: scales the deployment.
        mock.client().apps().deployments().inNamespace("shop").withName("web").scale(5);

        assertThatThrownBy(() -> undo.execute(proposed, CTX)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.category()).isEqualTo(FailureCategory.STATE_INCONSISTENCY);
            assertThat(e.code()).isEqualTo("k8s_changed_since_approval");
            assertThat(e.getMessage()).contains("Deployment shop/web changed since the approval");
        });
        assertThat(deployment()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getImage())
                .isEqualTo("shop/web:2");
    }

    @Test
    void rolloutUndo_toARevisionThatDoesNotExist_isRefusedAtProposal() throws Exception {
        ProposingTool undo = (ProposingTool) tools.get("k8s_rollout_undo");

        assertThatThrownBy(() -> undo.propose(
                        JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\",\"toRevision\":7}"), CTX))
                .isInstanceOfSatisfying(
                        ToolException.class,
                        e -> assertThat(e.getMessage()).contains("has no revision 7 (revisions: [1, 2])"));
    }

    @Test
    void scaleRestartAndDeletePod_applyWhatTheyPropose() throws Exception {
        ProposingTool scale = (ProposingTool) tools.get("k8s_scale");
        JsonNode s =
                scale.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\",\"replicas\":4}"), CTX);
        assertThat(s.path("change").asString()).isEqualTo("Scale deployment shop/web from 2 to 4 replica(s)");
        scale.execute(s, CTX);
        assertThat(deployment().getSpec().getReplicas()).isEqualTo(4);

        ProposingTool restart = (ProposingTool) tools.get("k8s_rollout_restart");
        restart.execute(restart.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\"}"), CTX), CTX);
        assertThat(deployment().getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("kubectl.kubernetes.io/restartedAt", "2026-12-05T10:10:00Z");

        ProposingTool delete = (ProposingTool) tools.get("k8s_delete_pod");
        JsonNode d = delete.propose(JSON.readTree("{\"namespace\":\"shop\",\"pod\":\"web-2222-ccccc\"}"), CTX);
        assertThat(d.path("change").asString())
                .isEqualTo("Delete pod shop/web-2222-ccccc (CrashLoopBackOff; owned by ReplicaSet/web-2222, which"
                        + " recreates it)");
        delete.execute(d, CTX);
        assertThat(mock.client()
                        .pods()
                        .inNamespace("shop")
                        .withName("web-2222-ccccc")
                        .get())
                .isNull();
    }

    private Deployment deployment() {
        return mock.client()
                .apps()
                .deployments()
                .inNamespace("shop")
                .withName("web")
                .get();
    }

    private static JsonNode row(JsonNode out, String name) {
        for (JsonNode r : out.path("rows")) {
            if (r.path("name").asString().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no row " + name + " in " + out);
    }
}
