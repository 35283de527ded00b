package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.telemetry.AgentTelemetryListener.DelegationRefused;
import dev.cadre.agent.telemetry.AgentTelemetryListener.ToolCallFinished;
import dev.cadre.agent.tool.Risk;
import dev.cadre.platform.agents.AgentCatalog;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/** A delegation refused before its worker started is a failed delegation and a misroute, counted once. */
class RefusedDelegationMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CadreMetrics metrics = new CadreMetrics(
            registry,
            Clock.systemUTC(),
            new StaticListableBeanFactory().getBeanProvider(AgentCatalog.class),
            List.of("incidents"));

    private double count(String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void anUnknownWorker_countsAsAFailedDelegation_aMisroute_andOneOrchestrationFailure() {
        // What the loop reports for one refused call: the call ended, and it was a delegation.
        metrics.toolCallFinished(new ToolCallFinished(
                "r1",
                "r1",
                "boss",
                "helper",
                Risk.AUTO,
                false,
                OutcomeStatus.FAILED,
                FailureCategory.ORCHESTRATION_ERROR,
                Duration.ZERO));
        metrics.delegationRefused(new DelegationRefused(
                "r1", "r1", "boss", "helper", FailureCode.UNKNOWN_WORKER.failure("'helper' is not a worker")));

        assertThat(count("cadre.misroutes", "worker", "helper")).isEqualTo(1.0);
        assertThat(count("cadre.delegations", "worker", "helper", "outcome", "failed"))
                .isEqualTo(1.0);
        assertThat(count("cadre.delegations.useful", "worker", "helper")).isZero();
        assertThat(count("cadre.failures", "category", "ORCHESTRATION_ERROR", "agent", "boss"))
                .isEqualTo(1.0);
        assertThat(count("cadre.tool.calls", "tool", "helper", "outcome", "failed"))
                .isEqualTo(1.0);
    }
}
