package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * What the platform reports matches what happened (issue 16, "Telemetry that tells the truth"): a
 * delegation refused before it starts is a tool node of the trace and a misroute in the metrics, an
 * agent node's tokens are its own with the tree's apart, and a model repeating a call ends the run
 * with {@code repeated_tool_call} in the run record and the trace.
 */
@PlatformTest
class TelemetryTruthTest {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String runToEnd(String agent, String input) {
        String id = api.submitRun(agent, input).get("id").asString();
        api.awaitRunEnd(id);
        return id;
    }

    /** The run's whole trace: its spans reach the store in batches after they end. */
    private JsonNode trace(String runId) {
        return api.awaitTrace(runId);
    }

    private double count(String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    private static JsonNode child(JsonNode node, String name) {
        return node.get("children")
                .valueStream()
                .filter(c -> c.get("name").asString().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no child " + name + " under " + node.get("name")));
    }

    @Test
    void anUnknownWorker_isAFailedToolNodeOfTheTrace_andAMisroute() {
        double misroutesB = count("cadre.misroutes", "worker", "probe-b");
        double failedB = count("cadre.delegations", "worker", "probe-b", "outcome", "failed");
        double misroutesA = count("cadre.misroutes", "worker", "probe-a");
        double usefulA = count("cadre.delegations.useful", "worker", "probe-a");

        String run = runToEnd("misrouter", "route me");

        // A refusal is counted when it happens; the delegations that ran are counted as the run ends,
        // just after its status is stored: wait for those before reading any count.
        Await.until(
                "the delegations of " + run + " to be counted",
                () -> count("cadre.delegations.useful", "worker", "probe-a"),
                n -> n > usefulA);
        assertThat(count("cadre.misroutes", "worker", "probe-b")).isEqualTo(misroutesB + 1);
        assertThat(count("cadre.delegations", "worker", "probe-b", "outcome", "failed"))
                .isEqualTo(failedB + 1);
        assertThat(count("cadre.misroutes", "worker", "probe-a")).isEqualTo(misroutesA);

        // invoke misrouter, 2 chats, execute_tool probe-b (refused), execute_tool probe-a, its agent, its chat
        JsonNode root = trace(run).get("roots").get(0);
        assertThat(root.get("name").asString()).isEqualTo("invoke_agent misrouter");
        JsonNode refused = child(root, "execute_tool probe-b");
        assertThat(refused.get("kind").asString()).isEqualTo("tool");
        assertThat(refused.get("tool").asString()).isEqualTo("probe-b");
        assertThat(refused.get("status").asString()).isEqualTo("failed");
        assertThat(refused.get("failureCategory").asString()).isEqualTo("ORCHESTRATION_ERROR");
        assertThat(refused.get("error").asString())
                .isEqualTo("'probe-b' is not a worker of agent 'misrouter'; available: probe-a");
        assertThat(refused.get("parentSpanId").asString())
                .isEqualTo(root.get("spanId").asString());
        assertThat(refused.get("children").isEmpty()).isTrue();

        // Own tokens: the two scripted model calls; the tree adds probe-a's.
        assertThat(root.get("inputTokens").asLong()).isEqualTo(120 + 150);
        assertThat(root.get("outputTokens").asLong()).isEqualTo(12 + 15);
        JsonNode probeA = child(child(root, "execute_tool probe-a"), "invoke_agent probe-a");
        assertThat(probeA.get("inputTokens").asLong()).isPositive();
        assertThat(probeA.get("treeInputTokens").asLong())
                .isEqualTo(probeA.get("inputTokens").asLong());
        assertThat(root.get("treeInputTokens").asLong())
                .isEqualTo(270 + probeA.get("inputTokens").asLong());
        assertThat(root.get("treeOutputTokens").asLong())
                .isEqualTo(27 + probeA.get("outputTokens").asLong());
        JsonNode record = api.get("/api/v1/runs/" + run, Api.ADMIN_KEY).json();
        assertThat(record.get("usage").get("inputTokens").asLong())
                .isEqualTo(root.get("treeInputTokens").asLong());
        // Tool and model nodes have no tree of their own.
        assertThat(refused.get("treeInputTokens").isNull()).isTrue();
        assertThat(child(root, "chat default").get("treeInputTokens").isNull()).isTrue();
    }

    @Test
    void aModelRepeatingTheSameCall_endsTheRunFailed_withRepeatedToolCall() {
        double failures = count("cadre.failures", "category", "EXECUTION_ERROR", "agent", "looper");

        String run = runToEnd("looper", "loop");

        JsonNode record = api.get("/api/v1/runs/" + run, Api.ADMIN_KEY).json();
        assertThat(record.get("status").asString()).isEqualTo("failed");
        assertThat(record.get("error").get("category").asString()).isEqualTo("EXECUTION_ERROR");
        assertThat(record.get("error").get("code").asString()).isEqualTo("repeated_tool_call");
        assertThat(record.get("error").get("message").asString())
                .isEqualTo("agent 'looper' asked for the same call (echo, same arguments) 3 times in a row;"
                        + " stopped instead of running it again");

        // invoke looper, 3 chats, 3 echo calls (the third refused)
        JsonNode root = trace(run).get("roots").get(0);
        assertThat(root.get("status").asString()).isEqualTo("failed");
        assertThat(root.get("failureCategory").asString()).isEqualTo("EXECUTION_ERROR");
        List<String> echoes = root.get("children")
                .valueStream()
                .filter(c -> c.get("kind").asString().equals("tool"))
                .map(c -> c.get("status").asString() + " "
                        + (c.get("failureCategory").isNull()
                                ? ""
                                : c.get("failureCategory").asString()))
                .toList();
        assertThat(echoes).containsExactly("ok ", "ok ", "failed EXECUTION_ERROR");
        // One failed invocation and one failed (refused) tool call.
        assertThat(count("cadre.failures", "category", "EXECUTION_ERROR", "agent", "looper"))
                .isEqualTo(failures + 2);
    }
}
