package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.Tools;
import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

/**
 * A tool call that ignores its stop, as a backtracking regular expression in {@code k8s_logs.grep}
 * did: the run must still end when its agent's timeout (or a cancel) passes — failed with a clear
 * category, never resumed — and health must say an execution is stuck while its thread runs.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:stuck-tool;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:stuck-agents/*.yaml",
            "cadre.approvals.separation-of-duties=false",
            "cadre.retention.enabled=false",
            "cadre.runs.stuck-grace=PT2S",
            "management.endpoint.health.show-details=always"
        })
@Import({TestTools.class, StuckToolAttackTest.IgnoreStop.class})
class StuckToolAttackTest {

    static final AtomicBoolean RELEASE = new AtomicBoolean();
    static final AtomicInteger CALLS = new AtomicInteger();

    @TestConfiguration(proxyBeanMethods = false)
    static class IgnoreStop {
        @Bean
        ToolProvider ignoreStopTool() {
            Tool tool = Tools.of(
                    "ignore_stop",
                    "Never returns until the test lets it. Test tool.",
                    "{\"type\":\"object\"}",
                    Risk.AUTO,
                    (args, ctx) -> {
                        CALLS.incrementAndGet();
                        // Interrupts are swallowed: parkNanos returns and the loop parks again.
                        while (!RELEASE.get()) {
                            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
                        }
                        return "released";
                    });
            return () -> List.of(tool);
        }
    }

    @LocalServerPort
    int port;

    // Looked up when used, so the test also runs (and fails for the right reason) where it is missing.
    @Autowired
    org.springframework.beans.factory.ObjectProvider<StuckRuns> stuck;

    @Autowired
    RunService runs;

    @AfterEach
    void release() {
        RELEASE.set(true);
    }

    private JsonNode awaitEnd(Api api, String runId) {
        return Await.until(
                "run " + runId + " to end",
                () -> api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY).json(),
                r -> r.get("status").asString().matches("completed|failed|canceled|rejected"));
    }

    @Test
    void aToolIgnoringItsStop_pastItsAgentsTimeout_endsTheRunFailed_isNotResumed_andHealthSaysSo() {
        RELEASE.set(false);
        CALLS.set(0);
        Api api = new Api(port);
        String runId = api.submitRun("spinner", "spin").get("id").asString();

        JsonNode ended = awaitEnd(api, runId);

        assertThat(ended.get("status").asString()).isEqualTo("failed");
        assertThat(ended.get("error").get("category").asString()).isEqualTo("TIMEOUT_ERROR");
        assertThat(ended.get("error").get("code").asString()).isEqualTo("abandoned");
        assertThat(ended.get("error").get("message").asString())
                .contains("tool call 'ignore_stop'")
                .contains("its agent's timeout")
                .contains("not resumed");
        // Its thread still runs: health says so, naming the run.
        var health = api.get("/actuator/health", null);
        assertThat(health.status()).isEqualTo(503);
        assertThat(health.json()
                        .get("components")
                        .get("stuckExecutions")
                        .get("status")
                        .asString())
                .isEqualTo("OUT_OF_SERVICE");
        assertThat(health.json()
                        .get("components")
                        .get("stuckExecutions")
                        .get("details")
                        .get("runs")
                        .toString())
                .contains(runId, "ignore_stop");
        assertThat(api.get("/actuator/health/readiness", null).status()).isEqualTo(503);
        // Recovery, as after a restart, finds nothing to run again: the run has ended.
        runs.recover(true, Duration.ZERO);
        assertThat(api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("failed");
        assertThat(CALLS.get()).isEqualTo(1);

        // The thread lets go at last: health is UP again, and the run stays as it ended.
        RELEASE.set(true);
        Await.until(
                "the stuck execution to be released",
                () -> stuck.getObject().list().size(),
                n -> n == 0);
        assertThat(api.get("/actuator/health", null).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("failed");
    }

    @Test
    void aCancelledRunWhoseToolIgnoresTheStop_endsCanceled() {
        RELEASE.set(false);
        CALLS.set(0);
        Api api = new Api(port);
        String runId = api.submitRun("patient-spinner", "spin").get("id").asString();
        Await.until(
                "the tool to be called",
                () -> api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString(),
                s -> s.equals("working") && CALLS.get() > 0);

        assertThat(api.post("/api/v1/runs/" + runId + "/cancel", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(202);
        JsonNode ended = awaitEnd(api, runId);

        assertThat(ended.get("status").asString()).isEqualTo("canceled");
        assertThat(ended.get("error").get("code").asString()).isEqualTo("abandoned");
        assertThat(ended.get("error").get("message").asString()).contains("of a cancel");
    }
}
