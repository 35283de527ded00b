package dev.cadre.agent.tool.output;

/**
 * A piece of a kept output: whole lines, each ending in a newline, numbered from 0 across the output.
 *
 * @param seq its position, from 0
 * @param firstLine the number of its first line
 * @param lineCount how many lines it holds
 * @param text the lines
 */
public record ToolOutputChunk(int seq, long firstLine, int lineCount, String text) {}
