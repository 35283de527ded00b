package dev.cadre.platform.mcp;

import dev.cadre.platform.agents.AgentCatalog;

/**
 * Which agents and workflows MCP clients see as tools: those whose YAML declares {@code expose:
 * [mcp]} (docs/security.md), never every entry point — a client reaching Cadre over MCP may start
 * only what its operators chose to offer there.
 */
final class McpExposure {

    private McpExposure() {}

    /** Whether {@code name} (an agent or workflow of the catalog) is an MCP tool. */
    static boolean exposed(AgentCatalog catalog, String name) {
        return catalog.exposedOver(name, AgentCatalog.Channel.MCP);
    }
}
