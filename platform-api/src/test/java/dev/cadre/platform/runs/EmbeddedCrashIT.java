package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code kill -9} of the packaged platform on the embedded default (H2 file under {@code ./data}, no
 * database settings at all) right after it acknowledged writes, then a restart on the same data
 * directory: every acknowledged run, approval decision and tool-journal entry is still there, and no
 * runbook runs twice. The writes acknowledged last — a decision (200) and a submission (202) — reach
 * the process's death within milliseconds, so a database that delays its commits loses them. A
 * workflow killed while its second step waits for a human resumes that step from its checkpoint:
 * neither its first step nor the second step's first turn runs again.
 * {@link RestartIT} covers the same promises (and every workflow shape) on PostgreSQL.
 */
class EmbeddedCrashIT {

    @TempDir
    Path work;

    private PlatformProcess platform;

    @AfterEach
    void tearDown() {
        if (platform != null) {
            platform.destroy();
        }
    }

    @Test
    void acknowledgedRunsDecisionsAndJournal_surviveKill9_andNoRunbookRunsTwice() throws Exception {
        Path runbooks = writeRunbook(work.resolve("runbooks"));
        Path agents = writeAgents(work.resolve("agents.yaml"));
        Path effects = runbooks.resolve("effects.log");
        platform = PlatformProcess.start(
                "embedded",
                PlatformProcess.freePort(),
                Path.of("target", "embedded-crash-it"),
                PlatformProcess.DEFAULT_JVM_OPTIONS,
                work,
                List.of(
                        // No datasource setting: the embedded default is what is under test.
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        // One admin key submits and decides here; separation of duties has its own test.
                        "--cadre.approvals.separation-of-duties=false",
                        "--cadre.agents.locations=file:" + agents,
                        "--cadre.runbooks.dir=" + runbooks,
                        "--cadre.runbooks.install-demo=false",
                        "--cadre.approvals.timeout=PT30M"));
        platform.awaitHealthy(Duration.ofMinutes(3));
        Api api = platform.api();

        String executed = api.submitRun("crash-fixer", "approved and executed before the crash")
                .get("id")
                .asString();
        String rejected = api.submitRun("crash-fixer", "rejected just before the crash")
                .get("id")
                .asString();
        String approvedLast = api.submitRun("crash-fixer", "approved just before the crash")
                .get("id")
                .asString();
        String flow = api.submitRun("crash-flow", "look, then run the runbook")
                .get("id")
                .asString();
        String executedApproval = api.pendingApprovalOf(executed).get("id").asString();
        String rejectedApproval = api.pendingApprovalOf(rejected).get("id").asString();
        String lastApproval = api.pendingApprovalOf(approvedLast).get("id").asString();
        String flowApproval = api.pendingApprovalOf(flow).get("id").asString();

        assertThat(decide(api, executedApproval, "approve")).isEqualTo(200);
        Await.until("the approved runbook to run", () -> effects(effects).getOrDefault(executed, 0), n -> n == 1);

        // The acknowledgements the crash follows at once.
        assertThat(decide(api, rejectedApproval, "reject")).isEqualTo(200);
        assertThat(decide(api, lastApproval, "approve")).isEqualTo(200);
        String submittedLast = api.submitRun("crash-quick", "submitted just before the crash")
                .get("id")
                .asString();
        platform.kill();

        // What the data directory holds after the crash, read before anything recovers it.
        try (Connection db = DriverManager.getConnection(
                "jdbc:h2:file:" + work.resolve("data/cadre") + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE", "sa", "")) {
            assertThat(scalar(db, "SELECT COUNT(*) FROM cadre_run WHERE id = '" + submittedLast + "'"))
                    .as("the run acknowledged with 202 just before the crash")
                    .isEqualTo("1");
            assertThat(scalar(db, "SELECT status FROM cadre_approval WHERE id = '" + rejectedApproval + "'"))
                    .as("the rejection acknowledged with 200")
                    .isEqualTo("rejected");
            assertThat(scalar(db, "SELECT status FROM cadre_approval WHERE id = '" + lastApproval + "'"))
                    .as("the approval acknowledged with 200 just before the crash")
                    .isEqualTo("approved");
            assertThat(scalar(db, "SELECT COUNT(*) FROM cadre_tool_journal WHERE run_id = '" + executed + "'"))
                    .as("the journal entry written before the runbook ran")
                    .isEqualTo("1");
            assertThat(scalar(db, "SELECT checkpoint FROM cadre_run WHERE id = '" + flow + "'"))
                    .as("the workflow's checkpoint holds its finished step and its waiting step's own loop")
                    .contains("\"sessionId\":\"" + flow + "/crash-quick#1\"", "\"running\":[{")
                    .contains("\"sessionId\":\"" + flow + "/crash-step#1\"");
        }

        platform.restart();
        platform.awaitHealthy(Duration.ofMinutes(3));

        assertThat(api.get("/api/v1/runs/" + submittedLast, Api.ADMIN_KEY).status())
                .isEqualTo(200);
        assertThat(api.pendingApprovalOf(flow).get("id").asString())
                .as("the waiting step asks again and finds the same request")
                .isEqualTo(flowApproval);
        assertThat(decide(api, flowApproval, "approve")).isEqualTo(200);
        JsonNode flowEnd = api.awaitRunEnd(flow);
        assertThat(flowEnd.get("status").asString()).as(flowEnd.toString()).isEqualTo("completed");
        assertThat(flowEnd.get("result").asString())
                .startsWith("Flow outcome: ")
                .contains("recorded");
        List<Sse.Event> flowEvents = Sse.parse(api.get("/api/v1/runs/" + flow + "/events?scope=all", Api.ADMIN_KEY)
                .body());
        assertThat(flowEvents)
                .filteredOn(e -> e.name().equals("run_started"))
                .extracting(e -> e.data().get("sessionId").asString())
                .as("each step started once: the finished step was replayed, the waiting one resumed")
                .containsExactlyInAnyOrder(flow, flow + "/crash-quick#1", flow + "/crash-step#1");
        assertThat(flowEvents)
                .filteredOn(e -> e.name().equals("text_delta")
                        && e.data().get("sessionId").asString().equals(flow + "/crash-step#1"))
                .extracting(e -> e.data().get("text").asString())
                .as("the waiting step's first model turn is not taken again")
                .hasSize(2)
                .first()
                .isEqualTo("looking first");
        assertThat(flowEvents)
                .filteredOn(e -> e.name().equals("status")
                        && e.data().get("sessionId").asString().equals(flow + "/crash-step#1"))
                .extracting(e -> e.data().get("message").asString())
                .contains("resumed");
        for (String run : List.of(executed, rejected, approvedLast, submittedLast, flow)) {
            api.awaitRunEnd(run);
        }
        JsonNode pending = api.get("/api/v1/approvals?status=pending", Api.ADMIN_KEY)
                .json()
                .get("items");
        assertThat(pending).as("no decided approval is pending again").isEmpty();
        assertThat(decide(api, executedApproval, "approve"))
                .as("a decided approval cannot be decided again")
                .isNotEqualTo(200);

        Map<String, Integer> ran = effects(effects);
        assertThat(ran.getOrDefault(executed, 0))
                .as("runbook of the executed run")
                .isEqualTo(1);
        assertThat(ran.getOrDefault(rejected, 0))
                .as("runbook of the rejected run")
                .isZero();
        assertThat(ran.getOrDefault(approvedLast, 0))
                .as("runbook of the run approved just before the crash (runs at most once)")
                .isLessThanOrEqualTo(1);
        assertThat(ran.getOrDefault(flow, 0))
                .as("runbook of the workflow's step, approved after the restart")
                .isEqualTo(1);
        assertThat(ran.keySet()).as("no other run executed the runbook").isSubsetOf(executed, approvedLast, flow);
    }

    private static int decide(Api api, String approval, String decision) {
        return (decision.equals("approve")
                        ? api.approve(approval, Api.ADMIN_KEY)
                        : api.post("/api/v1/approvals/" + approval + "/" + decision, Api.ADMIN_KEY, "{}"))
                .status();
    }

    private static String scalar(Connection db, String sql) throws SQLException {
        try (var st = db.createStatement();
                var rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** Lines of the effects file per run id: one line per execution of the runbook. */
    private static Map<String, Integer> effects(Path file) {
        Map<String, Integer> counts = new HashMap<>();
        try {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank()) {
                        counts.merge(line.strip(), 1, Integer::sum);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return counts;
    }

    /** A runbook whose only effect is one line with the run's id in {@code effects.log} beside it. */
    private static Path writeRunbook(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path script = dir.resolve("record-effect.sh");
        Files.writeString(script, "#!/bin/sh\nset -eu\necho \"$CADRE_RUN_ID\" >> effects.log\necho recorded\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("record-effect.yaml"), """
                description: Records one line per execution (crash test)
                timeout: 30s
                requiresIncident: false
                """);
        return dir;
    }

    private static Path writeAgents(Path file) throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "agents:",
                "  - name: crash-fixer",
                "    description: Runs the record-effect runbook once a human approves. Crash test agent.",
                "    model: scripted:default",
                "    tools: [runbook_execute]",
                "    budget: {maxIterations: 4, maxTokens: 20000, timeout: 5m}",
                "  - name: crash-quick",
                "    description: Answers at once. Crash test agent.",
                "    model: scripted:default",
                "    budget: {maxIterations: 2, maxTokens: 20000, timeout: 5m}",
                "  - name: crash-step",
                "    description: Takes a first look, then runs the record-effect runbook once a human approves.",
                "    model: scripted:default",
                "    tools: [runbook_execute]",
                "    budget: {maxIterations: 4, maxTokens: 20000, timeout: 5m}",
                "workflows:",
                "  - name: crash-flow",
                "    description: crash-quick, then crash-step, which waits for a human when the process dies.",
                "    type: sequence",
                "    steps: [crash-quick, crash-step]",
                "scripts:",
                "  crash-fixer:",
                "    turns:",
                "      - toolCalls:",
                "          - name: runbook_execute",
                "            arguments: {runbook: record-effect}",
                "      - text: \"Outcome: {{result[0]}}\"",
                "  crash-quick:",
                "    turns:",
                "      - text: done",
                "  crash-step:",
                "    turns:",
                "      - text: looking first",
                "        toolCalls:",
                "          - name: runbook_execute",
                "            arguments: {runbook: record-effect}",
                "      - text: \"Flow outcome: {{result[0]}}\""));
        Files.write(file, lines);
        return file;
    }
}
