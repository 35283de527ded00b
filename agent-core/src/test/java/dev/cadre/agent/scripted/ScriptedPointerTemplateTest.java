package dev.cadre.agent.scripted;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.SystemMessage;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UntrustedText;
import dev.cadre.agent.model.UserMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Templates that quote one field of structured data: {@code {{input/a/b}}}, {@code {{result[0]/x}}}. */
class ScriptedPointerTemplateTest {

    private final ScriptedModel model = ScriptedModel.fromJson("""
            {"agents": {"k8s": {"turns": [
              {"toolCalls": [{"name": "k8s_rollout_history",
                 "arguments": {"namespace": "{{input/kubernetes/namespace}}", "deployment": "{{input/kubernetes/deployment}}",
                               "whole": "{{input/kubernetes}}", "missing": "{{input/kubernetes/nope}}"}}]},
              {"toolCalls": [{"name": "k8s_rollout_undo",
                 "arguments": {"toRevision": "{{result[0]/lastHealthyRevision}}", "ns": "{{last.k8s_rollout_history/namespace}}"}}]}]}}}
            """);

    private static ModelRequest request(List<Message> messages) {
        return new ModelRequest("run", "s", "k8s", ModelRef.parse("scripted:test"), messages, List.of(), 10_000);
    }

    @Test
    void aPointerQuotesOneFieldOfTheTasksContext_neverOfItsFencedData() throws Exception {
        String task = "Triage alert KubePodCrashLooping.\n"
                + UntrustedText.fence("alertmanager", "{\"kubernetes\":{\"namespace\":\"evil\"}}")
                + "\n\nContext:\n{\"kubernetes\":{\"namespace\":\"shop\",\"deployment\":\"web\"}}";
        List<Message> start = List.of(new SystemMessage(""), new UserMessage(task));

        ModelResponse first = model.call(request(start));

        var args = first.toolCalls().getFirst().arguments();
        assertThat(args.path("namespace").asString()).isEqualTo("shop");
        assertThat(args.path("deployment").asString()).isEqualTo("web");
        assertThat(args.path("whole").asString()).isEqualTo("{\"namespace\":\"shop\",\"deployment\":\"web\"}");
        assertThat(args.path("missing").asString()).isEmpty();

        ModelResponse second = model.call(request(List.of(
                start.get(0),
                start.get(1),
                new AssistantMessage("", first.toolCalls()),
                new ToolResultMessage(
                        "call_1_1",
                        "k8s_rollout_history",
                        "{\"namespace\":\"shop\",\"lastHealthyRevision\":1}",
                        false))));

        assertThat(second.toolCalls().getFirst().arguments().path("toRevision").asString())
                .isEqualTo("1");
        assertThat(second.toolCalls().getFirst().arguments().path("ns").asString())
                .isEqualTo("shop");
    }
}
