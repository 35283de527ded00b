package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the shipped suite's comparison ignores between two recordings of one scenario, and what it does not. */
class CaseNormaliserTest {

    private static String recording(String run, String incident, String at, String rv, String order) {
        String describe = "{\\\"kind\\\":\\\"Pod\\\",\\\"resourceVersion\\\":\\\"" + rv
                + "\\\",\\\"age\\\":\\\"3s\\\",\\\"status\\\":\\\"CrashLoopBackOff\\\"}";
        String logs = "{\\\"log\\\":\\\"FATAL: boom\\\"}";
        String first = order.equals("describe-first") ? describe : logs;
        String second = order.equals("describe-first") ? logs : describe;
        return """
                version: 1
                name: x
                recordedFrom: %1$s
                input:
                  agent: k8s-orchestrator
                  input: "Triage alert (incident %2$s)"
                calls:
                - session: %1$s/k8s-pod-inspector#1
                  agent: k8s-pod-inspector
                  tool: %3$s
                  arguments: {}
                  risk: auto
                  status: ok
                  output: "%4$s"
                - session: %1$s/k8s-pod-inspector#1
                  agent: k8s-pod-inspector
                  tool: %5$s
                  arguments: {}
                  risk: auto
                  status: ok
                  output: "%6$s"
                - session: %1$s
                  agent: k8s-orchestrator
                  tool: incident_find
                  arguments: {id: %2$s}
                  risk: auto
                  status: ok
                  output: "{\\"openedAt\\":\\"%7$s\\",\\"runs\\":[\\"%1$s\\"],\\"text\\":\\"Pod: {\\\\\\"id\\\\\\": \\\\\\"a%8$s…\\"}"
                result: done
                """.formatted(
                        run,
                        incident,
                        order.equals("describe-first") ? "k8s_describe" : "k8s_logs",
                        first,
                        order.equals("describe-first") ? "k8s_logs" : "k8s_describe",
                        second,
                        at,
                        rv.repeat(3));
    }

    @Test
    void idsClockReadingsResourceVersionsClipsAndParallelOrderAreIgnored() {
        String a = recording(
                "run_01a248dbc80e712a9cdb6e68b59f0bc8",
                "inc-5e98af30be48",
                "2026-12-06T00:58:12.876631564Z",
                "6",
                "describe-first");
        String b = recording(
                "run_01a24900000000000000000000000001",
                "inc-000000000001",
                "2026-12-07T10:00:00.5Z",
                "17",
                "logs-first");

        assertThat(CaseNormaliser.normalise(a)).isEqualTo(CaseNormaliser.normalise(b));
        assertThat(CaseNormaliser.normalise(a))
                .contains("<run>/k8s-pod-inspector#1")
                .contains("<incident>")
                .contains("<time>")
                .contains("<rv>")
                .contains("<clipped>")
                .doesNotContain("inc-5e98af30be48");
    }

    @Test
    void aChangedToolOutputOrAnswerIsNot() {
        String a = recording(
                "run_01a248dbc80e712a9cdb6e68b59f0bc8",
                "inc-5e98af30be48",
                "2026-12-06T00:58:12.876631564Z",
                "6",
                "describe-first");

        assertThat(CaseNormaliser.normalise(a.replace("FATAL: boom", "FATAL: bang")))
                .isNotEqualTo(CaseNormaliser.normalise(a));
        assertThat(CaseNormaliser.normalise(a.replace("CrashLoopBackOff", "Running")))
                .isNotEqualTo(CaseNormaliser.normalise(a));
        assertThat(CaseNormaliser.normalise(a.replace("result: done", "result: other")))
                .isNotEqualTo(CaseNormaliser.normalise(a));
    }
}
