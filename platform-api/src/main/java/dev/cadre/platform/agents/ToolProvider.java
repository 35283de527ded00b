package dev.cadre.platform.agents;

import dev.cadre.agent.tool.Tool;
import java.util.List;

/** A source of tools agents may be given by name (memory tools, ops tools, MCP servers…). */
public interface ToolProvider {

    List<Tool> tools();
}
