package dev.cadre.platform.tooloutput;

import dev.cadre.agent.tool.output.InMemoryToolOutputStore;
import dev.cadre.agent.tool.output.ToolOutputStore;
import java.util.UUID;

/** {@link ToolOutputStoreContract} on agent-core's in-memory store. */
class InMemoryToolOutputStoreTest extends ToolOutputStoreContract {

    private final InMemoryToolOutputStore store = new InMemoryToolOutputStore();

    @Override
    ToolOutputStore store() {
        return store;
    }

    @Override
    String newRun() {
        return "run_" + UUID.randomUUID();
    }
}
