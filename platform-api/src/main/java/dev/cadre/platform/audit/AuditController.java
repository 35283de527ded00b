package dev.cadre.platform.audit;

import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
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

    record AuditPage(List<AuditLog.Entry> items, Long nextBefore) {}

    @Operation(summary = "List the audit log, newest first")
    @GetMapping
    AuditPage list(
            @RequestParam(required = false) Long before,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        List<AuditLog.Entry> items = audit.list(before, limit);
        Long next = items.size() == limit ? items.getLast().id() : null;
        return new AuditPage(items, next);
    }
}
