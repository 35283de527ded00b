/**
 * The agent catalogue: agent definitions loaded from configuration, the tools they may use,
 * and the REST view of both (with run figures asked of {@link dev.cadre.platform.agents.AgentRunHistory}).
 */
@NullMarked
package dev.cadre.platform.agents;

import org.jspecify.annotations.NullMarked;
