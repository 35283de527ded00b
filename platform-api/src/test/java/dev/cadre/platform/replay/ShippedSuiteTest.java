package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shipped suite (issue 25, docs/replay.md "The shipped suite"): every case under {@code cases/} is
 * recorded again here from a real run of the shipped host or Kubernetes team on its scripted models and
 * must equal the committed file, ids and clock readings aside ({@link CaseNormaliser}); so the suite
 * cannot silently drift from the teams. Each recording also meets its own expectations (the shipped
 * team passes its suite). With {@code -Dcadre.replay.record=true} it writes the files instead (only
 * those whose content changed).
 */
class ShippedSuiteTest extends SuiteHarness {

    /** Set (to true) to write the case files from this run instead of comparing. */
    static final String RECORD = "cadre.replay.record";

    @DynamicPropertySource
    static void teams(DynamicPropertyRegistry registry) {
        platform(registry, "cadre-shipped-suite", "classpath:agents/ops-team.yaml,classpath:agents/k8s-team.yaml");
    }

    /** Where ReplayCliTest's small suite lives (tests run in platform-api/). */
    static final Path CLI_SUITE = Path.of("src/test/resources/replay/suite");

    @TestFactory
    Stream<DynamicTest> everyShippedCaseIsWhatTheShippedTeamsDoToday() {
        return ShippedSuite.scenarios().stream()
                .map(s -> DynamicTest.dynamicTest(s.name(), () -> check(s, ShippedSuite.casesDirectory())));
    }

    /** The replay CLI's own suite is recorded from the shipped host team too, so it cannot drift from it either. */
    @TestFactory
    Stream<DynamicTest> theReplayCliSuiteIsWhatTheShippedHostTeamDoesToday() {
        return ShippedSuite.cliSuite().stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> check(s, CLI_SUITE)));
    }

    private void check(ShippedSuite.Scenario s, Path directory) throws IOException {
        boolean record = Boolean.getBoolean(RECORD);
        String produced = record(s);
        IncidentCase recorded = files.read(s.name() + ".yaml", produced);
        Path file = directory.resolve(s.name() + ".yaml");
        String committed = Files.exists(file) ? Files.readString(file) : null;
        if (record) {
            if (committed == null || !CaseNormaliser.normalise(committed).equals(CaseNormaliser.normalise(produced))) {
                Files.createDirectories(file.getParent());
                Files.writeString(file, produced, StandardCharsets.UTF_8);
            }
        } else {
            assertThat(committed)
                    .as(file + " is missing: record the suite (docs/replay.md, The shipped suite)")
                    .isNotNull();
            assertThat(CaseNormaliser.normalise(produced))
                    .as("the team's run no longer matches " + file
                            + " -- if the change is intended, record the suite again (docs/replay.md)")
                    .isEqualTo(CaseNormaliser.normalise(committed));
        }
        // The shipped team meets the operator's expectations of its own recording.
        CaseScore score = CaseScore.of(s.name(), recorded.expect(), recorded, List.of(), 0, 0, 0.0, Duration.ZERO);
        assertThat(score.passed()).as(score.toString()).isTrue();
    }

    @Test
    void everyCaseFileIsAValidCaseOfAShippedScenario() throws IOException {
        List<String> names = ShippedSuite.scenarios().stream()
                .map(ShippedSuite.Scenario::name)
                .toList();
        List<Path> paths;
        try (Stream<Path> list = Files.list(ShippedSuite.casesDirectory())) {
            paths = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        List<String> found = new ArrayList<>();
        for (Path p : paths) {
            IncidentCase c = files.read("cases/" + p.getFileName(), Files.readString(p));
            assertThat(c.name())
                    .as(p.toString())
                    .isEqualTo(p.getFileName().toString().replace(".yaml", ""));
            found.add(c.name());
        }
        assertThat(found).as("cases/ holds exactly the shipped scenarios").containsExactlyInAnyOrderElementsOf(names);
        assertThat(found).hasSizeGreaterThanOrEqualTo(12);
    }
}
