package dev.cadre.platform.replay;

import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * Exports a finished run as an incident case (issue 25): the body is the operator's expectations. The
 * same recording without expectations is readable as JSON, so a client (the console's "Save as case")
 * can offer the run's findings and actions to judge without re-reading the events itself.
 */
@RestController
@RequestMapping("/api/v1/runs")
class CaseController {

    static final String YAML = "application/yaml";

    private final RunService runs;
    private final CaseRecorder recorder;
    private final CaseFile cases;

    CaseController(RunService runs, CaseRecorder recorder, CaseFile cases) {
        this.runs = runs;
        this.recorder = recorder;
        this.cases = cases;
    }

    /**
     * A finished run recorded as a case, without expectations: the case format's fields (docs/replay.md)
     * but {@code expect}, as JSON.
     */
    record RecordedCase(
            int version,
            String name,
            @Nullable String recordedFrom,
            IncidentCase.Input input,
            List<IncidentCase.Call> calls,
            List<IncidentCase.Subagent> subagents,
            List<JsonNode> findings,
            @Nullable JsonNode incident,
            List<IncidentCase.Action> actions,
            List<IncidentCase.Decision> decisions,
            @Nullable String result) {}

    @Operation(
            summary = "A finished run recorded as an incident case, without expectations (JSON)",
            description = "What POST /api/v1/runs/{id}/case would record, without the expectations: input, tool"
                    + " calls with their redacted outputs, subagent tree, findings, incident, proposed actions and"
                    + " human decisions, so a client can offer them to judge (the console's Save as case). 409"
                    + " while the run has not finished (docs/replay.md).")
    @ApiResponse(responseCode = "200", description = "The recorded case without expectations")
    @ApiResponse(responseCode = "404", description = "No such run")
    @ApiResponse(responseCode = "409", description = "The run has not finished yet")
    @GetMapping("/{id}/case")
    RecordedCase recordedCase(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        IncidentCase c = recorder.record(finished(caller.scope(), id), "run-" + id, IncidentCase.Expectations.NONE);
        return new RecordedCase(
                c.version(),
                c.name(),
                c.recordedFrom(),
                c.input(),
                c.calls(),
                c.subagents(),
                c.findings(),
                c.incident(),
                c.actions(),
                c.decisions(),
                c.result());
    }

    @Operation(
            summary = "Export a finished run as an incident case (YAML) with the given expectations",
            description = "Exports a finished run (plain or workflow) as an incident case in YAML: its input, every"
                    + " tool call with its redacted output, the subagent tree, findings, incident, proposed actions"
                    + " and human decisions, with the expectations given in the body (expected root cause and"
                    + " findings, red herrings, expected and forbidden actions). 409 while the run has not"
                    + " finished; 400 names an invalid expectation (docs/replay.md).")
    @ApiResponse(
            responseCode = "200",
            description = "The case as YAML (docs/replay.md)",
            content = @Content(mediaType = YAML, schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "400", description = "An expectation is invalid: 'field' names it")
    @ApiResponse(responseCode = "404", description = "No such run")
    @ApiResponse(responseCode = "409", description = "The run has not finished yet")
    @PostMapping(value = "/{id}/case", produces = YAML)
    String exportCase(
            @PathVariable String id,
            @RequestParam(required = false) @Nullable String name,
            @RequestBody(required = false) @Nullable JsonNode expect,
            @AuthenticationPrincipal CadrePrincipal caller) {
        RunRecord run = finished(caller.scope(), id);
        IncidentCase.Expectations expectations;
        try {
            expectations = cases.readExpectations("body", expect);
        } catch (CaseFormatException e) {
            String first = e.errors().getFirst().substring("body: ".length());
            int colon = first.indexOf(": ");
            throw new ApiProblem(HttpStatus.BAD_REQUEST, "invalid-field", "Invalid request field", first)
                    .with("field", colon < 0 ? "body" : first.substring(0, colon))
                    .with("errors", e.errors());
        }
        String caseName = name == null || name.isBlank() ? "run-" + id : name;
        return cases.write(recorder.record(run, caseName, expectations));
    }

    private RunRecord finished(TeamScope scope, String id) {
        RunRecord run = runs.get(scope, id);
        if (!run.status().terminal()) {
            throw ApiProblem.conflict(
                    "run '" + id + "' is " + run.status().wire() + ": only a finished run can be recorded as a case");
        }
        return run;
    }
}
