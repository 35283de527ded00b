package dev.cadre.agent.workflow;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a workflow ended: status, the text it hands on (for a split or map-reduce also when some parts
 * failed: the report says which), the failure, every step, aggregated findings, and the last baton.
 */
public record WorkflowOutcome(
        String name,
        OutcomeStatus status,
        @Nullable String text,
        @Nullable Failure failure,
        List<StepOutcome> steps,
        List<Finding> findings,
        Map<String, List<Finding>> findingsByTarget,
        @Nullable Baton baton,
        TokenUsage usage) {

    public WorkflowOutcome {
        steps = List.copyOf(steps);
        findings = List.copyOf(findings);
        findingsByTarget = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(findingsByTarget));
    }
}
