package dev.cadre.platform.audit;

import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The audit trail, newest first, for admins. */
@RestController
@RequestMapping("/api/v1/audit")
class AuditController {

    private final AuditLog audit;

    AuditController(AuditLog audit) {
        this.audit = audit;
    }

    /**
     * Newest first. {@code nextCursor} (as {@code cursor}) continues with older entries, null on the
     * last page; {@code nextBefore} is the same position as a number, for the older {@code before}.
     */
    record AuditPage(
            List<AuditLog.Entry> items,
            @Nullable Long nextBefore,
            @Nullable String nextCursor,
            boolean hasMore) {}

    @Operation(
            summary = "List the audit log, newest first",
            description = "Filters: actor and target (exact), action (exact, or a prefix ending in '.' such as"
                    + " 'api_key.'), from (inclusive) and to (exclusive) as ISO-8601 instants.")
    @GetMapping
    AuditPage list(
            @RequestParam(required = false) @Nullable Long before,
            @RequestParam(required = false) @Nullable String cursor,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit,
            @RequestParam(required = false) @Nullable String actor,
            @RequestParam(required = false) @Nullable String action,
            @RequestParam(required = false) @Nullable String target,
            @RequestParam(required = false) @Nullable String from,
            @RequestParam(required = false) @Nullable String to) {
        var filter = new AuditLog.Filter(
                blankToNull(actor), blankToNull(action), blankToNull(target), time("from", from), time("to", to));
        Long start = before;
        if (cursor != null && !cursor.isBlank()) {
            try {
                start = Long.parseLong(cursor.trim());
            } catch (NumberFormatException e) {
                throw ApiProblem.badField(
                                "cursor", "not a cursor this server handed out (use nextCursor of the previous page)")
                        .with("parameter", "cursor");
            }
        }
        // Keyset on the id; one row more than the page tells whether there is a next one.
        List<AuditLog.Entry> rows = audit.list(filter, start, limit + 1);
        boolean more = rows.size() > limit;
        List<AuditLog.Entry> items = more ? rows.subList(0, limit) : rows;
        Long next = more ? items.getLast().id() : null;
        return new AuditPage(items, next, next == null ? null : Long.toString(next), more);
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static java.time.@Nullable Instant time(String name, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return java.time.Instant.parse(value.trim());
        } catch (java.time.format.DateTimeParseException e) {
            throw ApiProblem.badField(name, "'" + value + "' is not an ISO-8601 instant (e.g. 2026-12-01T00:00:00Z)")
                    .with("parameter", name);
        }
    }
}
