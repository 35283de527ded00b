package dev.cadre.platform.evals;

import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** Routing evaluations: start one from a shipped suite or a suite in the request, follow it, read its report. */
@RestController
@RequestMapping("/api/v1/evals")
class EvalController {

    private final EvalService evals;

    EvalController(EvalService evals) {
        this.evals = evals;
    }

    /**
     * Either {@code suite} (the name of a shipped suite, GET /api/v1/evals/suites) or {@code
     * definition} (a suite as a JSON object, or as YAML/JSON text); {@code repeat} overrides the
     * suite's runs per case.
     */
    record StartEvalRequest(
            @Nullable String suite,
            @Nullable JsonNode definition,
            // The range the controller enforces (400 outside it), stated in the contract.
            @Schema(minimum = "1", maximum = "" + EvalSuites.MAX_REPEAT) @Nullable
            Integer repeat) {}

    record EvalView(
            String id,
            String suite,
            String agent,
            int repeat,
            String status,
            String submittedBy,
            Instant createdAt,
            @Nullable Instant finishedAt,
            int runs,
            @Nullable Double routingAccuracy,
            @Nullable Double misrouteRate,
            @Nullable String error,
            @Nullable JsonNode report,
            Map<String, String> links) {}

    record EvalPage(List<EvalView> items, @Nullable String nextCursor) {}

    record SuiteView(String name, String agent, int repeat, int cases, List<String> caseNames) {}

    @Operation(summary = "Start an evaluation of a suite")
    @ResponseStatus(HttpStatus.ACCEPTED)
    @ApiResponse(responseCode = "202", description = "Accepted: its runs are submitted; follow it at Location")
    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<EvalView> start(@RequestBody StartEvalRequest body, @AuthenticationPrincipal CadrePrincipal caller) {
        boolean named = body.suite() != null && !body.suite().isBlank();
        boolean given = body.definition() != null && !body.definition().isNull();
        if (named == given) {
            throw ApiProblem.badField(
                    named ? "definition" : "suite",
                    "give exactly one of 'suite' (a shipped suite: "
                            + evals.suites().shipped().keySet() + ") or 'definition' (a suite)");
        }
        EvalSuite suite;
        if (named) {
            suite = evals.suites()
                    .shipped(body.suite())
                    .orElseThrow(() -> ApiProblem.badField(
                                    "suite",
                                    "unknown suite '" + body.suite() + "' (shipped: "
                                            + evals.suites().shipped().keySet() + ")")
                            .with("value", body.suite()));
        } else {
            try {
                suite = body.definition().isString()
                        ? evals.suites().parse(body.definition().asString())
                        : evals.suites().parse(body.definition());
            } catch (EvalSuites.InvalidSuiteException e) {
                throw new ApiProblem(
                                HttpStatus.BAD_REQUEST,
                                "invalid-eval-suite",
                                "Invalid evaluation suite",
                                "definition: " + e.getMessage())
                        .with("field", "definition")
                        .with("problems", e.problems());
            }
        }
        if (body.repeat() != null) {
            if (body.repeat() < 1 || body.repeat() > EvalSuites.MAX_REPEAT) {
                throw ApiProblem.badField("repeat", "must be from 1 to " + EvalSuites.MAX_REPEAT);
            }
            suite = suite.withRepeat(body.repeat());
        }
        EvalStore.Row row = evals.start(suite, named, caller.actor());
        EvalView view = view(row);
        return ResponseEntity.status(HttpStatus.ACCEPTED)
                .location(URI.create(view.links().get("self")))
                .body(view);
    }

    @Operation(summary = "List the shipped evaluation suites")
    @GetMapping(value = "/suites", produces = MediaType.APPLICATION_JSON_VALUE)
    List<SuiteView> suites() {
        return evals.suites().shipped().values().stream()
                .map(s -> new SuiteView(
                        s.name(),
                        s.agent(),
                        s.repeat(),
                        s.cases().size(),
                        s.cases().stream().map(EvalSuite.Case::name).toList()))
                .toList();
    }

    @Operation(summary = "Get an evaluation and, once it has ended, its report")
    @GetMapping(value = "/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    EvalView get(@PathVariable String id) {
        return view(evals.get(id));
    }

    /** Newest first; {@code cursor} is the {@code nextCursor} of the previous page. */
    @Operation(summary = "List evaluations, newest first")
    @GetMapping(produces = MediaType.APPLICATION_JSON_VALUE)
    EvalPage list(
            @RequestParam(required = false) @Nullable String cursor,
            @RequestParam(defaultValue = "20") @Min(1) @Max(100) int limit) {
        List<EvalStore.Row> rows = evals.list(cursor == null || cursor.isBlank() ? null : cursor, limit + 1);
        boolean more = rows.size() > limit;
        List<EvalStore.Row> page = more ? rows.subList(0, limit) : rows;
        // The list is for browsing: reports (which can be large) are read one at a time.
        return new EvalPage(
                page.stream().map(r -> withoutReport(view(r))).toList(),
                more ? page.getLast().id() : null);
    }

    private EvalView view(EvalStore.Row r) {
        String self = "/api/v1/evals/" + r.id();
        return new EvalView(
                r.id(),
                r.suite(),
                r.agent(),
                r.repeat(),
                r.status(),
                r.submittedBy(),
                r.createdAt(),
                r.finishedAt(),
                r.runsTotal(),
                r.routingAccuracy(),
                r.misrouteRate(),
                r.error(),
                evals.report(r),
                Map.of("self", self));
    }

    private static EvalView withoutReport(EvalView v) {
        return new EvalView(
                v.id(),
                v.suite(),
                v.agent(),
                v.repeat(),
                v.status(),
                v.submittedBy(),
                v.createdAt(),
                v.finishedAt(),
                v.runs(),
                v.routingAccuracy(),
                v.misrouteRate(),
                v.error(),
                null,
                v.links());
    }
}
