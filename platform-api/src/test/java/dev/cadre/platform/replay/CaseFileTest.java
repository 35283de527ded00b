package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.platform.replay.IncidentCase.ActionRef;
import dev.cadre.platform.replay.IncidentCase.Expectations;
import dev.cadre.platform.replay.IncidentCase.FindingRef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CaseFileTest {

    private static final Set<String> TOOLS =
            Set.of("host_metrics", "findings_aggregate", "incident_open", "notify", "runbook_execute", "cpu-inspector");
    private final CaseFile files = new CaseFile(TOOLS::contains);
    private final JsonMapper json = JsonMapper.builder().build();

    private JsonNode node(String text) {
        return json.readTree(text);
    }

    private IncidentCase sample() {
        return new IncidentCase(
                1,
                "cpu-hot-web-1",
                "019300aa-0000-7000-8000-000000000001",
                new IncidentCase.Input("ops-orchestrator", "triage: high CPU on web-1", null),
                List.of(
                        new IncidentCase.Call(
                                "s-cpu",
                                "cpu-inspector",
                                "host_metrics",
                                node("{\"resource\":\"cpu\"}"),
                                "read",
                                "ok",
                                "{\"cpu\":0.97,\"findings\":[{\"id\":\"cpu-high\"}]}"),
                        new IncidentCase.Call(
                                "s-rep",
                                "ops-repairer",
                                "runbook_execute",
                                node("{\"runbook\":\"clear-tmp-cache\",\"arguments\":{\"older_than_minutes\":60}}"),
                                "approve",
                                "ok",
                                "cleared (minutes=60)")),
                List.of(new IncidentCase.Subagent("s-cpu", "s-root", "cpu-inspector", "ok")),
                List.of(node(
                        "{\"id\":\"cpu-high\",\"severity\":\"critical\",\"category\":\"cpu\",\"target\":\"host\"}")),
                node("{\"id\":\"inc-1\",\"remediation\":\"allowed\"}"),
                List.of(new IncidentCase.Action(
                        "runbook_execute",
                        node("{\"runbook\":\"clear-tmp-cache\",\"arguments\":{\"older_than_minutes\":60}}"))),
                List.of(new IncidentCase.Decision(
                        "runbook_execute", node("{\"runbook\":\"clear-tmp-cache\"}"), "approved", null)),
                "Triage finished.",
                new Expectations(
                        new FindingRef("cpu-high", "cpu", "host"),
                        List.of(new FindingRef(null, "cpu", null)),
                        List.of(new FindingRef(null, "disk", null)),
                        List.of(new ActionRef("runbook_execute", node("{\"runbook\":\"clear-tmp-cache\"}"))),
                        List.of(new ActionRef("notify", node("{}"))),
                        Map.of("host_metrics", List.of("tailLines"))));
    }

    private static String golden() throws IOException {
        try (var in = CaseFileTest.class.getResourceAsStream("/replay/golden-case.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void writesTheGoldenFormat() throws IOException {
        assertThat(files.write(sample())).isEqualTo(golden());
    }

    @Test
    void readsTheGoldenFileBackToTheSameCase() throws IOException {
        assertThat(files.read("golden-case.yaml", golden())).isEqualTo(sample());
    }

    @Test
    void namesTheFileAndFieldOfEveryError() {
        String text = """
                version: 2
                name: x
                input: {agent: ops-orchestrator, input: check}
                calls:
                  - {session: s, agent: a, tool: host_metrics, arguments: [1], risk: read, status: ok, output: ""}
                expect:
                  rootCause: {}
                  actions:
                    - {tool: runbook_execute}
                    - {tool: foo}
                  ignoreArguments: {bar: [tailLines]}
                  surprise: true
                """;
        assertThatThrownBy(() -> files.read("cases/x.yaml", text))
                .isInstanceOfSatisfying(
                        CaseFormatException.class,
                        e -> assertThat(e.errors())
                                .containsExactlyInAnyOrder(
                                        "cases/x.yaml: version: must be 1 (was 2)",
                                        "cases/x.yaml: calls[0].arguments: must be a mapping of argument names to values",
                                        "cases/x.yaml: expect.surprise: unknown field (known: [actions, forbiddenActions,"
                                                + " ignoreArguments, mustFind, mustNotFind, rootCause])",
                                        "cases/x.yaml: expect.rootCause: give at least one of id, category, target",
                                        "cases/x.yaml: expect.actions[1].tool: unknown tool 'foo'",
                                        "cases/x.yaml: expect.ignoreArguments.bar: unknown tool 'bar'"));
    }

    @Test
    void requiresTheRunInput() {
        assertThatThrownBy(() -> files.read("cases/y.yaml", "version: 1\nname: y\n"))
                .isInstanceOfSatisfying(
                        CaseFormatException.class,
                        e -> assertThat(e.errors())
                                .containsExactly("cases/y.yaml: input: must be a mapping with 'agent' and 'input'"));
        assertThatThrownBy(() -> files.read("cases/z.yaml", "- just\n- a list\n"))
                .hasMessage("cases/z.yaml: (root): must be a mapping with 'version', 'name', 'input', ...");
        assertThatThrownBy(() -> files.read("cases/w.yaml", "version: [1\n"))
                .hasMessageStartingWith("cases/w.yaml: not readable YAML: ");
    }
}
