package dev.cadre.agent.journal;

import dev.cadre.agent.tool.ToolResult;
import tools.jackson.databind.JsonNode;

/** What the journal knows of a call: it started, or it finished with a result. */
public sealed interface JournalEntry {

    /** The call's key. */
    JournalKey key();

    /**
     * Execution began; if nothing follows, the outcome is unknown and the call must not run again.
     * Only {@code tool} decides anything on resume; a durable journal keeps the arguments redacted
     * and their {@link dev.cadre.agent.approval.ActionHash} (never a secret), so {@code arguments}
     * read back from one may be masked.
     */
    record Started(JournalKey key, String tool, JsonNode arguments) implements JournalEntry {}

    /** Execution ended with this result, which a resumed run reuses. */
    record Finished(JournalKey key, ToolResult result) implements JournalEntry {}
}
