/**
 * Tool output budgets on the platform: the full outputs behind capped tool results, kept in {@code
 * cadre_tool_output} with their run, the budget from {@code cadre.tools.output.*}, and {@code GET
 * /api/v1/runs/{id}/tool-outputs/{handle}}.
 */
@NullMarked
package dev.cadre.platform.tooloutput;

import org.jspecify.annotations.NullMarked;
