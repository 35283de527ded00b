package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.telemetry.AgentTelemetryListener.AgentFinished;
import dev.cadre.agent.telemetry.AgentTelemetryListener.ToolCallFinished;
import dev.cadre.agent.tool.Risk;
import dev.cadre.platform.agents.AgentCatalog;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

class CadreMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CadreMetrics metrics = new CadreMetrics(
            registry,
            Clock.systemUTC(),
            new StaticListableBeanFactory().getBeanProvider(AgentCatalog.class),
            List.of("incidents"));

    private static AgentFinished agent(String name, OutcomeStatus status, @Nullable FailureCategory category) {
        return new AgentFinished("r1", "r1", name, 0, status, category, TokenUsage.ZERO, 1, 0, Duration.ofMillis(5));
    }

    private double failures() {
        return registry.find("cadre.failures").counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private @Nullable Counter counter(String name, String... tags) {
        return registry.find(name).tags(tags).counter();
    }

    @Test
    void aCancel_isNotAFailure() {
        metrics.agentFinished(agent("ops", OutcomeStatus.CANCELLED, FailureCategory.EXECUTION_ERROR));
        metrics.toolCallFinished(new ToolCallFinished(
                "r1",
                "r1",
                "ops",
                "runbook_execute",
                Risk.APPROVE,
                false,
                OutcomeStatus.CANCELLED,
                FailureCategory.EXECUTION_ERROR,
                Duration.ofMillis(3)));

        assertThat(failures()).isZero();
        assertThat(counter("cadre.agent.invocations", "agent", "ops", "outcome", "cancelled")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void aFailure_stillCountsInItsCategory() {
        metrics.agentFinished(agent("ops", OutcomeStatus.FAILED, FailureCategory.COMMUNICATION_ERROR));

        assertThat(counter("cadre.failures", "category", "COMMUNICATION_ERROR", "agent", "ops")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void aProviderTimeout_countsAsOutcomeTimeout() {
        // A model call that got no answer in time fails the agent with TIMEOUT_ERROR.
        metrics.agentFinished(agent("ops", OutcomeStatus.FAILED, FailureCategory.TIMEOUT_ERROR));

        assertThat(counter("cadre.agent.invocations", "agent", "ops", "outcome", "timeout")
                        .count())
                .isEqualTo(1);
        assertThat(counter("cadre.agent.invocations", "agent", "ops", "outcome", "failed"))
                .isNull();
        assertThat(counter("cadre.failures", "category", "TIMEOUT_ERROR", "agent", "ops")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void closedLabelSets_existAtZero_beforeAnyEvent() {
        metrics.registerKnown(List.of(
                AgentSpec.builder("boss")
                        .description("delegates")
                        .model("scripted:default")
                        .workers("helper")
                        .build(),
                AgentSpec.builder("helper")
                        .description("helps")
                        .model("scripted:default")
                        .build()));

        for (FailureCategory category : FailureCategory.values()) {
            assertThat(counter("cadre.failures", "category", category.name(), "agent", "boss"))
                    .as("cadre_failures_total{category=%s}", category)
                    .isNotNull()
                    .extracting(Counter::count)
                    .isEqualTo(0.0);
        }
        assertThat(counter("cadre.misroutes", "worker", "helper")).isNotNull();
        assertThat(counter("cadre.misroutes", "worker", "boss"))
                .as("boss is nobody's worker")
                .isNull();
        assertThat(counter("cadre.delegations", "worker", "helper", "outcome", "timeout"))
                .isNotNull();
        assertThat(counter("cadre.delegations.useful", "worker", "helper")).isNotNull();
        for (String status : List.of("completed", "failed", "canceled", "rejected")) {
            assertThat(counter("cadre.runs", "agent", "boss", "status", status)).isNotNull();
        }
        for (OutcomeStatus outcome : OutcomeStatus.values()) {
            assertThat(counter("cadre.agent.invocations", "agent", "helper", "outcome", outcome.wireName()))
                    .isNotNull();
        }
        assertThat(failures()).isZero();
    }
}
