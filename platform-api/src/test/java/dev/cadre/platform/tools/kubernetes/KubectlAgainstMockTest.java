package dev.cadre.platform.tools.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * No real API server runs on these machines, so the tools are tested against fabric8's emulator. This
 * shows that the emulator answers a real client — the {@code kubectl} on PATH — the same way for the
 * requests the tools make: lists by label selector, gets by name, ReplicaSets, events, a previous
 * container's log (an expectation, as CRUD mode serves no logs) and a write (a patch of replicas). Skipped where there
 * is no {@code kubectl}.
 */
class KubectlAgainstMockTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    KubernetesMock mock;
    Path kubeconfig;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(kubectl() != null, "kubectl is not on PATH");
        mock = new KubernetesMock();
        mock.seedCrashLoop();
        // kubectl names the (only) container and leaves out fabric8's pretty=false.
        mock.server()
                .expect()
                .get()
                .withPath("/api/v1/namespaces/shop/pods/web-2222-ccccc/log?container=app&previous=true&tailLines=100")
                .andReturn(200, "starting web 2\nloading config\nFATAL: FEATURE_X requires DB_URL to be set\n")
                .always();
        discovery();
        kubeconfig = mock.writeKubeconfig(dir);
    }

    /**
     * kubectl resolves "pods" through API discovery, which CRUD mode does not serve (the fabric8 client
     * and so the tools never ask for it): the documents a real API server gives, for the kinds used here.
     */
    private void discovery() {
        expect("/api", new APIVersionsBuilder().withVersions("v1").build());
        expect(
                "/api/v1",
                resources(
                        "v1",
                        resource("pods", "Pod", true),
                        resource("pods/log", "Pod", true),
                        resource("events", "Event", true),
                        resource("services", "Service", true),
                        resource("nodes", "Node", false)));
        expect(
                "/apis",
                new APIGroupListBuilder()
                        .addNewGroup()
                        .withName("apps")
                        .addNewVersion()
                        .withGroupVersion("apps/v1")
                        .withVersion("v1")
                        .endVersion()
                        .withNewPreferredVersion()
                        .withGroupVersion("apps/v1")
                        .withVersion("v1")
                        .endPreferredVersion()
                        .endGroup()
                        .build());
        expect(
                "/apis/apps/v1",
                resources(
                        "apps/v1",
                        resource("deployments", "Deployment", true),
                        resource("deployments/scale", "Scale", true),
                        resource("replicasets", "ReplicaSet", true)));
    }

    private void expect(String path, Object body) {
        // kubectl adds its request timeout to discovery requests (default 32s).
        mock.server()
                .expect()
                .get()
                .withPath(path + "?timeout=32s")
                .andReturn(200, body)
                .always();
    }

    private static APIResourceList resources(String groupVersion, APIResource... resources) {
        return new APIResourceListBuilder()
                .withGroupVersion(groupVersion)
                .withResources(resources)
                .build();
    }

    private static APIResource resource(String name, String kind, boolean namespaced) {
        return new APIResourceBuilder()
                .withName(name)
                .withKind(kind)
                .withNamespaced(namespaced)
                .withSingularName("")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete")
                .build();
    }

    @AfterEach
    void stop() {
        if (mock != null) {
            mock.close();
        }
    }

    static Path kubectl() {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(p -> Path.of(p, "kubectl"))
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
    }

    private String kubectl(String... args) throws Exception {
        List<String> command = new ArrayList<>(
                List.of(kubectl().toString(), "--kubeconfig=" + kubeconfig, "--cache-dir=" + dir.resolve("cache")));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as("kubectl %s: %s", String.join(" ", args), out)
                .isZero();
        return out;
    }

    private static List<String> names(JsonNode list) {
        List<String> names = new ArrayList<>();
        list.path("items")
                .forEach(i -> names.add(i.path("metadata").path("name").asString()));
        names.sort(null);
        return names;
    }

    @Test
    void kubectlSeesWhatTheToolsSee() throws Exception {
        var client = mock.client();

        JsonNode pods = JSON.readTree(kubectl("get", "pods", "-n", "shop", "-l", "app=web", "-o", "json"));
        assertThat(names(pods))
                .containsExactlyElementsOf(
                        client.pods().inNamespace("shop").withLabel("app", "web").list().getItems().stream()
                                .map(p -> p.getMetadata().getName())
                                .sorted()
                                .toList());
        JsonNode crashing = JSON.readTree(kubectl("get", "pod", "web-2222-ccccc", "-n", "shop", "-o", "json"));
        assertThat(crashing.path("status")
                        .path("containerStatuses")
                        .get(0)
                        .path("restartCount")
                        .asInt())
                .isEqualTo(7);
        assertThat(crashing.path("metadata")
                        .path("ownerReferences")
                        .get(0)
                        .path("name")
                        .asString())
                .isEqualTo("web-2222");

        Deployment d =
                client.apps().deployments().inNamespace("shop").withName("web").get();
        JsonNode deployment = JSON.readTree(kubectl("get", "deployment", "web", "-n", "shop", "-o", "json"));
        assertThat(deployment.path("metadata").path("resourceVersion").asString())
                .isEqualTo(d.getMetadata().getResourceVersion());
        assertThat(deployment.path("metadata").path("generation").asLong())
                .isEqualTo(d.getMetadata().getGeneration());

        assertThat(names(JSON.readTree(kubectl("get", "replicasets", "-n", "shop", "-o", "json"))))
                .containsExactly("web-1111", "web-2222");
        assertThat(kubectl("get", "events", "-n", "shop", "-o", "json"))
                .contains("\"BackOff\"")
                .contains("\"Pulled\"");
        assertThat(kubectl("logs", "web-2222-ccccc", "-n", "shop", "--previous", "--tail=100"))
                .contains("FATAL: FEATURE_X requires DB_URL to be set");

        // A write by kubectl is what the tools' next read sees, with the generation moved on. (Not `kubectl
        // scale`: CRUD mode does not emulate the /scale subresource; the tools write whole objects.)
        kubectl("patch", "deployment", "web", "-n", "shop", "--type=merge", "-p", "{\"spec\":{\"replicas\":3}}");
        Deployment scaled =
                client.apps().deployments().inNamespace("shop").withName("web").get();
        assertThat(scaled.getSpec().getReplicas()).isEqualTo(3);
        assertThat(scaled.getMetadata().getGeneration())
                .isGreaterThan(d.getMetadata().getGeneration());
    }
}
