package dev.cadre.platform.agents;

import dev.cadre.agent.tool.Tool;

/**
 * Wraps every tool before the catalog hands it to agents: the one dispatch seam a feature (the
 * replay's recorded answers) uses to decide, per call, whether the real tool may run at all.
 */
public interface ToolGuard {

    /** The tool agents get in place of {@code tool} (same name, schema and risk). */
    Tool wrap(Tool tool);
}
