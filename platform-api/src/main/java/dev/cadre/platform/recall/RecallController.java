package dev.cadre.platform.recall;

import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** "Seen this before?" over REST: similar past incidents of an incident, and the memory's state. */
@RestController
class RecallController {

    private final RecallService recall;

    RecallController(RecallService recall) {
        this.recall = recall;
    }

    /** The past incidents like one incident, best first. */
    record SimilarResponse(String incident, int remembered, List<SimilarIncidentView> items) {}

    /** How much the memory holds and when it was last rebuilt from the database. */
    record StatusResponse(
            boolean ready,
            int remembered,
            long indexBytes,
            @Nullable String lastRebuildAt,
            @Nullable Long lastRebuildMillis) {}

    @Operation(
            operationId = "incidentSimilar",
            summary = "Similar past incidents",
            description = "Resolved incidents whose symptoms (alert, summary, labels, findings) are like this"
                    + " incident's, best first, with their root cause, fix, verified actions, time to resolve and"
                    + " who resolved them. Ranked by Lucene BM25 and MiniLM embeddings fused by reciprocal rank;"
                    + " 'mode' = hybrid (default), lexical or semantic. Filters: sameKind (target kind), sameService,"
                    + " sameNamespace, within (ISO-8601 duration, e.g. P90D: resolved since). 'limit' 1-50"
                    + " (default 5). 'similarity' is the cosine of the symptoms (0-1).")
    @GetMapping("/api/v1/incidents/{id}/similar")
    SimilarResponse similar(
            @PathVariable String id,
            @RequestParam(defaultValue = "5") int limit,
            @RequestParam(defaultValue = "false") boolean sameKind,
            @RequestParam(defaultValue = "false") boolean sameService,
            @RequestParam(defaultValue = "false") boolean sameNamespace,
            @RequestParam(required = false) @Nullable String within,
            @RequestParam(defaultValue = "hybrid") String mode) {
        if (limit < 1 || limit > SimilarQuery.MAX_LIMIT) {
            throw ApiProblem.badField("limit", "must be 1 to " + SimilarQuery.MAX_LIMIT)
                    .with("parameter", "limit");
        }
        SimilarQuery.Mode m;
        try {
            m = SimilarQuery.Mode.parse(mode);
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badField("mode", "must be hybrid, lexical or semantic")
                    .with("parameter", "mode");
        }
        Duration w = null;
        if (within != null && !within.isBlank()) {
            try {
                w = Duration.parse(within.strip());
            } catch (DateTimeParseException e) {
                throw ApiProblem.badField("within", "must be an ISO-8601 duration such as P90D or PT12H")
                        .with("parameter", "within");
            }
            if (w.isNegative() || w.isZero()) {
                throw ApiProblem.badField("within", "must be a positive duration")
                        .with("parameter", "within");
            }
        }
        var found = recall.similarTo(id, new RecallService.Filters(sameKind, sameService, sameNamespace, w, limit, m))
                .orElseThrow(() -> ApiProblem.notFound("incident", id));
        return new SimilarResponse(
                id,
                recall.status().indexed(),
                found.stream().map(SimilarIncidentView::of).toList());
    }

    @Operation(
            operationId = "incidentMemoryStatus",
            summary = "State of the incident memory",
            description = "How many resolved incidents are indexed, the index's size in bytes, and the last"
                    + " rebuild or reconciliation from the database.")
    @GetMapping("/api/v1/incident-memory")
    StatusResponse status() {
        return view(recall.status());
    }

    @Operation(
            operationId = "incidentMemoryRebuild",
            summary = "Rebuild the incident memory now",
            description = "Re-reads every incident from the database and repairs the index (the periodic"
                    + " reconciliation, on demand). Operators.")
    @PostMapping("/api/v1/incident-memory/rebuild")
    StatusResponse rebuild() {
        recall.rebuild();
        return view(recall.status());
    }

    private static StatusResponse view(RecallService.Status s) {
        return new StatusResponse(
                s.ready(),
                s.indexed(),
                s.indexBytes(),
                s.lastRebuild() == null ? null : s.lastRebuild().at().toString(),
                s.lastRebuild() == null ? null : s.lastRebuild().took().toMillis());
    }
}
