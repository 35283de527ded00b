package dev.cadre.platform.mcp;

import dev.cadre.platform.agents.AgentCatalog;

/**
 * Which agents and workflows MCP clients see as tools. The one place that decides it: the entry
 * points (every agent and workflow not marked {@code internal}); when agents declare their protocols
 * ({@code expose: [a2a, mcp]}), this method asks that declaration instead.
 */
final class McpExposure {

    private McpExposure() {}

    /** Whether {@code name} (an agent or workflow of the catalog) is an MCP tool. */
    static boolean exposed(AgentCatalog catalog, String name) {
        return catalog.runnable(name) && !catalog.isInternal(name);
    }
}
