package dev.cadre.agent.tool.output;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One agent's overrides of the platform's tool output budget (the {@code toolOutput} section of its
 * YAML): a cap for all its tools and caps for named tools, in UTF-8 bytes of what its model reads.
 *
 * @param maxBytes the cap for every tool of the agent, or null for the platform's
 * @param tools caps for named tools, over {@code maxBytes}
 */
public record ToolOutputCaps(@Nullable Integer maxBytes, Map<String, Integer> tools) {

    /** No overrides: the platform's budget applies. */
    public static final ToolOutputCaps NONE = new ToolOutputCaps(null, Map.of());

    public ToolOutputCaps {
        tools = Map.copyOf(Objects.requireNonNull(tools, "tools"));
        if (maxBytes != null) {
            ToolOutputBudget.checkCap("maxBytes", maxBytes);
        }
        tools.forEach((tool, cap) -> ToolOutputBudget.checkCap("tools." + tool, cap));
    }
}
