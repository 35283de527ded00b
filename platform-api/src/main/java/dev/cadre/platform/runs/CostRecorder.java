package dev.cadre.platform.runs;

import dev.cadre.agent.telemetry.AgentTelemetryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds what each priced model call cost to its run's record (so the cost survives a restart and is
 * shown with the run), then passes every callback on to the metrics listener.
 */
final class CostRecorder implements AgentTelemetryListener {

    private static final Logger log = LoggerFactory.getLogger(CostRecorder.class);

    private final RunStore store;
    private final AgentTelemetryListener next;

    CostRecorder(RunStore store, AgentTelemetryListener next) {
        this.store = store;
        this.next = next;
    }

    @Override
    public void agentFinished(AgentFinished event) {
        next.agentFinished(event);
    }

    @Override
    public void toolCallFinished(ToolCallFinished event) {
        next.toolCallFinished(event);
    }

    @Override
    public void delegationRefused(DelegationRefused event) {
        next.delegationRefused(event);
    }

    @Override
    public void modelCallFinished(ModelCallFinished event) {
        if (event.cost() > 0) {
            try {
                store.addCost(event.runId(), event.cost());
            } catch (RuntimeException e) {
                // The run goes on; its budget is kept in memory, only the stored figure lags.
                log.warn("Cost of a model call of run {} not stored: {}", event.runId(), e.getMessage());
            }
        }
        next.modelCallFinished(event);
    }
}
