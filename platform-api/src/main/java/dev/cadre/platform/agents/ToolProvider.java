package dev.cadre.platform.agents;

import dev.cadre.agent.tool.Tool;
import java.util.List;
import java.util.function.Supplier;

/** A source of tools agents may be given by name (memory tools, ops tools, MCP servers…). */
public interface ToolProvider {

    List<Tool> tools();

    /** Where the tools come from, as {@code GET /api/v1/tools} shows it: {@code builtin}, {@code mcp}, {@code remote_agent}. */
    default String kind() {
        return "builtin";
    }

    /** A provider of {@code kind}. */
    static ToolProvider of(String kind, Supplier<List<Tool>> tools) {
        return new ToolProvider() {
            @Override
            public List<Tool> tools() {
                return tools.get();
            }

            @Override
            public String kind() {
                return kind;
            }
        };
    }
}
