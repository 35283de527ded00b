package dev.cadre.agent.tool.output;

import java.util.Map;
import java.util.Objects;

/**
 * The platform's tool output budget: how many UTF-8 bytes of a tool's result a model reads (for every
 * tool, and for named tools), and how many bytes of a full output are kept for {@code tool_output_read}.
 * An agent's {@link ToolOutputCaps} override it: the agent's cap for the tool, else the agent's cap,
 * else the platform's cap for the tool, else the platform's.
 *
 * @param maxBytes the default cap of what a model reads of one tool result
 * @param tools caps for named tools
 * @param maxStoredBytes the most kept of one full output; beyond it the head and tail are kept with a
 *     marker saying how much of the middle was dropped
 */
public record ToolOutputBudget(int maxBytes, Map<String, Integer> tools, int maxStoredBytes) {

    /** The smallest cap: room for some head, some tail and the line saying what was cut. */
    public static final int MIN_CAP = 1024;

    /** 16 KiB to the model, 8 MiB kept. */
    public static final ToolOutputBudget DEFAULT = new ToolOutputBudget(16 * 1024, Map.of(), 8 * 1024 * 1024);

    public ToolOutputBudget {
        tools = Map.copyOf(Objects.requireNonNull(tools, "tools"));
        checkCap("maxBytes", maxBytes);
        tools.forEach((tool, cap) -> checkCap("tools." + tool, cap));
        if (maxStoredBytes < 64 * 1024) {
            throw new IllegalArgumentException(
                    "tool output maxStoredBytes must be at least 65536, was " + maxStoredBytes);
        }
    }

    /** The cap of what {@code agent}'s model reads of a result of {@code tool}. */
    public int capFor(String tool, ToolOutputCaps agent) {
        Integer own = agent.tools().get(tool);
        if (own != null) {
            return own;
        }
        if (agent.maxBytes() != null) {
            return agent.maxBytes();
        }
        return tools.getOrDefault(tool, maxBytes);
    }

    static void checkCap(String field, int value) {
        if (value < MIN_CAP) {
            throw new IllegalArgumentException(
                    "tool output cap " + field + " must be at least " + MIN_CAP + " bytes, was " + value);
        }
    }
}
