package dev.cadre.platform.deploy;

import static dev.cadre.platform.deploy.DeployKitTest.COMPOSE_DIR;
import static dev.cadre.platform.deploy.DeployKitTest.DEPLOY;
import static dev.cadre.platform.deploy.DeployKitTest.ROOT;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The host team's settings in every deploy kit (compose and Kubernetes): the Prometheus it asks about
 * the hosts and the SSH settings of runbooks that run on them (user, key, known_hosts, addresses), each
 * present, mounted where the platform reads it, and documented in docs/deploy.md and
 * docs/configuration.md — offline, no Docker engine or cluster needed.
 */
class HostTeamDeployTest {

    private static final String IMPORT = "optional:file:/etc/cadre/ssh/cadre-ssh.yaml";
    private static final List<String> SSH_SETTINGS = List.of(
            "cadre.runbooks.ssh.user",
            "cadre.runbooks.ssh.key",
            "cadre.runbooks.ssh.known-hosts",
            "cadre.runbooks.ssh.addresses");

    @Test
    void composeGivesEveryPlatformInstanceThePrometheusUrlAndTheMountedSshSettings() throws IOException {
        JsonNode services =
                DeployKitTest.yaml(COMPOSE_DIR.resolve("compose.yaml")).path("services");
        int instances = 0;
        for (var e : services.properties()) {
            Map<String, String> env = DeployKitTest.env(e.getValue());
            if (!env.containsKey("CADRE_INSTANCE_ID")) {
                continue;
            }
            instances++;
            assertThat(DeployKitTest.interpolateDefaults(env.get("CADRE_TOOLS_PROMETHEUS_URL")))
                    .as("%s: the Prometheus the host team asks", e.getKey())
                    .isEqualTo("http://prometheus:9090");
            assertThat(env.get("SPRING_CONFIG_IMPORT")).as(e.getKey()).isEqualTo(IMPORT);
            Optional<Path> ssh = DeployKitTest.hostPathOf(e.getValue(), "/etc/cadre/ssh");
            assertThat(ssh)
                    .as("%s mounts the SSH settings at /etc/cadre/ssh", e.getKey())
                    .isPresent();
            assertThat(ssh.get()).isEqualTo(COMPOSE_DIR.resolve("ssh").normalize());
        }
        assertThat(instances).isEqualTo(2);
        assertThat(DeployKitTest.envExample()).containsEntry("CADRE_TOOLS_PROMETHEUS_URL", "http://prometheus:9090");
        assertSshSettings(Files.readString(COMPOSE_DIR.resolve("ssh/cadre-ssh.yaml")), "deploy/compose/ssh");
        assertThat(Files.readString(COMPOSE_DIR.resolve("ssh/.gitignore")))
                .as("the private key is never committed")
                .contains("id_*");
    }

    @Test
    void kubernetesSetsThePrometheusUrlAndMountsTheSshSecretWhereTheImportReadsIt() {
        JsonNode settings = DeployKitTest.yamlDocuments(DEPLOY.resolve("k8s/configmap.yaml")).stream()
                .filter(d -> d.at("/metadata/name").asString().equals("cadre-settings"))
                .findFirst()
                .orElseThrow();
        assertThat(settings.at("/data/CADRE_TOOLS_PROMETHEUS_URL").asString()).startsWith("http://");
        assertThat(settings.at("/data/SPRING_CONFIG_IMPORT").asString()).isEqualTo(IMPORT);

        JsonNode secret = DeployKitTest.yamlDocuments(DEPLOY.resolve("k8s/secret.yaml")).stream()
                .filter(d -> d.at("/metadata/name").asString().equals("cadre-ssh"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("secret.yaml has no Secret cadre-ssh"));
        assertSshSettings(secret.at("/stringData/cadre-ssh.yaml").asString(), "Secret cadre-ssh");
        assertThat(secret.at("/stringData").propertyNames()).contains("id_ecdsa", "known_hosts");

        JsonNode pod = DeployKitTest.yaml(DEPLOY.resolve("k8s/deployment.yaml")).at("/spec/template/spec");
        JsonNode volume = DeployKitTest.volume(pod, "ssh");
        assertThat(volume.at("/secret/secretName").asString()).isEqualTo("cadre-ssh");
        assertThat(volume.at("/secret/defaultMode").asInt())
                .as("the key is readable by the pod's owner and group only (0440 octal, written as 288)")
                .isEqualTo(0440);
        assertThat(DeployKitTest.stream(pod.at("/containers/0/volumeMounts"))
                        .filter(m -> m.path("name").asString().equals("ssh"))
                        .map(m -> m.path("mountPath").asString()))
                .containsExactly("/etc/cadre/ssh");
    }

    @Test
    void theDeployGuideAndTheConfigurationReferenceDocumentEverySetting() throws IOException {
        String deploy = Files.readString(ROOT.resolve("docs/deploy.md"));
        assertThat(deploy)
                .contains("### The host team: Prometheus and SSH", "### The host team on Kubernetes")
                .contains("CADRE_TOOLS_PROMETHEUS_URL", "cadre-ssh.yaml", "known_hosts", "addresses");
        String reference = Files.readString(ROOT.resolve("docs/configuration.md"));
        assertThat(reference).contains("`cadre.tools.prometheus.url`");
        for (String setting : SSH_SETTINGS) {
            assertThat(reference).as(setting).contains("`" + setting);
        }
    }

    /** The SSH settings file names every setting (commented until a key exists) and parses as YAML. */
    private static void assertSshSettings(String yaml, String where) {
        JsonNode parsed = DeployKitTest.YAML.readTree(yaml);
        assertThat(parsed.at("/cadre/runbooks/ssh/user").asString()).as(where).isEqualTo("cadre");
        assertThat(yaml)
                .as(where + " shows the key, known-hosts and addresses settings")
                .contains("key: /etc/cadre/ssh/id_ecdsa", "known-hosts: /etc/cadre/ssh/known_hosts", "addresses:");
    }
}
