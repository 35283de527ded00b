/**
 * Cadre as an MCP server at {@code /mcp} (streamable HTTP, the MCP Java SDK's servlet transport):
 * each exposed entry agent and workflow is a tool whose call runs it as the calling key.
 */
@NullMarked
package dev.cadre.platform.mcp;

import org.jspecify.annotations.NullMarked;
