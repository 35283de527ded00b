package dev.cadre.memory;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** One page of live entries in key order; pass {@code nextAfterKey} to get the next page (null: last page). */
public record EntryPage(List<MemoryEntry> entries, @Nullable String nextAfterKey) {
    public EntryPage {
        entries = List.copyOf(entries);
    }
}
