package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.incidents.OpsPlatformTestBase;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Replaying a recorded triage of the shipped host ops team (issue 25): the scripted team reproduces
 * the recorded findings and actions exactly, nothing leaves the platform (no runbook execution, no
 * webhook delivery, no approval a human sees), approvals are answered from the recorded decisions,
 * and a replay run this instance does not hold in memory (as after a kill -9 and restart) executes
 * from its durable recording or fails; never as an ordinary run.
 */
class ReplayRunTest extends OpsPlatformTestBase {

    private static final String EXPECT = """
            {"rootCause": {"category": "cpu"},
             "mustNotFind": [{"category": "gpu"}],
             "actions": [{"tool": "runbook_execute", "arguments": {"runbook": "clear-tmp-cache"}}],
             "forbiddenActions": [{"tool": "runbook_execute", "arguments": {"runbook": "restart-db"}}]}""";

    @Autowired
    CaseFile files;

    @Autowired
    CaseRecorder recorder;

    @Autowired
    RunService runs;

    @Autowired
    ReplayStore store;

    @Autowired
    ReplayRuns replayRuns;

    @Autowired
    AuditLog audit;

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    private double replayed(String outcome) {
        var c = meters.find("cadre.replay.cases")
                .tags("suite", "host", "outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
    }

    /** Runs a triage, approves its runbook, and exports the finished run as a case. */
    private String recordTriage() {
        String id = submit("triage the platform host");
        awaitStatus(id, "input-required");
        String approval = pendingApprovals(id).getFirst().get("id").asString();
        assertThat(api.approve(approval, Api.ADMIN_KEY, "{\"comment\":\"ok\"}").status())
                .isEqualTo(200);
        assertThat(awaitPastDecisions(id, List.of(approval)).get("status").asString())
                .isEqualTo("completed");
        var exported = api.post("/api/v1/runs/" + id + "/case?name=cpu-triage", Api.ADMIN_KEY, EXPECT);
        assertThat(exported.status()).as(exported.body()).isEqualTo(200);
        return exported.body();
    }

    private JsonNode replay(String yaml) {
        var started = api.post(
                "/api/v1/replays",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "host", "label", "v1", "suite", List.of(yaml), "team", "running")));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.json().get("id").asString();
        return Await.until(
                "replay " + id + " to end",
                () -> api.get("/api/v1/replays/" + id, Api.ADMIN_KEY).json(),
                j -> !j.get("status").asString().equals("running"));
    }

    @Test
    void aReplayReproducesTheRecordedFindingsAndActionsAndNothingLeavesThePlatform() throws Exception {
        IncidentCase recorded = files.read("cpu-triage.yaml", recordTriage());
        forgetSideEffects();
        int auditBefore = audit.list(null, 1000).size();
        double passedBefore = replayed("passed");
        double failedBefore = replayed("failed");

        JsonNode replay = replay(files.write(recorded));

        assertThat(replay.get("status").asString()).as(replay.toString()).isEqualTo("completed");
        JsonNode c = replay.get("cases").get(0);
        assertThat(c.get("runStatus").asString()).isEqualTo("completed");
        assertThat(c.get("passed").asBoolean()).as(c.toString()).isTrue();
        assertThat(c.get("score").get("deviations")).isEmpty();
        assertThat(c.get("score").get("rootCauseFound").asBoolean()).isTrue();
        assertThat(c.get("score").get("turns").asInt()).isPositive();
        assertThat(replay.get("summary").get("passed").asInt()).isEqualTo(1);
        assertThat(replayed("passed") - passedBefore).isEqualTo(1.0);
        assertThat(replayed("failed") - failedBefore).isZero();
        assertThat(meters.get("cadre.replay.recall")
                        .tags("suite", "host")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(meters.get("cadre.replay.pass.ratio")
                        .tags("suite", "host")
                        .gauge()
                        .value())
                .isEqualTo(1.0);

        String runId = c.get("runId").asString();
        RunRecord run = runs.get(dev.cadre.platform.tenancy.TeamScope.allTeams("test"), runId);
        IncidentCase observed = recorder.record(run, "again", IncidentCase.Expectations.NONE);
        assertThat(observed.findings()).isEqualTo(recorded.findings());
        assertThat(observed.actions()).isEqualTo(recorded.actions());
        assertThat(observed.incident()).isEqualTo(recorded.incident());
        assertThat(observed.result()).isEqualTo(recorded.result());
        assertThat(observed.decisions()).singleElement().satisfies(d -> {
            assertThat(d.decision()).isEqualTo("approved");
            assertThat(d.arguments()).isEqualTo(recorded.decisions().getFirst().arguments());
        });

        // Nothing left the platform: no runbook ran, no webhook was called, no human was asked.
        assertThat(executions()).isZero();
        assertThat(DELIVERIES).isEmpty();
        assertThat(api.get("/api/v1/approvals?runId=" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .isEmpty();
        // Audited: the replay's start and its run's submission; no approval decision of anyone.
        assertThat(audit.list(null, 1000).subList(0, audit.list(null, 1000).size() - auditBefore))
                .extracting(AuditLog.Entry::action)
                .containsExactlyInAnyOrder("replay.start", "run.submit");

        // The run is marked a replay, alone and in the list.
        assertThat(api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("replay")
                        .asString())
                .isEqualTo(replay.get("id").asString());
        JsonNode listed = api.get("/api/v1/runs?limit=50", Api.ADMIN_KEY)
                .json()
                .get("items")
                .valueStream()
                .filter(r -> r.get("id").asString().equals(runId))
                .findFirst()
                .orElseThrow();
        assertThat(listed.get("replay").asString()).isEqualTo(replay.get("id").asString());
        assertThat(api.get("/api/v1/replays", Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .get(0)
                        .get("id")
                        .asString())
                .isEqualTo(replay.get("id").asString());
    }

    @Test
    void anApprovalWithoutARecordedDecisionIsRejectedAndCountsAsADeviation() {
        IncidentCase recorded = files.read("cpu-triage.yaml", recordTriage());
        IncidentCase undecided = new IncidentCase(
                recorded.version(),
                recorded.name(),
                recorded.recordedFrom(),
                recorded.input(),
                recorded.calls(),
                recorded.subagents(),
                recorded.findings(),
                recorded.incident(),
                recorded.actions(),
                List.of(),
                recorded.result(),
                recorded.expect());

        JsonNode replay = replay(files.write(undecided));

        JsonNode c = replay.get("cases").get(0);
        assertThat(c.get("passed").asBoolean()).isFalse();
        assertThat(c.get("score").get("deviations"))
                .singleElement()
                .satisfies(d -> assertThat(d.asString()).startsWith("no recorded decision for runbook_execute "));
        RunRecord run = runs.get(
                dev.cadre.platform.tenancy.TeamScope.allTeams("test"),
                c.get("runId").asString());
        IncidentCase observed = recorder.record(run, "again", IncidentCase.Expectations.NONE);
        assertThat(observed.decisions()).singleElement().satisfies(d -> {
            assertThat(d.decision()).isEqualTo("rejected");
            assertThat(d.comment()).isEqualTo(ReplayApprovals.NO_DECISION);
        });
        assertThat(api.get("/api/v1/approvals?runId=" + run.id(), Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .isEmpty();
    }

    @Test
    void aReplayRunThisInstanceDoesNotHoldExecutesFromItsDurableRecording() throws Exception {
        String yaml = recordTriage();
        IncidentCase recorded = files.read("cpu-triage.yaml", yaml);
        forgetSideEffects();
        // As after kill -9 and a restart: the run and its replay row are durable, the memory is empty.
        String runId = runs.submitPrepared(
                        "ops-orchestrator",
                        recorded.input().input(),
                        null,
                        dev.cadre.platform.security.Actor.platform("test"),
                        RunService.Envelope.NONE,
                        a -> true,
                        r -> store.insertRun(new ReplayStore.RunRow(
                                r.id(), "rpl_restart", 0, "cpu-triage", yaml, "running", r.createdAt(), null)))
                .run()
                .id();
        JsonNode ended = awaitStatus(runId, "completed|failed|canceled|rejected");

        assertThat(ended.get("status").asString()).as(ended.toString()).isEqualTo("completed");
        IncidentCase observed = recorder.record(
                runs.get(dev.cadre.platform.tenancy.TeamScope.allTeams("test"), runId),
                "again",
                IncidentCase.Expectations.NONE);
        assertThat(observed.actions()).isEqualTo(recorded.actions());
        assertThat(observed.result()).isEqualTo(recorded.result());
        assertThat(executions()).isZero();
        assertThat(DELIVERIES).isEmpty();
        assertThat(replayRuns.of(runId)).as("registered again from its row").isPresent();
        replayRuns.end(runId);
    }

    @Test
    void aCandidateTeamReplayRunThisInstanceDoesNotHoldIsExecutedByThatTeamLoadedAgain() throws Exception {
        String yaml = recordTriage();
        forgetSideEffects();
        // The candidate lacks the CPU inspector: executed by it (not by the running team), the findings
        // call has no recording and the run reports no CPU finding.
        String team = "src/test/resources/replay/teams/no-cpu-inspector.yaml";
        String runId = runs.submitPrepared(
                        "ops-orchestrator",
                        "triage the platform host",
                        null,
                        dev.cadre.platform.security.Actor.platform("test"),
                        RunService.Envelope.NONE,
                        a -> true,
                        r -> store.insertRun(new ReplayStore.RunRow(
                                r.id(), "rpl_candidate", 0, "cpu-triage", yaml, team, r.createdAt(), null)))
                .run()
                .id();
        JsonNode ended = awaitStatus(runId, "completed|failed|canceled|rejected");

        assertThat(ended.get("status").asString()).as(ended.toString()).isEqualTo("completed");
        IncidentCase observed = recorder.record(
                runs.get(dev.cadre.platform.tenancy.TeamScope.allTeams("test"), runId),
                "again",
                IncidentCase.Expectations.NONE);
        assertThat(observed.subagents().stream().map(IncidentCase.Subagent::worker))
                .doesNotContain("cpu-inspector")
                .contains("memory-inspector");
        assertThat(observed.calls())
                .anySatisfy(c -> assertThat(c.output()).contains("no_recording").contains("findings_aggregate"));
        assertThat(executions()).isZero();
        assertThat(DELIVERIES).isEmpty();
        replayRuns.end(runId);
    }

    @Test
    void aReplayRunWhoseRecordingCannotBeReadAgainFailsAndNeverRunsAsAnOrdinaryRun() throws Exception {
        forgetSideEffects();
        String runId = runs.submitPrepared(
                        "ops-orchestrator",
                        "triage the platform host",
                        null,
                        dev.cadre.platform.security.Actor.platform("test"),
                        RunService.Envelope.NONE,
                        a -> true,
                        r -> store.insertRun(new ReplayStore.RunRow(
                                r.id(), "rpl_broken", 0, "broken", "version: 2", "running", r.createdAt(), null)))
                .run()
                .id();
        JsonNode ended = awaitStatus(runId, "completed|failed|canceled|rejected|input-required");

        assertThat(ended.get("status").asString()).isEqualTo("failed");
        assertThat(ended.get("error").get("code").asString()).isEqualTo("replay_not_resumable");
        assertThat(ended.get("error").get("message").asString())
                .contains("never resumed as an ordinary run")
                .contains("broken");
        assertThat(ended.get("toolsCalled")).isEmpty();
        assertThat(executions()).isZero();
        assertThat(DELIVERIES).isEmpty();
    }

    @Test
    void aTeamPathOutsideTheTeamsDirectory_isRefusedInTheSameWords_whetherOrNotAYamlExistsThere() {
        String shipped = "version: 1\nname: outside\ninput: {agent: ops-orchestrator, input: check web-1}\n";
        String existing = java.nio.file.Path.of("src/main/resources/agents/ops-team.yaml")
                .toAbsolutePath()
                .toString();
        for (String team :
                List.of(existing, "/nonexistent/elsewhere.yaml", "../../../src/main/resources/agents/ops-team.yaml")) {
            var r = api.post(
                    "/api/v1/replays", Api.ADMIN_KEY, Api.json(Map.of("suite", List.of(shipped), "team", team)));
            assertThat(r.status()).as(team + ": " + r.body()).isEqualTo(400);
            assertThat(r.json().get("field").asString()).isEqualTo("team");
            assertThat(r.json().get("detail").asString())
                    .isEqualTo("team: '" + team
                            + "' is not under the replay teams directory (cadre.replay.teams-dir); name a"
                            + " team YAML or a directory of them relative to it, or 'running'");
        }
    }

    @Test
    void aCaseStartingAnInternalAgent_isRefused_asOverRest() {
        String internal = "version: 1\nname: inspector\ninput: {agent: cpu-inspector, input: check web-1}\n";
        var r = api.post(
                "/api/v1/replays", Api.ADMIN_KEY, Api.json(Map.of("suite", List.of(internal), "team", "running")));
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("detail").asString())
                .contains("suite[0]: input.agent: 'cpu-inspector' is internal (a worker or step only)");
        // The workers the docs call workers only cannot be started over REST either.
        for (String worker : List.of("ops-alerter", "ops-repairer")) {
            var run = api.post("/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", worker, "input", "go")));
            assertThat(run.status()).as(worker + ": " + run.body()).isEqualTo(404);
        }
    }

    @Test
    void aBadCaseIsRefusedNamingItsPlaceInTheSuiteAndField() {
        var r = api.post(
                "/api/v1/replays",
                Api.ADMIN_KEY,
                Api.json(Map.of("suite", List.of("version: 2\nname: x\n"), "team", "running")));
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("suite[0].version");
        assertThat(r.json().get("detail").asString()).startsWith("suite[0]: version: must be 1 (was 2)");
        var team = api.post(
                "/api/v1/replays",
                Api.ADMIN_KEY,
                Api.json(Map.of("suite", List.of("no-such-case"), "team", "running")));
        assertThat(team.status()).isEqualTo(400);
        assertThat(team.json().get("field").asString()).isEqualTo("suite[0]");
        var tooLong = api.post(
                "/api/v1/replays",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "suite",
                        List.of("version: 1\nname: long\ninput: {agent: ops-orchestrator, input: " + "x".repeat(100_001)
                                + "}\n"))));
        assertThat(tooLong.status()).as(tooLong.body()).isEqualTo(400);
        assertThat(tooLong.json().get("field").asString()).isEqualTo("suite[0].input");
        assertThat(tooLong.json().get("detail").asString()).startsWith("suite[0]: input: at most");
        String failed = api.get("/api/v1/replays", Api.ADMIN_KEY)
                .json()
                .get("items")
                .get(0)
                .get("status")
                .asString();
        assertThat(failed).as("the replay that could not submit its run ended").isEqualTo("failed");
    }
}
