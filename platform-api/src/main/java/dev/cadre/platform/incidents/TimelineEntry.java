package dev.cadre.platform.incidents;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * One event of an incident's timeline. {@code text} is for people (one line, plain words), {@code
 * data} the structured form; {@code ref} an approval id, call id or delivery id.
 */
public record TimelineEntry(
        TimelineKind kind,
        @Nullable String actor,
        String text,
        @Nullable JsonNode data,
        @Nullable String runId,
        @Nullable String ref) {

    public TimelineEntry {
        if (kind == null) {
            throw new IllegalArgumentException("a timeline entry needs a kind");
        }
        text = text == null ? "" : text;
    }

    /** An entry with text only. */
    public static TimelineEntry of(TimelineKind kind, @Nullable String actor, String text) {
        return new TimelineEntry(kind, actor, text, null, null, null);
    }
}
