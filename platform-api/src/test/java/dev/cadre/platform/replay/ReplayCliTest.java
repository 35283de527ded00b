package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.CadreApplication;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar platform-api/target/platform-api-*.jar replay} in this process: a tiny suite recorded from the shipped
 * host team (ShippedSuiteTest records it: a CPU triage of web-1 and a check of db-2, their Prometheus and SSH
 * answers in the recording), replayed against that team as the baseline and a candidate; the exit code and the
 * table name what regressed.
 */
class ReplayCliTest {

    private static final String SUITE = "src/test/resources/replay/suite";
    private static final String BASELINE = "../deploy/agents/ops-team.yaml";
    private static final String TEAMS = "src/test/resources/replay/teams/";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int replay(String... args) {
        return new ReplayCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        CadreApplication.class)
                .run(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The embedded default database of the working directory, which the CLI must never open. */
    private static final Path EMBEDDED = Path.of("data", "cadre.mv.db");

    private static String stamp() throws java.io.IOException {
        return Files.exists(EMBEDDED) ? Files.getLastModifiedTime(EMBEDDED).toString() : "absent";
    }

    @Test
    void aCandidateWithoutItsCpuInspectorIsARegressionNamedInTheTable() throws Exception {
        String embedded = stamp();
        int code = replay("--suite", SUITE, "--baseline", BASELINE, "--candidate", TEAMS + "no-cpu-inspector.yaml");

        assertThat(code).as(out() + err()).isEqualTo(1);
        assertThat(out())
                .contains("cpu-triage")
                .contains("host-check")
                .contains("yes→no")
                .contains("REGRESSION")
                .contains("cpu-triage: root cause no longer found")
                .contains("host-check: root cause no longer found")
                .contains("cpu-triage: deviations 0→")
                .contains("SUITE (2 cases)");
        System.out.print(out()); // the table, kept in the test report
        assertThat(stamp())
                .as("the CLI's platform runs on a private in-memory database")
                .isEqualTo(embedded);
    }

    @Test
    void aForbiddenActionInTheCandidateFailsTheSuiteAndTheSameTeamPasses() {
        int code = replay("--suite", SUITE, "--baseline", BASELINE, "--candidate", TEAMS + "aggressive-repairer.yaml");

        assertThat(code).as(out() + err()).isEqualTo(1);
        assertThat(out())
                .contains("cpu-triage: forbidden action proposed [runbook_execute {\"arguments\":{\"count\":5}}]")
                .doesNotContain("host-check: forbidden");

        out.reset();
        int same = replay("--suite", SUITE, "--baseline", BASELINE, "--candidate", BASELINE);
        assertThat(same).as(out() + err()).isZero();
        assertThat(out()).contains("no regression beyond the thresholds").doesNotContain("WORSE");
    }

    @Test
    void badInputExitsTwoNamingTheFileAndField(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("wrong.yaml");
        Files.writeString(
                bad, Files.readString(Path.of(SUITE, "host-check.yaml")).replace("version: 1", "version: 2"));

        assertThat(replay("--suite", dir.toString(), "--baseline", BASELINE, "--candidate", BASELINE))
                .isEqualTo(2);
        assertThat(err()).contains(bad + ": version: must be 1 (was 2)");

        err.reset();
        assertThat(replay("--suite", SUITE, "--candidate", "no-such-team.yaml")).isEqualTo(2);
        assertThat(err()).contains("no-such-team.yaml: no such team file or directory");

        err.reset();
        assertThat(replay("--suite", SUITE, "--candidate", BASELINE, "--threshold", "speed=2"))
                .isEqualTo(2);
        assertThat(err()).contains("--threshold speed=2");

        err.reset();
        assertThat(replay("--suite", SUITE, "--candidate", BASELINE, "--port", "70000"))
                .isEqualTo(2);
        assertThat(err()).contains("--port 70000: a port number, 1 to 65535 (0: a free one)");
    }

    @Test
    void usageSaysHowToBuildTheJarAndThatAPortCanBeGiven() {
        assertThat(replay("--help")).isZero();
        assertThat(out())
                .contains("java -jar platform-api/target/platform-api-*.jar replay")
                .contains("./mvnw -B -q -pl platform-api -am package -DskipTests")
                .contains("--port PORT");
    }
}
