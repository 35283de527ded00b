package dev.cadre.agent.run;

import java.util.List;
import java.util.Map;

/**
 * Resolves the {@code memory_keys} of a delegation into read-only inputs rendered into the
 * subagent's first message. agent-core knows nothing of the memory module; platform-api adapts it.
 */
@FunctionalInterface
public interface SharedInputs {

    /** No shared inputs: every key renders as unavailable. */
    SharedInputs NONE = (runId, sessionId, keys) -> Map.of();

    /** The values of the keys that exist, as text (JSON for structured values). */
    Map<String, String> resolve(String runId, String sessionId, List<String> keys);
}
