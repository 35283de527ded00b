package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code kill -9} of the packaged platform while a replay run works (issue 25), then a restart on the
 * same data directory: the recovery sweep resumes the run still as a replay — its approval answered
 * from the case's decision, its runbook answered from the recording — so the runbook never runs, and
 * the replay is scored after the restart.
 */
class ReplayCrashIT {

    private static final String CASE = """
            version: 1
            name: slow-fix
            input:
              agent: slow-fixer
              input: fix it slowly
            calls:
            - session: recorded
              agent: slow-fixer
              tool: runbook_execute
              arguments:
                runbook: record-effect
              risk: approve
              status: ok
              output: recorded from the case
            decisions:
            - tool: runbook_execute
              arguments:
                runbook: record-effect
              decision: approved
            expect:
              actions:
              - tool: runbook_execute
                arguments:
                  runbook: record-effect
            """;

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
    void aReplayRunKilledMidwayResumesAsAReplayAndItsRunbookNeverRuns() throws Exception {
        Path runbooks = writeRunbook(work.resolve("runbooks"));
        Path effects = runbooks.resolve("effects.log");
        Path agents = work.resolve("agents.yaml");
        Files.writeString(agents, """
                agents:
                  - name: slow-fixer
                    description: Runs the record-effect runbook once approved, thinking slowly. Replay crash test agent.
                    model: scripted:default
                    tools: [runbook_execute]
                    budget: {maxIterations: 4, maxTokens: 20000, timeout: 5m}
                scripts:
                  slow-fixer:
                    latencyMillis: 4000
                    turns:
                      - toolCalls:
                          - name: runbook_execute
                            arguments: {runbook: record-effect}
                      - text: "Outcome: {{result[0]}}"
                """);
        platform = PlatformProcess.start(
                "replay-crash",
                PlatformProcess.freePort(),
                Path.of("target", "replay-crash-it"),
                PlatformProcess.DEFAULT_JVM_OPTIONS,
                work,
                List.of(
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.agents.locations=file:" + agents,
                        "--cadre.runbooks.dir=" + runbooks,
                        "--cadre.runbooks.install-demo=false"));
        platform.awaitHealthy(Duration.ofMinutes(3));
        Api api = platform.api();

        var started =
                api.post("/api/v1/replays", Api.ADMIN_KEY, Api.json(Map.of("name", "crash", "suite", List.of(CASE))));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String replay = started.json().get("id").asString();
        String run = started.json().get("cases").get(0).get("runId").asString();
        // Its first model turn takes 4 s: the process dies while the replay run works.
        Await.until(
                "the replay run to work",
                () -> api.get("/api/v1/runs/" + run, Api.ADMIN_KEY).json(),
                j -> j.get("status").asString().equals("working"));
        platform.kill();

        try (var db = DriverManager.getConnection(
                        "jdbc:h2:file:" + work.resolve("data/cadre") + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE",
                        "sa",
                        "");
                var st = db.createStatement();
                var rs = st.executeQuery("SELECT r.status, p.replay_id FROM cadre_run r JOIN cadre_replay_run p"
                        + " ON p.run_id = r.id WHERE r.id = '" + run + "'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).as("interrupted while working").isEqualTo("working");
            assertThat(rs.getString(2)).isEqualTo(replay);
        }

        platform.restart();
        platform.awaitHealthy(Duration.ofMinutes(3));

        JsonNode ended = api.awaitRunEnd(run);
        assertThat(ended.get("status").asString()).as(ended.toString()).isEqualTo("completed");
        assertThat(ended.get("resumeCount").asInt())
                .as("resumed by the recovery sweep")
                .isEqualTo(1);
        assertThat(ended.get("replay").asString()).isEqualTo(replay);
        assertThat(ended.get("result").asString()).isEqualTo("Outcome: recorded from the case");
        assertThat(effects).as("the runbook never ran").doesNotExist();
        assertThat(api.get("/api/v1/approvals?runId=" + run, Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .as("no human was asked")
                .isEmpty();
        JsonNode scored = Await.until(
                "the replay to be scored after the restart",
                () -> api.get("/api/v1/replays/" + replay, Api.ADMIN_KEY).json(),
                j -> !j.get("status").asString().equals("running"));
        assertThat(scored.get("status").asString()).isEqualTo("completed");
        assertThat(scored.get("cases").get(0).get("passed").asBoolean())
                .as(scored.toString())
                .isTrue();
    }

    /** A runbook whose only effect is one line in {@code effects.log} beside it. */
    private static Path writeRunbook(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path script = dir.resolve("record-effect.sh");
        Files.writeString(script, "#!/bin/sh\nset -eu\necho \"$CADRE_RUN_ID\" >> effects.log\necho recorded\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("record-effect.yaml"), """
                description: Records one line per execution (replay crash test)
                timeout: 30s
                requiresIncident: false
                """);
        return dir;
    }
}
