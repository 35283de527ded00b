package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Real scripts in a temp directory: declared parameters, no shell, timeout, truncation, the window guard. */
class RunbookExecuteToolTest {

    @TempDir
    Path dir;

    IncidentService incidents;
    RunbookExecuteTool tool;
    String incident;

    private void runbook(String name, String body, String yaml, boolean executable) throws Exception {
        Path script = dir.resolve(name + ".sh");
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString(executable ? "rwx------" : "rw-------"));
        if (yaml != null) {
            Files.writeString(dir.resolve(name + ".yaml"), yaml);
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        runbook(
                "echo-args",
                "for a in \"$@\"; do echo \"arg[$a]\"; done; echo \"env[$RUNBOOK_TARGET]\"; echo \"incident[$CADRE_INCIDENT_ID]\"",
                "description: echoes\nparameters:\n  target: {type: string, required: true, maxLength: 100}\n"
                        + "  count: {type: integer, minimum: 1, maximum: 5, default: 2}\n",
                true);
        runbook("sleepy", "sleep 30", "description: hangs\ntimeout: 1s\nparameters: {}\n", true);
        runbook(
                "chatty",
                "i=0; while [ $i -lt 3000 ]; do echo 0123456789abcdefghij; i=$((i+1)); done",
                "parameters: {}\n",
                true);
        runbook("failing", "echo boom; exit 3", "parameters: {}\n", true);
        runbook("undeclared", "echo should never run", null, true);
        runbook("not-executable", "echo x", "parameters: {}\n", false);
        Files.writeString(dir.resolveSibling("outside.yaml"), "parameters: {}\n");
        incidents = ToolTestSupport.incidents();
        tool = new RunbookExecuteTool(
                new Runbooks(dir, Duration.ofSeconds(10)),
                incidents,
                1000,
                OpsToolsProperties.Runbooks.DEFAULT_ENVIRONMENT,
                JSON,
                new SshRunbookRunner(new OpsToolsProperties.Ssh(null, null, null, 0, null, null)));
        incident = incidents
                .open(
                        new IncidentService.OpenRequest("cpu@web-1", "CPU high", "critical", "test", Map.of(), null),
                        Writer.apiClient("test"),
                        null)
                .incident()
                .id();
    }

    private JsonNode run(String json, String call) throws Exception {
        return JSON.readTree(tool.execute(args(json), ctx("run-1", call)));
    }

    @Test
    void runsWithDeclaredArguments_asArgvAndEnvironment_neverThroughAShell() throws Exception {
        assertThat(tool.risk()).isEqualTo(Risk.APPROVE);
        assertThat(tool.description()).contains("echo-args").contains("target:string");
        JsonNode r = run(
                "{\"runbook\":\"echo-args\",\"incident\":\"" + incident
                        + "\",\"arguments\":{\"target\":\"web-1; rm -rf / $(id) `id`\"}}",
                "c1");
        assertThat(r.get("status").asString()).isEqualTo("ok");
        assertThat(r.get("output").asString())
                .contains("arg[--target=web-1; rm -rf / $(id) `id`]")
                .contains("arg[--count=2]")
                .contains("env[web-1; rm -rf / $(id) `id`]")
                .contains("incident[" + incident + "]");
    }

    @Test
    void refusesUndeclaredRunbooks_badArguments_andNamesOutsideTheDirectory() {
        for (String name : new String[] {"undeclared", "not-executable", "../outside", "nope"}) {
            assertThatThrownBy(
                            () -> run("{\"runbook\":\"" + name + "\",\"incident\":\"" + incident + "\"}", "c-" + name))
                    .isInstanceOfSatisfying(
                            ToolException.class, e -> assertThat(e.code()).isEqualTo("unknown_runbook"));
        }
        assertThatThrownBy(() -> run(
                        "{\"runbook\":\"echo-args\",\"incident\":\"" + incident
                                + "\",\"arguments\":{\"target\":\"x\",\"count\":9,\"extra\":1}}",
                        "c2"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_arguments");
                    assertThat(e.getMessage())
                            .contains("unknown parameter 'extra'")
                            .contains("count: must be <= 5");
                });
        assertThatThrownBy(() -> run("{\"runbook\":\"echo-args\",\"arguments\":{\"target\":\"x\"}}", "c3"))
                .hasMessageContaining("open or find one first");
    }

    @Test
    void aSecondApprovalOfTheSameRemediation_withinTheWindow_runsNothing() throws Exception {
        assertThat(run(
                                "{\"runbook\":\"echo-args\",\"incident\":\"" + incident
                                        + "\",\"arguments\":{\"target\":\"a\"}}",
                                "c1")
                        .get("status")
                        .asString())
                .isEqualTo("ok");
        JsonNode again = run(
                "{\"runbook\":\"echo-args\",\"incident\":\"" + incident + "\",\"arguments\":{\"target\":\"a\"}}", "c2");
        assertThat(again.get("status").asString()).isEqualTo("skipped");
        assertThat(again.get("reason").asString()).contains("already ran").contains("run-1");
        var stored = incidents.get(incident).orElseThrow();
        assertThat(stored.value().get("remediations").size()).isEqualTo(1);
        assertThat(stored.value().get("remediations").get(0).get("status").asString())
                .isEqualTo("ok");
    }

    @Test
    void timeout_killsTheProcess_failureKeepsTheOutputTail_andLongOutputIsTruncated() throws Exception {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> run("{\"runbook\":\"sleepy\",\"incident\":\"" + incident + "\"}", "c1"))
                .isInstanceOfSatisfying(
                        ToolException.class, e -> assertThat(e.category()).isEqualTo(FailureCategory.TIMEOUT_ERROR));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThatThrownBy(() -> run("{\"runbook\":\"failing\",\"incident\":\"" + incident + "\"}", "c2"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo("runbook_failed");
                    assertThat(e.getMessage()).contains("exited with 3").contains("boom");
                });
        JsonNode chatty = run("{\"runbook\":\"chatty\",\"incident\":\"" + incident + "\"}", "c3");
        assertThat(chatty.get("output").asString()).hasSize(1000);
        assertThat(chatty.get("outputTruncated").asBoolean()).isTrue();
    }
}
