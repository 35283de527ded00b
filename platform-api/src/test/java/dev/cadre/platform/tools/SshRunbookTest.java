package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.support.RealSshd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * runbook_execute with {@code target: alert-host} against a real OpenSSH server on loopback (as the
 * host {@code web-1}): runs once with the dedicated key and a verified host key, and refuses, before
 * anything runs, a host whose key is unknown or changed, a host outside the runbook's allow-list, a host
 * for a local runbook.
 */
class SshRunbookTest {

    static RealSshd sshd;

    @TempDir
    Path dir;

    Path marker;
    IncidentService incidents;
    String incident;

    @BeforeAll
    static void startSshd() throws Exception {
        sshd = RealSshd.start("web-1");
    }

    @AfterAll
    static void stopSshd() {
        if (sshd != null) {
            sshd.close();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        marker = dir.resolve("marker");
        Path script = dir.resolve("mark.sh");
        // Runs on the "host": appends its arguments and environment to the marker file there.
        Files.writeString(
                script,
                "#!/bin/sh\necho \"$CADRE_HOST $RUNBOOK_NOTE $*\" >> '" + marker
                        + "'\necho \"marked on $(hostname)\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(
                dir.resolve("mark.yaml"),
                "description: marks the host\ntarget: alert-host\nhosts: [\"web-*\"]\nverifies: [cpu]\ntimeout: 20s\n"
                        + "parameters:\n  note: {type: string, maxLength: 50, default: none}\n");
        Path local = dir.resolve("local.sh");
        Files.writeString(local, "#!/bin/sh\necho local\n");
        Files.setPosixFilePermissions(local, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(dir.resolve("local.yaml"), "description: local\nparameters: {}\n");
        incidents = ToolTestSupport.incidents();
        incident = incidents
                .open(
                        new IncidentService.OpenRequest("cpu@web-1", "CPU high", "critical", "test", Map.of(), null),
                        Writer.apiClient("test"),
                        null)
                .incident()
                .id();
    }

    RunbookExecuteTool tool(Path knownHosts) {
        return tool(knownHosts, sshd.userKey());
    }

    RunbookExecuteTool tool(Path knownHosts, Path key) {
        return new RunbookExecuteTool(
                new Runbooks(dir, Duration.ofSeconds(10)),
                incidents,
                1000,
                OpsToolsProperties.Runbooks.DEFAULT_ENVIRONMENT,
                JSON,
                new SshRunbookRunner(new OpsToolsProperties.Ssh(
                        System.getProperty("user.name"),
                        key,
                        knownHosts,
                        0,
                        Duration.ofSeconds(10),
                        Map.of("web-1", "127.0.0.1:" + sshd.port()))));
    }

    @Test
    void runsOnceOnTheHost_overSsh_withItsArgumentsQuotedForTheRemoteShell() throws Exception {
        String out = tool(sshd.knownHosts())
                .execute(
                        args("{\"runbook\":\"mark\",\"host\":\"web-1\",\"incident\":\"" + incident
                                + "\",\"arguments\":{\"note\":\"it's $(reboot) fine\"}}"),
                        ctx("run-1", "call-1"));

        JsonNode result = JSON.readTree(out);
        assertThat(result.path("status").asString()).as(out).isEqualTo("ok");
        assertThat(result.path("host").asString()).isEqualTo("web-1");
        assertThat(result.path("output").asString()).startsWith("marked on ");
        // Exactly the quoted values, never interpreted by the remote shell.
        assertThat(Files.readAllLines(marker)).containsExactly("web-1 it's $(reboot) fine --note=it's $(reboot) fine");

        // The same remediation again within the window: already done, nothing runs a second time.
        String again = tool(sshd.knownHosts())
                .execute(
                        args("{\"runbook\":\"mark\",\"host\":\"web-1\",\"incident\":\"" + incident + "\"}"),
                        ctx("run-2", "call-2"));
        assertThat(JSON.readTree(again).path("status").asString()).isEqualTo("skipped");
        assertThat(Files.readAllLines(marker)).hasSize(1);
    }

    /** The key types docs/ops-team.md promises for cadre.runbooks.ssh.key, each logging in to a real sshd. */
    @ParameterizedTest
    @ValueSource(strings = {"ecdsa", "ed25519", "rsa"})
    void theDedicatedKeyMayBeEcdsaEd25519OrRsa(String type) throws Exception {
        String out = tool(sshd.knownHosts(), sshd.userKey(type))
                .execute(
                        args("{\"runbook\":\"mark\",\"host\":\"web-1\",\"incident\":\"" + incident
                                + "\",\"arguments\":{\"note\":\"" + type + "\"}}"),
                        ctx("run-key-" + type, "call-key-" + type));

        assertThat(JSON.readTree(out).path("status").asString()).as(out).isEqualTo("ok");
        assertThat(Files.readAllLines(marker)).containsExactly("web-1 " + type + " --note=" + type);
    }

    @Test
    void aChangedHostKey_isRefusedBeforeAnythingRuns_namingTheHost() {
        assertThatThrownBy(() -> tool(sshd.changedKnownHosts())
                        .execute(
                                args("{\"runbook\":\"mark\",\"host\":\"web-1\",\"incident\":\"" + incident + "\"}"),
                                ctx("run-3", "call-3")))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo("ssh_host_key_refused");
                    assertThat(e.category()).isEqualTo(FailureCategory.EXECUTION_ERROR);
                })
                .hasMessageContaining("the SSH host key of web-1 changed")
                .hasMessageContaining("nothing ran on web-1");
        assertThat(marker).doesNotExist();
        assertThat(incidents
                        .get(incident)
                        .orElseThrow()
                        .value()
                        .path("remediations")
                        .get(0)
                        .path("status")
                        .asString())
                .isEqualTo("failed");
    }

    @Test
    void anUnknownHostKey_isRefused() {
        assertThatThrownBy(() -> tool(sshd.emptyKnownHosts())
                        .execute(
                                args("{\"runbook\":\"mark\",\"host\":\"web-1\",\"incident\":\"" + incident + "\"}"),
                                ctx("run-4", "call-4")))
                .hasMessageContaining("the SSH host key of web-1 (")
                .hasMessageContaining("unknown host refused");
        assertThat(marker).doesNotExist();
    }

    @Test
    void aHostOutsideTheAllowList_orAHostForALocalRunbook_isRefused() {
        assertThatThrownBy(() -> tool(sshd.knownHosts())
                        .execute(
                                args("{\"runbook\":\"mark\",\"host\":\"db-2\",\"incident\":\"" + incident + "\"}"),
                                ctx("run-5", "call-5")))
                .hasMessage("runbook 'mark' may not run on db-2 (its hosts: [web-*]); nothing ran");
        assertThatThrownBy(() -> tool(sshd.knownHosts())
                        .execute(args("{\"runbook\":\"mark\",\"incident\":\"" + incident + "\"}"), ctx("run-6", "c")))
                .hasMessageContaining("give 'host'");
        assertThatThrownBy(() -> tool(sshd.knownHosts())
                        .execute(
                                args("{\"runbook\":\"local\",\"host\":\"web-1\",\"incident\":\"" + incident + "\"}"),
                                ctx("run-7", "c")))
                .hasMessageContaining("runs on the platform's own machine, not on web-1");
        assertThat(marker).doesNotExist();
    }
}
