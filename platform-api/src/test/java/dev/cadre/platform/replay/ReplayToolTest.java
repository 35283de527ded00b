package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.Tools;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The replay's tool-dispatch seam: recorded answers, near matches, deviations, and no side effect ever. */
class ReplayToolTest {

    private final JsonMapper json = JsonMapper.builder().build();
    private final AtomicInteger runbookRuns = new AtomicInteger();
    private final AtomicInteger logReads = new AtomicInteger();
    private final ReplayRuns replays = new ReplayRuns();
    private final Tool runbook = new ReplayTool(
            Tools.of("runbook_execute", "runs a runbook", schema(), Risk.APPROVE, (args, ctx) -> {
                runbookRuns.incrementAndGet();
                return "ran for real";
            }),
            replays);
    private final Tool logs = new ReplayTool(
            Tools.of("log_query", "reads logs", schema(), Risk.AUTO, (args, ctx) -> {
                logReads.incrementAndGet();
                return "live logs";
            }),
            replays);

    private JsonNode node(String text) {
        return json.readTree(text);
    }

    private static JsonNode schema() {
        return JsonMapper.builder().build().readTree("{\"type\":\"object\"}");
    }

    private static ToolContext in(String runId) {
        return new ToolContext(runId, "s1", "ops-repairer", "c1");
    }

    private IncidentCase recorded() {
        return new IncidentCase(
                1,
                "c",
                null,
                new IncidentCase.Input("ops-orchestrator", "triage", null),
                List.of(
                        new IncidentCase.Call(
                                "s1",
                                "ops-repairer",
                                "runbook_execute",
                                node("{\"runbook\":\"clear-tmp-cache\",\"arguments\":{\"older_than_minutes\":60}}"),
                                "approve",
                                "ok",
                                "cleared (recorded)"),
                        new IncidentCase.Call(
                                "s2",
                                "log-reader",
                                "log_query",
                                node("{\"pod\":\"checkout\",\"tailLines\":100}"),
                                "auto",
                                "ok",
                                "OOMKilled (recorded)"),
                        new IncidentCase.Call(
                                "s2",
                                "log-reader",
                                "log_query",
                                node("{\"pod\":\"cart\"}"),
                                "auto",
                                "error",
                                "pod not found")),
                List.of(),
                List.of(),
                null,
                List.of(),
                List.of(),
                null,
                new IncidentCase.Expectations(
                        null, List.of(), List.of(), List.of(), List.of(), Map.of("log_query", List.of("tailLines"))));
    }

    @Test
    void aReplayRunGetsTheRecordingAndTheRealToolNeverRuns() throws Exception {
        Recordings r = replays.begin("replay-1", recorded());
        // Argument order does not matter: calls are compared in canonical JSON.
        assertThat(runbook.execute(
                        node("{\"arguments\":{\"older_than_minutes\":60},\"runbook\":\"clear-tmp-cache\"}"),
                        in("replay-1")))
                .isEqualTo("cleared (recorded)");
        // A near match: another tailLines, declared ignorable for log_query.
        assertThat(logs.execute(node("{\"pod\":\"checkout\",\"tailLines\":500}"), in("replay-1")))
                .isEqualTo("OOMKilled (recorded)");
        assertThatThrownBy(() -> logs.execute(node("{\"pod\":\"cart\"}"), in("replay-1")))
                .isInstanceOfSatisfying(
                        ToolException.class, e -> assertThat(e.getMessage()).isEqualTo("pod not found"));
        assertThat(r.deviations()).isEmpty();

        // Another runbook argument is not ignorable: refused, counted as a deviation, never run.
        assertThatThrownBy(() -> runbook.execute(
                        node("{\"runbook\":\"clear-tmp-cache\",\"arguments\":{\"older_than_minutes\":5}}"),
                        in("replay-1")))
                .isInstanceOf(ToolException.class)
                .hasMessage("no recording for runbook_execute"
                        + " {\"arguments\":{\"older_than_minutes\":5},\"runbook\":\"clear-tmp-cache\"}");
        assertThat(r.deviations())
                .containsExactly("no recording for runbook_execute"
                        + " {\"arguments\":{\"older_than_minutes\":5},\"runbook\":\"clear-tmp-cache\"}");
        assertThat(runbookRuns).hasValue(0);
        assertThat(logReads).hasValue(0);
    }

    @Test
    void anOrdinaryRunReachesTheRealTool() throws Exception {
        replays.begin("replay-1", recorded());
        assertThat(runbook.execute(node("{\"runbook\":\"clear-tmp-cache\"}"), in("ordinary-1")))
                .isEqualTo("ran for real");
        assertThat(runbookRuns).hasValue(1);
        replays.end("replay-1");
        assertThat(logs.execute(node("{\"pod\":\"checkout\",\"tailLines\":100}"), in("replay-1")))
                .isEqualTo("live logs");
    }

    /** The guard keeps what the loop and the platform ask of a tool's type (k8s writes, outward tools). */
    @org.junit.jupiter.api.Test
    void theGuardKeepsProposingAndOutwardTools_forWhatTheyAre() throws Exception {
        class Proposer implements dev.cadre.agent.tool.ProposingTool {
            @Override
            public String name() {
                return "k8s_scale";
            }

            @Override
            public String description() {
                return "scales";
            }

            @Override
            public JsonNode parametersSchema() {
                return schema();
            }

            @Override
            public Risk risk() {
                return Risk.APPROVE;
            }

            @Override
            public String execute(JsonNode arguments, dev.cadre.agent.tool.ToolContext context) {
                return "scaled";
            }

            @Override
            public JsonNode propose(JsonNode arguments, dev.cadre.agent.tool.ToolContext context) {
                return json.readTree("{\"observed\": 7}");
            }
        }
        class Sender extends Proposer implements dev.cadre.platform.agents.Outward {}

        Tool proposing = ReplayTool.of(new Proposer(), replays);
        Tool outward = ReplayTool.of(new Sender(), replays);
        Tool plain = ReplayTool.of(logs, replays);

        assertThat(proposing).isInstanceOf(dev.cadre.agent.tool.ProposingTool.class);
        assertThat(outward)
                .isInstanceOf(dev.cadre.agent.tool.ProposingTool.class)
                .isInstanceOf(dev.cadre.platform.agents.Outward.class);
        assertThat(plain).isNotInstanceOf(dev.cadre.platform.agents.Outward.class);
        // Outside a replay the real tool completes the proposal.
        assertThat(((dev.cadre.agent.tool.ProposingTool) proposing)
                        .propose(json.readTree("{}"), new dev.cadre.agent.tool.ToolContext("run-x", "run-x", "a", "c1"))
                        .toString())
                .isEqualTo("{\"observed\":7}");
    }

    /** A Kubernetes-style write (proposing, outward) in a replay: neither its proposal nor its execution reaches it. */
    @Test
    void aProposingOutwardToolNeitherProposesNorExecutesInAReplay() throws Exception {
        AtomicInteger reached = new AtomicInteger();
        class Write implements dev.cadre.agent.tool.ProposingTool, dev.cadre.platform.agents.Outward {
            @Override
            public String name() {
                return "k8s_rollout_undo";
            }

            @Override
            public String description() {
                return "undoes a rollout";
            }

            @Override
            public JsonNode parametersSchema() {
                return schema();
            }

            @Override
            public Risk risk() {
                return Risk.APPROVE;
            }

            @Override
            public String execute(JsonNode arguments, ToolContext context) {
                reached.incrementAndGet();
                return "undone for real";
            }

            @Override
            public JsonNode propose(JsonNode arguments, ToolContext context) {
                reached.incrementAndGet();
                return node("{\"deployment\":\"checkout\",\"resourceVersion\":\"live\"}");
            }
        }
        Tool write = ReplayTool.of(new Write(), replays);
        replays.begin(
                "replay-k8s",
                new IncidentCase(
                        1,
                        "k8s",
                        null,
                        new IncidentCase.Input("k8s-orchestrator", "triage", null),
                        List.of(new IncidentCase.Call(
                                "s1",
                                "k8s-repairer",
                                "k8s_rollout_undo",
                                node("{\"deployment\":\"checkout\"}"),
                                "approve",
                                "ok",
                                "rolled back (recorded)")),
                        List.of(),
                        List.of(),
                        null,
                        List.of(),
                        List.of(),
                        null,
                        IncidentCase.Expectations.NONE));
        JsonNode asked = node("{\"deployment\":\"checkout\"}");

        JsonNode proposed = ((dev.cadre.agent.tool.ProposingTool) write).propose(asked, in("replay-k8s"));
        String answer = write.execute(proposed, in("replay-k8s"));

        assertThat(proposed).isEqualTo(asked);
        assertThat(answer).isEqualTo("rolled back (recorded)");
        assertThat(reached).as("the real Kubernetes tool was never reached").hasValue(0);
    }
}
