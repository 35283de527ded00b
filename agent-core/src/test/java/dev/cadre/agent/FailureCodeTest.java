package dev.cadre.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The catalogue's wire strings are a persisted format: this pins every one of them. */
class FailureCodeTest {

    @Test
    void everyCode_keepsItsWireStringAndCategory() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("unknown_tool", "ORCHESTRATION_ERROR");
        expected.put("unknown_worker", "ORCHESTRATION_ERROR");
        expected.put("invalid_delegation", "ORCHESTRATION_ERROR");
        expected.put("depth_limit", "ORCHESTRATION_ERROR");
        expected.put("delegation_cycle", "ORCHESTRATION_ERROR");
        expected.put("unknown_handoff_target", "ORCHESTRATION_ERROR");
        expected.put("handoff_limit", "ORCHESTRATION_ERROR");
        expected.put("model_error", "COMMUNICATION_ERROR");
        expected.put("empty_response", "COMMUNICATION_ERROR");
        expected.put("internal_error", "EXECUTION_ERROR");
        expected.put("tool_failed", "EXECUTION_ERROR");
        expected.put("invalid_arguments", "EXECUTION_ERROR");
        expected.put("invalid_edited_arguments", "EXECUTION_ERROR");
        expected.put("worker_failed", "EXECUTION_ERROR");
        expected.put("interrupted", "EXECUTION_ERROR");
        expected.put("cancelled", "EXECUTION_ERROR");
        expected.put("run_aborted", "EXECUTION_ERROR");
        expected.put("workers_failed", "EXECUTION_ERROR");
        expected.put("chunks_failed", "EXECUTION_ERROR");
        expected.put("no_positions", "EXECUTION_ERROR");
        expected.put("repeated_tool_call", "EXECUTION_ERROR");
        expected.put("approval_mismatch", "EXECUTION_ERROR");
        expected.put("agent_timeout", "TIMEOUT_ERROR");
        expected.put("worker_timeout", "TIMEOUT_ERROR");
        expected.put("iteration_budget", "BUDGET_EXCEEDED");
        expected.put("token_budget", "BUDGET_EXCEEDED");
        expected.put("output_truncated", "BUDGET_EXCEEDED");
        expected.put("run_budget_exhausted", "BUDGET_EXCEEDED");
        expected.put("worker_budget_exceeded", "BUDGET_EXCEEDED");
        expected.put("cost_budget", "BUDGET_EXCEEDED");
        expected.put("approval_expired", "HUMAN_INTERVENTION_TIMEOUT");
        expected.put("review_expired", "HUMAN_INTERVENTION_TIMEOUT");
        expected.put("tie_break_expired", "HUMAN_INTERVENTION_TIMEOUT");
        expected.put("parent_stopped", "inherited");

        Map<String, String> actual = Arrays.stream(FailureCode.values())
                .collect(Collectors.toMap(
                        FailureCode::code,
                        c -> c.category() == null ? "inherited" : c.category().name(),
                        (a, b) -> {
                            throw new AssertionError("duplicate wire code");
                        },
                        LinkedHashMap::new));
        assertThat(actual).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    void failure_carriesTheCodesCategoryAndWireString() {
        Failure f = FailureCode.DEPTH_LIMIT.failure("too deep");

        assertThat(f).isEqualTo(new Failure(FailureCategory.ORCHESTRATION_ERROR, "depth_limit", "too deep"));
        assertThat(FailureCode.DEPTH_LIMIT.matches(f)).isTrue();
        assertThat(FailureCode.DELEGATION_CYCLE.matches(f)).isFalse();
    }

    @Test
    void parentStopped_inheritsTheCategoryItIsGiven_andRefusesToInventOne() {
        assertThat(FailureCode.PARENT_STOPPED.failure(FailureCategory.TIMEOUT_ERROR, "parent stopped: late"))
                .isEqualTo(new Failure(FailureCategory.TIMEOUT_ERROR, "parent_stopped", "parent stopped: late"));
        assertThatThrownBy(() -> FailureCode.PARENT_STOPPED.failure("x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PARENT_STOPPED");
    }
}
