package dev.cadre.platform.recall;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One similar past incident as the REST API and the {@code incident_similar} tool show it: where it
 * happened, what caused it and what fixed it, the actions with their verified outcome, how long it
 * took and who resolved it, and how alike it reads ({@code similarity}: cosine of the symptoms, 0–1).
 */
record SimilarIncidentView(
        String incident,
        String title,
        String alertName,
        String targetKind,
        String target,
        String service,
        String namespace,
        String rootCause,
        String fix,
        List<ActionView> actions,
        @Nullable String resolvedAt,
        @Nullable String resolvedBy,
        @Nullable Long timeToResolveSeconds,
        double similarity,
        double score,
        @Nullable Integer lexicalRank,
        @Nullable Integer semanticRank) {

    /** An action taken on the past incident and its verified outcome. */
    record ActionView(String action, String verdict, String summary) {}

    static SimilarIncidentView of(SimilarIncident s) {
        ResolutionRecord r = s.record();
        return new SimilarIncidentView(
                r.incidentId(),
                r.title(),
                r.alertName(),
                r.targetKind().toLowerCase(Locale.ROOT),
                r.targetName(),
                r.service(),
                r.namespace(),
                r.rootCause(),
                r.fix(),
                r.actions().stream()
                        .map(a -> new ActionView(a.action(), a.verdict(), a.summary()))
                        .toList(),
                r.resolvedAt() == null ? null : r.resolvedAt().toString(),
                r.resolvedBy(),
                r.timeToResolve() == null ? null : r.timeToResolve().toSeconds(),
                Double.isNaN(s.similarity()) ? 0 : Math.round(s.similarity() * 1000) / 1000.0,
                Math.round(s.score() * 100000) / 100000.0,
                s.lexicalRank(),
                s.semanticRank());
    }
}
