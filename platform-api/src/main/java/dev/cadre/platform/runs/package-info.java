/**
 * Durable, queued runs of agent-core's runtime: submission, execution under leases, events,
 * the tool journal and their REST API. {@link dev.cadre.platform.runs.RunStore} owns {@code
 * cadre_run}, {@link dev.cadre.platform.runs.RunEvents} {@code cadre_run_event}, and {@link
 * dev.cadre.platform.runs.JdbcToolJournal} {@code cadre_tool_journal}.
 */
@NullMarked
package dev.cadre.platform.runs;

import org.jspecify.annotations.NullMarked;
