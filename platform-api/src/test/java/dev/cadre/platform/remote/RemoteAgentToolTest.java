package dev.cadre.platform.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.model.UntrustedText;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.observability.OutboundTraceContext;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Delegation to a remote A2A agent, against a real Cadre A2A server (this test's own platform, as a
 * second Cadre would be): the answer comes back as the tool result, the remote run joins the
 * caller's trace, a repeated call of the same tool call starts no second task, and remote failures,
 * refusals and timeouts come back as categorised tool errors.
 */
@PlatformTest
class RemoteAgentToolTest {

    @LocalServerPort
    int port;

    @Autowired
    OpenTelemetry openTelemetry;

    @Autowired
    JsonMapper json;

    @Autowired
    AgentCatalog catalog;

    Api api;
    HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private RemoteAgentTool remote(String skill, Duration timeout, String key) {
        var config = new RemoteAgentsProperties.Remote(
                URI.create("http://127.0.0.1:" + port + "/a2a"), skill, null, key, timeout, null);
        return new RemoteAgentTool("eu-" + skill, config, http, json, new OutboundTraceContext(openTelemetry));
    }

    private static ToolContext call(String id) {
        return new ToolContext("run_local_" + id, "session-1", "ops-orchestrator", "call_" + id);
    }

    private JsonNode args(String task) {
        return json.readTree(Api.json(java.util.Map.of("task", task)));
    }

    private JsonNode newestRunOf(String agent) {
        return api.get("/api/v1/runs?agent=" + agent + "&limit=1", Api.ADMIN_KEY)
                .json()
                .get("items")
                .get(0);
    }

    @Test
    void theRemoteAnswerIsTheToolResult_andTheRemoteRunJoinsTheCallersTrace() throws Exception {
        RemoteAgentTool tool = remote("echoer", Duration.ofSeconds(30), Api.ADMIN_KEY);
        assertThat(tool.name()).isEqualTo("a2a_eu-echoer");
        assertThat(tool.risk()).isEqualTo(Risk.SUGGEST);
        String task = "check disk on db-" + UUID.randomUUID();

        Span span = openTelemetry
                .getTracer("test")
                .spanBuilder("execute_tool a2a_eu-echoer")
                .startSpan();
        String answer;
        try (Scope ignored = span.makeCurrent()) {
            answer = tool.execute(args(task), call("trace"));
        } finally {
            span.end();
        }

        // The remote platform fences an A2A message as data; the echo agent quotes its whole input.
        assertThat(answer).startsWith("remote says: ").contains(UntrustedText.fence("a2a", task));
        JsonNode run = newestRunOf("echoer");
        assertThat(run.get("input").asString()).contains(UntrustedText.fence("a2a", task));
        assertThat(run.get("traceId").asString())
                .as("the remote run continues the caller's trace")
                .isEqualTo(span.getSpanContext().getTraceId());
    }

    @Test
    void theSameToolCallAskedTwice_startsOneRemoteTask() throws Exception {
        RemoteAgentTool tool = remote("echoer", Duration.ofSeconds(30), Api.ADMIN_KEY);
        String task = "once " + UUID.randomUUID();
        String first = tool.execute(args(task), call("once"));
        String firstRun = newestRunOf("echoer").get("id").asString();

        // A run resumed after a crash repeats the call with the same run, session and call id.
        String again = tool.execute(args(task), call("once"));

        assertThat(again).isEqualTo(first);
        assertThat(newestRunOf("echoer").get("id").asString()).isEqualTo(firstRun);
        long runsWithThisInput = api.get("/api/v1/runs?agent=echoer&limit=100", Api.ADMIN_KEY)
                .json()
                .get("items")
                .valueStream()
                .filter(r -> r.get("input").asString().contains(task))
                .count();
        assertThat(runsWithThisInput).isEqualTo(1);
    }

    @Test
    void aRemoteRunThatFails_isAToolErrorWithTheRemoteCategory() {
        RemoteAgentTool tool = remote("doomed", Duration.ofSeconds(30), Api.ADMIN_KEY);
        assertThatThrownBy(() -> tool.execute(args("try"), call("doomed-" + UUID.randomUUID())))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.BUDGET_EXCEEDED);
                    assertThat(e.code()).isEqualTo("remote_failed");
                    assertThat(e.getMessage()).contains("ended failed").contains("iterations");
                });
    }

    @Test
    void anUnknownRemoteSkill_isRefusedWithTheServersReason() {
        RemoteAgentTool tool = remote("no-such-agent", Duration.ofSeconds(10), Api.ADMIN_KEY);
        assertThatThrownBy(() -> tool.execute(args("hello"), call("unknown-" + UUID.randomUUID())))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR);
                    assertThat(e.code()).isEqualTo("remote_rpc_-32602");
                    assertThat(e.getMessage()).contains("no-such-agent");
                });
    }

    @Test
    void aWrongKey_isACommunicationErrorNamingTheHttpStatus() {
        RemoteAgentTool tool = remote("echoer", Duration.ofSeconds(10), "cadre_wrong_key");
        assertThatThrownBy(() -> tool.execute(args("hello"), call("auth-" + UUID.randomUUID())))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR);
                    assertThat(e.code()).isEqualTo("remote_http_401");
                });
    }

    @Test
    void aRemoteTaskOutlastingTheTimeout_isATimeoutError_andIsCanceledRemotely() {
        RemoteAgentTool tool = remote("slow", Duration.ofSeconds(2), Api.ADMIN_KEY);
        assertThatThrownBy(() -> tool.execute(args("think"), call("slow-" + UUID.randomUUID())))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.TIMEOUT_ERROR);
                    assertThat(e.code()).isEqualTo("remote_timeout");
                });
        String id = newestRunOf("slow").get("id").asString();
        JsonNode run = Await.until(
                "the remote run canceled",
                () -> api.get("/api/v1/runs/" + id, Api.ADMIN_KEY).json(),
                r -> r.get("status").asString().equals("canceled"));
        assertThat(run.get("status").asString()).isEqualTo("canceled");
    }

    @Test
    void configuredRemoteAgents_areToolsAgentsCanBeGiven() {
        var config = new RemoteAgentsProperties(java.util.Map.of(
                "eu",
                new RemoteAgentsProperties.Remote(
                        URI.create("https://cadre-eu.example.com/a2a"),
                        "ops-orchestrator",
                        "Ops team of the EU region.",
                        "k",
                        null,
                        null)));
        var tools = new RemoteAgentsConfiguration()
                .remoteAgentTools(
                        config,
                        json,
                        new org.springframework.beans.factory.support.StaticListableBeanFactory()
                                .getBeanProvider(OpenTelemetry.class))
                .tools();
        assertThat(tools).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("a2a_eu");
            assertThat(t.description()).startsWith("Ops team of the EU region.");
            assertThat(t.parametersSchema().get("required").get(0).asString()).isEqualTo("task");
        });
        assertThatThrownBy(() -> new RemoteAgentsProperties.Remote(null, null, null, null, null, null))
                .hasMessageContaining("url is required");
    }
}
