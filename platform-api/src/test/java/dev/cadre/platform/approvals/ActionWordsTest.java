package dev.cadre.platform.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A tool call in words: the sentence, the argument lines and plan items, never JSON. */
class ActionWordsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }

    @Test
    void aCallIsOneSentenceBuiltFromTheAction() {
        assertThat(ActionWords.sentence("restart_service", json("{\"service\":\"api\",\"host\":\"web-7\"}")))
                .isEqualTo("Restart service with service api and host web-7.");
        assertThat(
                        ActionWords.sentence(
                                "runbook_execute",
                                json(
                                        "{\"runbook\":\"disk-usage-report\",\"arguments\":{\"path\":\"/tmp\",\"top\":5},\"reason\":\"see\"}")))
                .isEqualTo(
                        "Runbook execute with runbook disk-usage-report, arguments path /tmp, arguments top 5 and reason see.");
        assertThat(ActionWords.sentence("k8sScale", json("{}"))).isEqualTo("K8s scale.");
        assertThat(ActionWords.sentence("t", json("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6}")))
                .isEqualTo("T with a 1, b 2, c 3, d 4 and 2 more.");
    }

    @Test
    void argumentsAreOneLineEach_nestedByTheirPath_listsJoined() {
        assertThat(
                        ActionWords.argumentLines(
                                json(
                                        "{\"selector\":{\"app\":\"web\"},\"ports\":[80,443],\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"dryRun\":null,\"opts\":{}}")))
                .containsExactly(
                        "selector app: web", "ports: 80, 443", "env: name A value 1", "dry run: none", "opts: nothing");
    }

    @Test
    void planItemsAreSentences_theToolsOwnWordsFirst_andTextARedactionBrokeIsStillWords() {
        UnaryOperator<JsonNode> same = UnaryOperator.identity();
        assertThat(ActionWords.planItem("restart_service {\"service\":\"api\"}", same, null))
                .isEqualTo("Restart service with service api.");
        assertThat(ActionWords.planItem(
                        "k8s_scale {\"replicas\":3}", same, (tool, args) -> "Scale to " + args.get("replicas") + "."))
                .isEqualTo("Scale to 3.");
        assertThat(ActionWords.planItem("echo {\"[REDACTED],\"text\":\"log in with [REDACTED]\"}", same, null))
                .isEqualTo("Echo with [REDACTED], text: log in with [REDACTED].");
        assertThat(ActionWords.planItem("look around, then decide", same, null)).isEqualTo("look around, then decide");
        assertThat(ActionWords.planItem("status", same, null)).isEqualTo("Status.");
    }
}
