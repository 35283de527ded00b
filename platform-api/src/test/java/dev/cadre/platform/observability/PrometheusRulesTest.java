package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped alert and recording rules ({@code deploy/prometheus/rules}) pass {@code promtool check
 * rules} and their unit tests ({@code promtool test rules}); every alert links a runbook section
 * that exists in docs/runbooks.md; the Grafana dashboard draws every recorded ratio.
 */
class PrometheusRulesTest {

    private static final Path RULES = Path.of("..", "deploy", "prometheus", "rules");
    private static final File PROMTOOL = new File("/usr/bin/promtool");

    private static String promtool(String... args) throws Exception {
        assertThat(PROMTOOL)
                .as("promtool missing: install Debian's prometheus package (apt-get install -y prometheus),"
                        + " or run ./test, which does")
                .exists();
        List<String> cmd = new ArrayList<>(List.of(PROMTOOL.getPath()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .directory(RULES.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor())
                .as("promtool " + String.join(" ", args) + ":\n" + out)
                .isZero();
        return out;
    }

    @Test
    void rules_passPromtoolCheck_andTheirUnitTests() throws Exception {
        assertThat(promtool("check", "rules", "cadre-recording.yml", "cadre-alerts.yml"))
                .contains("SUCCESS: 7 rules found", "SUCCESS: 9 rules found");
        assertThat(promtool("test", "rules", "cadre-rules.test.yml")).contains("SUCCESS");
    }

    @Test
    void everyAlert_hasARunbookSection_andATest() throws Exception {
        String alerts = Files.readString(RULES.resolve("cadre-alerts.yml"));
        String tests = Files.readString(RULES.resolve("cadre-rules.test.yml"));
        String runbooks = Files.readString(Path.of("..", "docs", "runbooks.md"));
        Matcher alert = Pattern.compile("- alert: (\\w+)").matcher(alerts);
        int n = 0;
        while (alert.find()) {
            String name = alert.group(1);
            n++;
            assertThat(alerts).contains("runbook_url: docs/runbooks.md#" + name.toLowerCase());
            assertThat(runbooks).as("docs/runbooks.md section").contains("\n## " + name + "\n");
            assertThat(tests)
                    .as("a firing case in cadre-rules.test.yml")
                    .containsPattern("alertname: " + name + "\\n\\s+exp_alerts:\\n\\s+- exp_labels");
        }
        assertThat(n).isEqualTo(9);
    }

    @Test
    void theDashboard_drawsEveryRecordedRatio() throws Exception {
        String recording = Files.readString(RULES.resolve("cadre-recording.yml"));
        String dashboard = Files.readString(Path.of("..", "deploy", "grafana", "dashboards", "cadre.json"));
        Matcher record = Pattern.compile("- record: (\\S+)").matcher(recording);
        while (record.find()) {
            assertThat(dashboard).as("dashboard panel for " + record.group(1)).contains(record.group(1));
        }
    }
}
