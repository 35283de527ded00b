package dev.cadre.agent.tool.output;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a kept output, as {@code tool_output_read} and the REST API return it.
 *
 * @param info the output
 * @param offset the line the page was asked from (0-based)
 * @param grep the filter the lines matched (case-insensitive text), or null for every line
 * @param lines the lines, each with its number
 * @param nextOffset the offset to ask next, or null when the page reached the end of the output
 */
public record ToolOutputPage(
        ToolOutputInfo info,
        long offset,
        @Nullable String grep,
        List<Line> lines,
        @Nullable Long nextOffset) {

    public ToolOutputPage {
        lines = List.copyOf(lines);
    }

    /** A line of the kept output and its number (0-based; ask {@code offset = number} to start there). */
    public record Line(long number, String text) {}
}
