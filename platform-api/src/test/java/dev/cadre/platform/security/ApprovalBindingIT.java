package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.approval.ActionHash;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 13, item 2: an approval covers exactly the action that was shown. A run waits for approval
 * of one action; the platform restarts (same H2 file, in-process) and the re-run model asks for
 * another action at the same position — other arguments, then another tool. The earlier request,
 * even one already approved, is superseded (REST, audit), a new one is pending, nothing runs until it
 * is decided, and what runs is exactly what the approver approved (here: edited).
 */
class ApprovalBindingIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private ConfigurableApplicationContext context;

    @AfterEach
    void tearDown() {
        if (context != null) {
            context.close();
        }
        ChangingModel.NEXT.set(null);
    }

    private Api start() throws Exception {
        Path agents = dir.resolve("binding-agents.yaml");
        if (!Files.exists(agents)) {
            // The root's pending calls are in its checkpoint; a worker is re-run from scratch after a
            // restart (same session id, same call ids), so its model may choose anew: that is the hole.
            Files.writeString(agents, """
                    agents:
                      - name: binder
                        description: Hands the fix to its worker. Approval binding test agent.
                        model: scripted:default
                        workers: [binder-worker]
                        budget: {maxIterations: 4, maxTokens: 50000, timeout: 5m}
                      - name: binder-worker
                        description: Restarts or drains what its model asks for. Approval binding test agent.
                        model: changing:default
                        tools: [restart_service, drain_host]
                        budget: {maxIterations: 4, maxTokens: 20000, timeout: 5m}
                    scripts:
                      binder:
                        turns:
                          - toolCalls:
                              - {name: binder-worker, arguments: {task: "fix what is stuck"}}
                          - text: "Outcome: {{result[0]}}"
                    """);
        }
        context = new SpringApplicationBuilder(CadreApplication.class, TestTools.class, ChangingModel.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + jdbcUrl(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.agents.locations=classpath:agents/*.yaml,file:" + agents,
                        "--cadre.runbooks.dir=" + dir.resolve("runbooks"),
                        "--cadre.approvals.sweep-interval=PT0.2S",
                        // One admin key submits and decides here (SecurityAttackTest covers the refusal).
                        "--cadre.approvals.separation-of-duties=false");
        return new Api(((WebServerApplicationContext) context).getWebServer().getPort());
    }

    private String jdbcUrl() {
        return "jdbc:h2:file:" + dir.resolve("cadre")
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
    }

    private static void modelAsks(String tool, String arguments) {
        ChangingModel.NEXT.set(new ToolCall("c1", tool, JSON.readTree(arguments)));
    }

    private static JsonNode approvalsOf(Api api, String run) {
        return api.get("/api/v1/approvals?runId=" + run, Api.ADMIN_KEY).json().get("items");
    }

    private static JsonNode byId(JsonNode items, String id) {
        for (JsonNode a : items) {
            if (a.get("id").asString().equals(id)) {
                return a;
            }
        }
        throw new AssertionError("no approval " + id + " in " + items);
    }

    /** Waits for the approval that superseded {@code earlier}, pending, and returns it. */
    private static JsonNode awaitSuccessor(Api api, String run, String earlier) {
        JsonNode items = Await.until(
                "approval " + earlier + " to be superseded by a pending one", () -> approvalsOf(api, run), list -> {
                    for (JsonNode a : list) {
                        if (a.get("id").asString().equals(earlier)
                                && a.get("status").asString().equals("superseded")) {
                            String next = a.get("supersededBy").asString();
                            for (JsonNode b : list) {
                                if (b.get("id").asString().equals(next)
                                        && b.get("status").asString().equals("pending")) {
                                    return true;
                                }
                            }
                        }
                    }
                    return false;
                });
        return byId(items, byId(items, earlier).get("supersededBy").asString());
    }

    private static List<String> ranOf(List<String> executions, String run) {
        return executions.stream().filter(e -> e.startsWith(run + " ")).toList();
    }

    @Test
    void aDecisionForOneAction_isNeverUsedForAnother_acrossRestarts_andOnlyTheApprovedArgumentsRun() throws Exception {
        modelAsks("restart_service", "{\"service\":\"api\",\"host\":\"web-1\"}");
        Api first = start();
        String run =
                first.submitRun("binder", "restart what is stuck").get("id").asString();
        JsonNode asked = first.pendingApprovalOf(run);
        String p1 = asked.get("id").asString();
        String h1 = ActionHash.of("restart_service", JSON.readTree("{\"host\":\"web-1\",\"service\":\"api\"}"));
        assertThat(asked.get("argumentsHash").asString()).isEqualTo(h1);
        assertThat(asked.get("attempt").asInt()).isZero();

        // Crash right after an approval was acknowledged, before the run acted on it (another
        // instance took the decision, or the process died in between): the row says approved.
        context.close();
        context = null;
        try (Connection db = DriverManager.getConnection(jdbcUrl(), "sa", "")) {
            assertThat(db.createStatement()
                            .executeUpdate("UPDATE cadre_approval SET status = 'approved', decided_by = 'ops-2',"
                                    + " decided_at = CURRENT_TIMESTAMP WHERE id = '" + p1 + "'"))
                    .isEqualTo(1);
        }

        // After the restart the model asks for the same tool at the same position, with other arguments.
        modelAsks("restart_service", "{\"service\":\"db\",\"host\":\"web-1\"}");
        Api second = start();
        // Whatever happens first: a new request, or (the hole) the action running under the old approval.
        Await.until(
                "the re-run worker to ask again or act",
                () -> second.get("/api/v1/approvals?status=pending&runId=" + run, Api.ADMIN_KEY)
                                .json()
                                .get("items")
                                .size()
                        + ranOf(TestTools.RESTARTS, run).size(),
                n -> n > 0);
        assertThat(ranOf(TestTools.RESTARTS, run))
                .as("nothing runs under an approval given for another action")
                .isEmpty();
        JsonNode p2 = awaitSuccessor(second, run, p1);
        JsonNode old = byId(approvalsOf(second, run), p1);
        assertThat(old.get("decidedBy").asString())
                .as("the earlier decision stays on record")
                .isEqualTo("ops-2");
        assertThat(old.get("comment").asString())
                .contains("superseded by " + p2.get("id").asString());
        assertThat(p2.get("tool").asString()).isEqualTo("restart_service");
        assertThat(p2.get("arguments")).isEqualTo(JSON.readTree("{\"service\":\"db\",\"host\":\"web-1\"}"));
        assertThat(p2.get("argumentsHash").asString())
                .isEqualTo(ActionHash.of("restart_service", JSON.readTree("{\"service\":\"db\",\"host\":\"web-1\"}")))
                .isNotEqualTo(h1);
        assertThat(p2.get("attempt").asInt()).isEqualTo(1);
        // The request is stored before the run says it waits (the resumed run is working until then).
        Await.until(
                "run " + run + " to wait for the new request",
                () -> second.get("/api/v1/runs/" + run, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString(),
                "input-required"::equals);
        assertThat(ranOf(TestTools.RESTARTS, run))
                .as("nothing ran under the old approval")
                .isEmpty();
        assertThat(second.approve(p1, Api.ADMIN_KEY).status())
                .as("a superseded request cannot be decided")
                .isEqualTo(409);
        assertThat(second.get("/api/v1/approvals?status=superseded&runId=" + run, Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .extracting(a -> a.get("id").asString())
                .containsExactly(p1);
        JsonNode audit =
                second.get("/api/v1/audit?limit=100", Api.ADMIN_KEY).json().get("items");
        assertThat(audit).anySatisfy(e -> {
            assertThat(e.get("action").asString()).isEqualTo("approval.supersede");
            assertThat(e.get("target").asString()).isEqualTo(p1);
            assertThat(e.get("detail").asString())
                    .contains("was approved")
                    .contains(p2.get("id").asString());
        });

        // Another restart, and now the model asks for another tool at that position.
        context.close();
        context = null;
        modelAsks("drain_host", "{\"host\":\"web-1\"}");
        Api third = start();
        JsonNode p3 = awaitSuccessor(third, run, p2.get("id").asString());
        assertThat(p3.get("tool").asString()).isEqualTo("drain_host");
        assertThat(p3.get("attempt").asInt()).isEqualTo(2);
        assertThat(ranOf(TestTools.RESTARTS, run)).isEmpty();
        assertThat(ranOf(ChangingModel.DRAINS, run)).isEmpty();

        // Approved with edits: exactly the edited arguments run, once.
        assertThat(third.approve(p3.get("id").asString(), Api.ADMIN_KEY, "{\"editedArguments\":{\"host\":\"web-2\"}}")
                        .status())
                .isEqualTo(200);
        JsonNode end = third.awaitRunEnd(run);
        assertThat(end.get("status").asString()).isEqualTo("completed");
        assertThat(ranOf(ChangingModel.DRAINS, run)).containsExactly(run + " {\"host\":\"web-2\"}");
        assertThat(ranOf(TestTools.RESTARTS, run)).isEmpty();
        JsonNode decided = byId(approvalsOf(third, run), p3.get("id").asString());
        String ran = ActionHash.of("drain_host", JSON.readTree("{\"host\":\"web-2\"}"));
        assertThat(decided.get("argumentsHash").asString())
                .isEqualTo(ActionHash.of("drain_host", JSON.readTree("{\"host\":\"web-1\"}")));
        assertThat(decided.get("executedHash").asString()).isEqualTo(ran);
        assertThat(context.getBean(JdbcClient.class)
                        .sql("SELECT arguments_hash FROM cadre_tool_journal WHERE run_id = ?")
                        .param(run)
                        .query(String.class)
                        .list())
                .as("the journal records the hash of what ran, the same the approval names")
                .containsExactly(ran);
    }
}
