package dev.cadre.platform.recall;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What Cadre remembers of one resolved incident: its symptoms (alert, labels, target, findings with
 * their evidence), the root cause and fix the resolver recorded, the actions taken with their verified
 * outcome, how long it took and who resolved it. Derived from the incident record (which stays the
 * one owner, {@link ResolutionRecords#from}); never stored on its own.
 */
public record ResolutionRecord(
        String incidentId,
        long version,
        String title,
        String alertName,
        String targetKind,
        String targetName,
        String service,
        String namespace,
        Map<String, String> labels,
        String summary,
        List<Finding> findings,
        String rootCause,
        String fix,
        List<Action> actions,
        Instant openedAt,
        @Nullable Instant resolvedAt,
        @Nullable String resolvedBy) {

    public ResolutionRecord {
        labels = Map.copyOf(labels);
        findings = List.copyOf(findings);
        actions = List.copyOf(actions);
    }

    /** A finding of a run on the incident: what was seen and the evidence for it. */
    public record Finding(String category, String description, String evidence) {}

    /** An action taken on the incident and its verified outcome ({@code SUCCEEDED}, {@code FAILED}, …). */
    public record Action(String action, String verdict, String summary) {}

    /** Whether someone recorded why it happened or what fixed it (the part worth remembering). */
    public boolean hasResolution() {
        return !rootCause.isBlank() || !fix.isBlank();
    }

    /** Opened to resolved, or null while it is not resolved. */
    public @Nullable Duration timeToResolve() {
        return resolvedAt == null ? null : Duration.between(openedAt, resolvedAt);
    }
}
