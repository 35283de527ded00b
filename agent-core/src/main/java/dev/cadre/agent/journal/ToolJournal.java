package dev.cadre.agent.journal;

import dev.cadre.agent.tool.ToolResult;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Records side-effecting ({@code SUGGEST} and {@code APPROVE}) tool calls around their execution.
 * Writes must be durable before they return: the loop executes the tool only after {@link #started}
 * returned. {@link InMemoryToolJournal} is the embedded implementation; platform-api adds JDBC.
 */
public interface ToolJournal {

    /** The latest entry for the call, or null when it never started. */
    @Nullable
    JournalEntry find(JournalKey key);

    /**
     * Records that the call is about to run with {@code arguments} (after any approver's edits). A
     * durable journal should store their {@link dev.cadre.agent.approval.ActionHash} and a redacted
     * copy rather than the raw values: a resumed run reuses the finished result, never the arguments.
     */
    void started(JournalKey key, String tool, JsonNode arguments);

    /** Records the call's result. */
    void finished(JournalKey key, ToolResult result);
}
