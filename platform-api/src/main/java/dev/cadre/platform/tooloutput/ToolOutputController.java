package dev.cadre.platform.tooloutput;

import dev.cadre.agent.tool.output.ToolOutputInfo;
import dev.cadre.agent.tool.output.ToolOutputPage;
import dev.cadre.agent.tool.output.ToolOutputs;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The full outputs behind a run's capped tool results, a page at a time (read like the run itself). */
@RestController
class ToolOutputController {

    // A page of the API may be bigger than what a model reads, but stays bounded.
    static final int MAX_PAGE_BYTES = 256 * 1024;

    private final RunService runs;
    private final ToolOutputs outputs;

    ToolOutputController(RunService runs, ToolOutputs outputs) {
        this.runs = runs;
        this.outputs = outputs;
    }

    /** A page of a kept output. */
    record ToolOutputPageView(
            String runId,
            String handle,
            String tool,
            String sessionId,
            String callId,
            long originalBytes,
            long storedBytes,
            long storedLines,
            boolean truncated,
            long offset,
            @Nullable String grep,
            List<LineView> lines,
            @Nullable Long nextOffset) {}

    /** One line and its number (0-based). */
    record LineView(long number, String text) {}

    @Operation(
            summary = "Read the full output behind a capped tool result",
            description = "Lines from 'offset' (0-based), at most 'limit' (1-1000, default 200), only those"
                    + " containing 'grep' (case-insensitive) when given; 'nextOffset' continues, null at the end."
                    + " The output is redacted and bounded (cadre.tools.output.max-stored-bytes).")
    @GetMapping("/api/v1/runs/{id}/tool-outputs/{handle}")
    ToolOutputPageView read(
            @PathVariable String id,
            @PathVariable String handle,
            @RequestParam(defaultValue = "0") long offset,
            @RequestParam(defaultValue = "200") int limit,
            @RequestParam(required = false) @Nullable String grep,
            @AuthenticationPrincipal CadrePrincipal caller) {
        runs.get(caller.scope(), id); // 404 for an unknown run, before anything about its outputs
        if (offset < 0) {
            throw ApiProblem.badField("offset", "must not be negative").with("parameter", "offset");
        }
        if (limit < 1 || limit > ToolOutputs.MAX_PAGE_LINES) {
            throw ApiProblem.badField("limit", "must be 1 to " + ToolOutputs.MAX_PAGE_LINES)
                    .with("parameter", "limit");
        }
        ToolOutputPage page = outputs.read(id, handle, offset, limit, grep, MAX_PAGE_BYTES);
        if (page == null) {
            throw ApiProblem.notFound("tool output", handle).with("runId", id);
        }
        ToolOutputInfo info = page.info();
        return new ToolOutputPageView(
                id,
                handle,
                info.tool(),
                info.sessionId(),
                info.callId(),
                info.originalBytes(),
                info.storedBytes(),
                info.storedLines(),
                info.truncated(),
                page.offset(),
                page.grep(),
                page.lines().stream()
                        .map(l -> new LineView(l.number(), l.text()))
                        .toList(),
                page.nextOffset());
    }
}
