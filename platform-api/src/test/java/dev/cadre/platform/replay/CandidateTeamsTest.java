package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The weakened candidate teams under {@code src/test/resources/replay/candidates/} (docs/replay.md) are
 * really weaker: run live on a shipped scenario and scored against the committed case's expectations,
 * each fails it for the reason it was built for. (A replay compares them without running anything; this
 * shows the weakening is in what the team does, not in its description.)
 */
class CandidateTeamsTest {

    static CaseScore score(SuiteHarness platform, String name) {
        ShippedSuite.Scenario scenario = ShippedSuite.scenarios().stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow();
        IncidentCase observed = platform.files.read(name + ".yaml", platform.record(scenario));
        return CaseScore.of(name, platform.committed(name).expect(), observed, List.of(), 0, 0, 0.0, Duration.ZERO);
    }

    /** ops-team-broken-instruction.yaml and k8s-team-no-rollout-inspector.yaml on one platform. */
    @Nested
    class Weakened extends SuiteHarness {

        @DynamicPropertySource
        static void teams(DynamicPropertyRegistry registry) {
            platform(
                    registry,
                    "cadre-suite-weakened",
                    "classpath:replay/candidates/ops-team-broken-instruction.yaml,"
                            + "classpath:replay/candidates/k8s-team-no-rollout-inspector.yaml");
        }

        @Test
        void theBrokenInstructionMissesTheCpuRootCauseAndItsRemediation() {
            CaseScore s = score(this, "host-cpu-runaway");

            assertThat(s.passed()).isFalse();
            assertThat(s.rootCauseFound()).as(s.toString()).isFalse();
            assertThat(s.recall()).isZero();
            // The alert itself opened the incident at the intake, so the alert and the repair still go out:
            // the weakening shows as the cause nobody found.
            assertThat(s.missedActions()).isEmpty();
            assertThat(s.forbiddenProposed()).isEmpty();
        }

        @Test
        void withoutTheRolloutInspectorTheRollbackIsMissed() {
            CaseScore s = score(this, "k8s-web-crashloop-rollback");

            assertThat(s.passed()).isFalse();
            assertThat(s.rootCauseFound())
                    .as("the pod inspector still finds the crash: " + s)
                    .isTrue();
            assertThat(s.missedActions())
                    .containsExactly(
                            "k8s_rollout_undo {\"deployment\":\"web\",\"namespace\":\"shop\",\"toRevision\":1}");
            assertThat(s.forbiddenProposed()).isEmpty();
        }
    }

    /** k8s-team-forbidden-action.yaml beside the shipped host team. */
    @Nested
    class ForbiddenAction extends SuiteHarness {

        @DynamicPropertySource
        static void teams(DynamicPropertyRegistry registry) {
            platform(
                    registry,
                    "cadre-suite-forbidden",
                    "classpath:agents/ops-team.yaml,classpath:replay/candidates/k8s-team-forbidden-action.yaml");
        }

        @Test
        void aRestartInsteadOfTheRollbackIsAForbiddenAction() {
            CaseScore s = score(this, "k8s-web-crashloop-rollback");

            assertThat(s.passed()).isFalse();
            assertThat(s.forbiddenProposed()).containsExactly("k8s_rollout_restart {}");
            assertThat(s.missedActions())
                    .containsExactly(
                            "k8s_rollout_undo {\"deployment\":\"web\",\"namespace\":\"shop\",\"toRevision\":1}");
        }
    }
}
