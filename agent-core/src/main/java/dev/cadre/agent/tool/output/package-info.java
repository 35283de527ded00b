/**
 * Tool output budgets: what a tool returns is capped before the model reads it (head + tail and a line
 * saying what was cut), the full output is kept with the run, redacted and bounded, behind a handle, and
 * {@code tool_output_read} pages through it.
 */
@NullMarked
package dev.cadre.agent.tool.output;

import org.jspecify.annotations.NullMarked;
