package dev.cadre.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.tool.ToolRegistry;
import org.junit.jupiter.api.Test;

class ModelFailureTest {

    private static RunOutcome runAgainst(ModelPort model) throws Exception {
        var tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("solo").model("remote:m").build());
        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            return runner.run(RunRequest.of("run-mf", "solo", "hi"), RunObserver.NONE);
        }
    }

    @Test
    void aProviderThatDoesNotAnswerInTime_failsTheRunWithTimeoutError() throws Exception {
        RunOutcome outcome = runAgainst(request -> {
            throw ModelException.timeout("provider_timeout", "remote did not answer in time", null);
        });
        assertThat(outcome.status()).isEqualTo(OutcomeStatus.FAILED);
        assertThat(outcome.failure().category()).isEqualTo(FailureCategory.TIMEOUT_ERROR);
        assertThat(outcome.failure().code()).isEqualTo("provider_timeout");
    }

    @Test
    void anUnreachableOrMalformedProvider_failsTheRunWithCommunicationError() throws Exception {
        RunOutcome outcome = runAgainst(request -> {
            throw new ModelException("provider_unreachable", "connection refused");
        });
        assertThat(outcome.failure().category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR);
        assertThat(outcome.failure().message()).contains("connection refused");
    }
}
