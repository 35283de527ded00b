package dev.cadre.platform.memory;

import dev.cadre.memory.EntryPage;
import dev.cadre.memory.InvalidMemoryRequestException;
import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.Problems;
import dev.cadre.platform.web.SecretRedactor;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Shared memory over HTTP. Versions map onto HTTP preconditions: the {@code ETag} is the version,
 * {@code If-Match} is the expected version (412 with the current entry on a conflict),
 * {@code If-None-Match: *} creates only if absent, and a write without a precondition is refused
 * with 428 — a blind overwrite is exactly the lost update this API exists to prevent.
 */
@RestController
@RequestMapping("/api/v1/memory")
class MemoryController {

    private final SharedMemory memory;
    private final MemoryEvents events;
    private final JsonMapper json;
    private final SecretRedactor redactor;

    private final AuditLog audit;

    MemoryController(
            SharedMemory memory, MemoryEvents events, JsonMapper json, AuditLog audit, SecretRedactor redactor) {
        this.audit = audit;
        this.redactor = redactor;
        this.memory = memory;
        this.events = events;
        this.json = json;
    }

    record WriterView(String kind, String id, @Nullable String run) {
        static WriterView of(Writer w) {
            return new WriterView(w.kind(), w.id(), w.run());
        }
    }

    record EntryView(
            String namespace, String key, JsonNode value, long version, Instant updatedAt, WriterView updatedBy) {}

    record VersionView(
            long version, @Nullable JsonNode value, boolean deleted, Instant updatedAt, WriterView updatedBy) {}

    record HistoryView(String namespace, String key, List<VersionView> versions) {}

    record WrittenView(String namespace, String key, long version) {}

    record PageView(
            String namespace,
            List<EntryView> items,
            @Nullable String nextAfter) {}

    @Operation(summary = "Read an entry")
    @ApiResponse(
            responseCode = "200",
            description = "The entry; its ETag is its version",
            headers = @Header(name = "ETag", description = "The version", schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "304", description = "Not modified: If-None-Match named the current version")
    @GetMapping("/{namespace}/{key}")
    ResponseEntity<EntryView> get(
            @PathVariable String namespace,
            @PathVariable String key,
            @RequestParam(defaultValue = "false") boolean consistent,
            @RequestHeader(value = HttpHeaders.IF_NONE_MATCH, required = false) @Nullable String ifNoneMatch) {
        MemoryEntry entry = memory.get(namespace, key, consistent)
                .orElseThrow(() -> ApiProblem.notFound("memory entry", namespace + "/" + key));
        String etag = etag(entry.version());
        if (ifNoneMatch != null && ifNoneMatch.trim().equals(etag)) {
            return ResponseEntity.status(HttpStatus.NOT_MODIFIED).eTag(etag).build();
        }
        return ResponseEntity.ok().eTag(etag).body(view(entry));
    }

    @Operation(summary = "Write an entry: If-Match: \"<version>\" to update, If-None-Match: * to create")
    @ApiResponse(
            responseCode = "200",
            description = "Updated",
            content = @Content(schema = @Schema(implementation = WrittenView.class)),
            headers = @Header(name = "ETag", description = "The new version", schema = @Schema(type = "string")))
    @ApiResponse(
            responseCode = "201",
            description = "Created",
            content = @Content(schema = @Schema(implementation = WrittenView.class)),
            headers = @Header(name = "ETag", description = "The new version", schema = @Schema(type = "string")))
    @ApiResponse(
            responseCode = "412",
            description = "Version conflict: the problem carries the current entry and version")
    @ApiResponse(responseCode = "428", description = "Neither If-Match nor If-None-Match was sent")
    @ApiResponse(responseCode = "403", description = "A platform namespace (incidents): read-only over the API")
    @PutMapping(
            value = "/{namespace}/{key}",
            consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<?> put(
            @PathVariable String namespace,
            @PathVariable String key,
            @RequestBody JsonNode value,
            @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) @Nullable String ifMatch,
            @RequestHeader(value = HttpHeaders.IF_NONE_MATCH, required = false) @Nullable String ifNoneMatch,
            @RequestHeader(value = "Idempotency-Key", required = false) @Nullable String idempotencyKey,
            @AuthenticationPrincipal CadrePrincipal caller) {
        refusePlatformNamespace(namespace, key, caller, "write");
        long expected = expectedVersion(ifMatch, ifNoneMatch, true);
        // The parsed body goes to memory as a tree: canonicalised once, not printed and re-parsed.
        WriteOutcome outcome =
                memory.put(namespace, key, value, expected, Writer.apiClient(caller.name()), idempotencyKey);
        return switch (outcome) {
            case WriteOutcome.Written w -> {
                var builder = expected == 0
                        ? ResponseEntity.created(URI.create("/api/v1/memory/" + namespace + "/" + key))
                        : ResponseEntity.ok();
                yield builder.eTag(etag(w.version())).body(new WrittenView(namespace, key, w.version()));
            }
            case WriteOutcome.Conflict c -> conflict(namespace, key, c);
        };
    }

    @Operation(summary = "Delete an entry (If-Match: \"<version>\")")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @ApiResponse(responseCode = "204", description = "Deleted")
    @ApiResponse(
            responseCode = "412",
            description = "Version conflict: the problem carries the current entry and version")
    @ApiResponse(responseCode = "428", description = "If-Match was not sent")
    @ApiResponse(responseCode = "403", description = "A platform namespace (incidents): read-only over the API")
    @DeleteMapping("/{namespace}/{key}")
    ResponseEntity<?> delete(
            @PathVariable String namespace,
            @PathVariable String key,
            @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) @Nullable String ifMatch,
            @RequestHeader(value = "Idempotency-Key", required = false) @Nullable String idempotencyKey,
            @AuthenticationPrincipal CadrePrincipal caller) {
        refusePlatformNamespace(namespace, key, caller, "delete");
        long expected = expectedVersion(ifMatch, null, false);
        WriteOutcome outcome = memory.delete(namespace, key, expected, Writer.apiClient(caller.name()), idempotencyKey);
        return switch (outcome) {
            case WriteOutcome.Written w ->
                ResponseEntity.noContent().eTag(etag(w.version())).build();
            case WriteOutcome.Conflict c -> conflict(namespace, key, c);
        };
    }

    /**
     * The platform's own namespaces (incident records: status, remediation window, escalation) change
     * only through the platform — the incident tools and the Alertmanager intake. Over REST they are
     * read-only: a write is refused with 403 naming the namespace, and the attempt is audited.
     */
    private void refusePlatformNamespace(String namespace, String key, CadrePrincipal caller, String what) {
        if (!AgentCatalog.PLATFORM_NAMESPACES.contains(namespace)) {
            return;
        }
        audit.record(
                caller.name(),
                "memory.write_refused",
                namespace + "/" + key,
                what + " refused: '" + namespace + "' is a platform namespace, read-only over REST (key "
                        + caller.keyId() + ")");
        throw new ApiProblem(
                        HttpStatus.FORBIDDEN,
                        "read-only-namespace",
                        "Read-only namespace",
                        "namespace '" + namespace + "' is the platform's own (incident records) and read-only over"
                                + " the API; incidents change through the incident tools and the Alertmanager intake")
                .with("namespace", namespace);
    }

    @Operation(summary = "An entry's versions, oldest first")
    @GetMapping("/{namespace}/{key}/history")
    HistoryView history(@PathVariable String namespace, @PathVariable String key) {
        List<MemoryVersion> versions = memory.history(namespace, key);
        if (versions.isEmpty()) {
            throw ApiProblem.notFound("memory entry", namespace + "/" + key);
        }
        return redactor.redacted(
                new HistoryView(
                        namespace,
                        key,
                        versions.stream()
                                .map(v -> new VersionView(
                                        v.version(),
                                        v.value() == null ? null : json.readTree(v.value()),
                                        v.deleted(),
                                        v.updatedAt(),
                                        WriterView.of(v.updatedBy())))
                                .toList()),
                HistoryView.class);
    }

    @Operation(summary = "List a namespace's entries by key")
    @GetMapping("/{namespace}")
    PageView list(
            @PathVariable String namespace,
            @RequestParam(defaultValue = "") String prefix,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        EntryPage page = memory.list(namespace, prefix, after, limit);
        return new PageView(namespace, page.entries().stream().map(this::view).toList(), page.nextAfterKey());
    }

    @Operation(summary = "Follow a namespace's changes (server-sent events)")
    @GetMapping(value = "/{namespace}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    SseEmitter events(
            @PathVariable String namespace,
            @RequestHeader(value = "Last-Event-ID", required = false) @Nullable String lastEventId,
            @RequestParam(required = false) @Nullable Long cursor) {
        long from;
        if (lastEventId != null) {
            try {
                from = Long.parseLong(lastEventId.trim());
            } catch (NumberFormatException e) {
                throw ApiProblem.badHeader("Last-Event-ID", "must be a cursor number from a previous event");
            }
        } else {
            from = cursor != null ? cursor : memory.latestCursor();
        }
        return events.stream(namespace, from);
    }

    @ExceptionHandler(InvalidMemoryRequestException.class)
    ResponseEntity<ProblemDetail> invalid(InvalidMemoryRequestException e) {
        ProblemDetail pd =
                Problems.of(HttpStatus.BAD_REQUEST, "invalid-memory-request", "Invalid memory request", e.getMessage());
        pd.setProperty("field", e.field());
        return Problems.response(pd);
    }

    private ResponseEntity<ProblemDetail> conflict(String namespace, String key, WriteOutcome.Conflict c) {
        ProblemDetail pd = Problems.of(
                HttpStatus.PRECONDITION_FAILED,
                "version-conflict",
                "Version conflict",
                c.current() == null && c.currentVersion() == 0
                        ? namespace + "/" + key + " does not exist"
                        : namespace + "/" + key + " is at version " + c.currentVersion()
                                + ": re-read, re-decide and retry with If-Match: \"" + c.currentVersion() + "\"");
        pd.setProperty("currentVersion", c.currentVersion());
        pd.setProperty("current", c.current() == null ? null : view(c.current()));
        var response =
                ResponseEntity.status(HttpStatus.PRECONDITION_FAILED).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (c.currentVersion() > 0) {
            response.eTag(etag(c.currentVersion()));
        }
        return response.body(pd);
    }

    private static long expectedVersion(@Nullable String ifMatch, @Nullable String ifNoneMatch, boolean mayCreate) {
        if (ifMatch != null && ifNoneMatch != null) {
            throw ApiProblem.badHeader("If-Match", "send either If-Match or If-None-Match, not both");
        }
        if (ifNoneMatch != null) {
            if (!mayCreate || !ifNoneMatch.trim().equals("*")) {
                throw ApiProblem.badHeader("If-None-Match", "only '*' (create if absent) is supported on writes");
            }
            return 0;
        }
        if (ifMatch == null) {
            throw new ApiProblem(
                            HttpStatus.PRECONDITION_REQUIRED,
                            "precondition-required",
                            "Precondition required",
                            "send If-Match: \"<version>\" (from the ETag you read)"
                                    + (mayCreate ? " or If-None-Match: * to create" : ""))
                    .with("header", "If-Match");
        }
        String v = ifMatch.trim();
        if (v.startsWith("W/")) {
            v = v.substring(2);
        }
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        try {
            long version = Long.parseLong(v);
            if (version < 1) {
                throw ApiProblem.badHeader("If-Match", "the version must be 1 or more");
            }
            return version;
        } catch (NumberFormatException e) {
            throw ApiProblem.badHeader("If-Match", "expected a quoted version such as \"3\", got " + ifMatch);
        }
    }

    /**
     * An entry as it leaves, redacted as a whole (issue 23): memory holds what agents and the platform
     * wrote, as written (an agent reads its own values back); whoever reads it over REST gets it
     * without secrets.
     */
    private EntryView view(MemoryEntry e) {
        return redactor.redacted(
                new EntryView(
                        e.namespace(),
                        e.key(),
                        json.readTree(e.value()),
                        e.version(),
                        e.updatedAt(),
                        WriterView.of(e.updatedBy())),
                EntryView.class);
    }

    private static String etag(long version) {
        return "\"" + version + "\"";
    }
}
