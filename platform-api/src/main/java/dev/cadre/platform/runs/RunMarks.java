package dev.cadre.platform.runs;

import java.util.Collection;
import java.util.Map;

/**
 * Marks a feature puts on runs, shown with them (the replay a run belongs to): looked up for a page of
 * runs at once so a list costs one query.
 */
@FunctionalInterface
public interface RunMarks {

    /** No run is marked. */
    RunMarks NONE = ids -> Map.of();

    /** The replay id of each of {@code runIds} that is a replay; absent for ordinary runs. */
    Map<String, String> replays(Collection<String> runIds);
}
