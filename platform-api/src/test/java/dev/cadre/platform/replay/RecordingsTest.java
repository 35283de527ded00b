package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What replaying the shipped suite showed {@link Recordings} must do (docs/replay.md, "Replaying the
 * shipped suite"): a string argument holding JSON matches by content (the stored events hold it
 * compact), and a recorded denial's rejecter is known.
 */
class RecordingsTest {

    private final JsonMapper json = JsonMapper.builder().build();

    private JsonNode node(String text) {
        return json.readTree(text);
    }

    private IncidentCase recorded(String output) {
        return new IncidentCase(
                1,
                "k8s",
                null,
                new IncidentCase.Input("k8s-orchestrator", "triage", null),
                List.of(
                        new IncidentCase.Call(
                                "s1",
                                "k8s-repairer",
                                "ask_human",
                                node("{\"question\":\"what now?\",\"context\":\"{\\\"history\\\":{\\\"revision\\\":1},"
                                        + "\\\"rollout\\\":\\\"ProgressDeadlineExceeded\\\"}\"}"),
                                "approve",
                                "ok",
                                "{\"answer\":\"mine\"}"),
                        new IncidentCase.Call(
                                "s1",
                                "k8s-repairer",
                                "k8s_rollout_undo",
                                node("{\"deployment\":\"web\",\"toRevision\":1}"),
                                "approve",
                                "denied",
                                output)),
                List.of(),
                List.of(),
                null,
                List.of(),
                List.of(new IncidentCase.Decision(
                        "ask_human",
                        node("{\"question\":\"what now?\",\"context\":\"{\\\"history\\\":{\\\"revision\\\":1},"
                                + "\\\"rollout\\\":\\\"ProgressDeadlineExceeded\\\"}\"}"),
                        "approved",
                        null)),
                null,
                IncidentCase.Expectations.NONE);
    }

    @Test
    void aJsonTextArgumentMatchesItsRecordingWhateverItsSpacing() {
        Recordings r = new Recordings(recorded("{}"));
        // As the scripted model writes it: spaced; the case holds it compact.
        JsonNode live = node("{\"context\":\"{\\\"history\\\": {\\\"revision\\\": 1}, "
                + "\\\"rollout\\\": \\\"ProgressDeadlineExceeded\\\"}\",\"question\":\"what now?\"}");

        assertThat(r.decision("ask_human", live))
                .hasValueSatisfying(d -> assertThat(d.decision()).isEqualTo("approved"));
        assertThat(r.answer("ask_human", live)).isInstanceOf(Recordings.Answer.Recorded.class);
        assertThat(r.deviations()).isEmpty();

        // Another JSON content is another call.
        JsonNode other = node("{\"context\":\"{\\\"history\\\": {\\\"revision\\\": 2}}\",\"question\":\"what now?\"}");
        assertThat(r.decision("ask_human", other)).isEmpty();
        assertThat(r.deviations()).hasSize(1);
    }

    @Test
    void theRecordedDenialNamesItsRejecter() {
        Recordings r = new Recordings(
                recorded("{\"status\":\"denied\",\"comment\":\"rejected by suite-approver: change freeze\"}"));

        assertThat(r.rejecter("k8s_rollout_undo", node("{\"toRevision\":1,\"deployment\":\"web\"}")))
                .hasValue("suite-approver");
        assertThat(r.rejecter("k8s_rollout_undo", node("{\"deployment\":\"web\",\"toRevision\":2}")))
                .isEmpty();
        assertThat(new Recordings(recorded("{\"status\":\"denied\",\"comment\":\"rejected\"}"))
                        .rejecter("k8s_rollout_undo", node("{\"deployment\":\"web\",\"toRevision\":1}")))
                .isEmpty();
    }
}
