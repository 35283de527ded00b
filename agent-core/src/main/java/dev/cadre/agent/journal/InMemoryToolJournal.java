package dev.cadre.agent.journal;

import dev.cadre.agent.tool.ToolResult;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A journal in memory: complete for resuming within one process, lost with it. Production code for
 * the embedded mode and tests, not a stub.
 */
public final class InMemoryToolJournal implements ToolJournal {

    private final Map<JournalKey, JournalEntry> entries = new ConcurrentHashMap<>();

    @Override
    public @Nullable JournalEntry find(JournalKey key) {
        return entries.get(key);
    }

    @Override
    public void started(JournalKey key, String tool, JsonNode arguments) {
        entries.put(key, new JournalEntry.Started(key, tool, arguments));
    }

    @Override
    public void finished(JournalKey key, ToolResult result) {
        entries.put(key, new JournalEntry.Finished(key, result));
    }

    /** How many calls the journal holds, started or finished. */
    public int size() {
        return entries.size();
    }
}
