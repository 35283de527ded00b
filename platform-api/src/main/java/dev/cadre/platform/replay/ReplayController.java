package dev.cadre.platform.replay;

import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Replays of incident cases against a team: start one, read its scores, list them and the case names. */
@RestController
@RequestMapping("/api/v1/replays")
class ReplayController {

    /** The longest case YAML text a request may carry. */
    static final int MAX_CASE_CHARS = 2_000_000;

    private static final Pattern CASE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

    private final ReplayService replays;
    private final Path casesDir;
    private final Path teamsDir;

    ReplayController(
            ReplayService replays,
            @Value("${cadre.replay.cases-dir:cases}") String casesDir,
            @Value("${cadre.replay.teams-dir:teams}") String teamsDir) {
        this.replays = replays;
        this.casesDir = Path.of(casesDir);
        this.teamsDir = Path.of(teamsDir).toAbsolutePath().normalize();
    }

    /**
     * The team value with each path resolved under {@code cadre.replay.teams-dir}: a path that leaves
     * it (absolute elsewhere, {@code ..}, a link out) is refused with the same words whether or not
     * anything exists there, so the API cannot be used to probe the host's files.
     */
    String confined(String team) {
        if (team.equals(CandidateTeams.RUNNING)) {
            return team;
        }
        List<String> resolved = new ArrayList<>();
        for (String part : CandidateTeams.parts(team)) {
            Path p = teamsDir.resolve(part).normalize();
            boolean inside = p.startsWith(teamsDir);
            if (inside && java.nio.file.Files.exists(p)) {
                try {
                    Path real = p.toRealPath();
                    Path root = teamsDir.toRealPath();
                    inside = real.startsWith(root);
                } catch (java.io.IOException e) {
                    inside = false;
                }
            }
            if (!inside) {
                throw ApiProblem.badField(
                        "team",
                        "'" + part + "' is not under the replay teams directory (cadre.replay.teams-dir); name a team"
                                + " YAML or a directory of them relative to it, or 'running'");
            }
            resolved.add(p.toString());
        }
        if (resolved.isEmpty()) {
            throw ApiProblem.badField("team", "empty: 'running' or team paths under cadre.replay.teams-dir");
        }
        return String.join(",", resolved);
    }

    /**
     * {@code suite}: each entry a case's YAML text, or the name of a case file in {@code
     * cadre.replay.cases-dir} ({@code host-disk-full} or {@code host-disk-full.yaml}); {@code team}: {@code
     * running} (default) or the path of a team YAML (or a directory of them) under {@code
     * cadre.replay.teams-dir};
     * {@code name}: the suite's name (metric label, default {@code adhoc}); {@code label}: the team
     * version, free text.
     */
    record StartReplayRequest(
            @Schema(maxLength = 100) @Nullable String name,
            @Schema(maxLength = 200) @Nullable String label,

            @ArraySchema(maxItems = ReplayService.MAX_CASES, schema = @Schema(maxLength = MAX_CASE_CHARS)) @Nullable
            List<String> suite,

            @Schema(maxLength = 2000) @Nullable String team) {}

    /** A case's score; durations in milliseconds. */
    record ScoreView(
            boolean passed,
            boolean rootCauseFound,
            double precision,
            double recall,
            List<String> redHerrings,
            List<String> missedActions,
            List<String> forbiddenProposed,
            List<String> deviations,
            int turns,
            long tokens,
            double cost,
            long durationMs) {}

    /** One case of a replay: its run (a replay run, in the console like any) and, once ended, its score. */
    record CaseView(
            int index,
            String name,
            String runId,
            String runStatus,
            boolean passed,
            @Nullable ScoreView score) {}

    /** The suite's aggregate: counts, mean precision and recall, sums of the rest. */
    record SummaryView(
            int cases,
            int passed,
            int rootCauseFound,
            double precision,
            double recall,
            int redHerrings,
            int missedActions,
            int forbiddenProposed,
            int deviations,
            long turns,
            long tokens,
            double cost,
            long durationMs) {}

    record ReplayView(
            String id,
            String suite,
            @Nullable String label,
            String team,
            String status,
            String submittedBy,
            Instant createdAt,
            @Nullable Instant finishedAt,
            List<CaseView> cases,
            @Nullable SummaryView summary,
            @Nullable String error) {}

    record ReplayList(List<ReplayView> items) {}

    @Operation(
            summary = "Replay incident cases against a team",
            description = "Starts replaying a suite of recorded incident cases (YAML texts, or names of case files"
                    + " in cadre.replay.cases-dir) against the running team or a candidate team YAML given by its path under cadre.replay.teams-dir."
                    + " Each case is an ordinary run marked replay: its tools answer from the recording, its"
                    + " approvals from the recorded decisions, nothing leaves the platform. 400 names the wrong"
                    + " field, e.g. suite[2].version (docs/replay.md).")
    @ApiResponse(responseCode = "202", description = "The replay started; follow it with GET /api/v1/replays/{id}")
    @ApiResponse(responseCode = "400", description = "A wrong field: 'field' names it, 'errors' lists all")
    @PostMapping
    ResponseEntity<ReplayView> start(
            @RequestBody StartReplayRequest body, @AuthenticationPrincipal CadrePrincipal caller) {
        if (body.suite() == null || body.suite().isEmpty()) {
            throw ApiProblem.badField("suite", "required: a list of case YAML texts or case names");
        }
        List<ReplayService.CaseInput> cases = new ArrayList<>();
        for (int i = 0; i < body.suite().size(); i++) {
            String entry = body.suite().get(i);
            String field = "suite[" + i + "]";
            if (entry == null || entry.isBlank()) {
                throw ApiProblem.badField(field, "empty: a case YAML text or a case name");
            }
            if (entry.length() > MAX_CASE_CHARS) {
                throw ApiProblem.badField(field, "at most " + MAX_CASE_CHARS + " characters");
            }
            cases.add(new ReplayService.CaseInput(
                    field, CASE_NAME.matcher(entry).matches() ? read(field, entry) : entry));
        }
        if (body.label() != null && body.label().length() > 200) {
            throw ApiProblem.badField("label", "at most 200 characters");
        }
        if (body.team() != null && body.team().length() > 2000) {
            throw ApiProblem.badField("team", "at most 2000 characters");
        }
        String team = confined(body.team() == null || body.team().isBlank() ? CandidateTeams.RUNNING : body.team());
        String name = body.name() == null || body.name().isBlank() ? "adhoc" : body.name();
        try {
            ReplayService.Replay r = replays.start(name, body.label(), cases, team, caller.actor());
            return ResponseEntity.status(HttpStatus.ACCEPTED).body(view(r));
        } catch (ReplayInputException e) {
            throw new ApiProblem(
                            HttpStatus.BAD_REQUEST,
                            "invalid-field",
                            "Invalid request field",
                            e.errors().getFirst())
                    .with("field", e.field())
                    .with("errors", e.errors());
        }
    }

    private String read(String field, String name) {
        Path file = casesDir.resolve(name.endsWith(".yaml") || name.endsWith(".yml") ? name : name + ".yaml")
                .normalize();
        if (!file.startsWith(casesDir.normalize()) || !Files.isRegularFile(file)) {
            throw ApiProblem.badField(field, "no case '" + name + "' in " + casesDir + " (cadre.replay.cases-dir)")
                    .with("value", name);
        }
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw ApiProblem.badField(field, "cannot read " + file + ": " + e.getMessage());
        }
    }

    @Operation(
            summary = "One replay with its per-case scores",
            description = "A replay's status (running, completed, failed), each case's run and score (root cause"
                    + " found, precision and recall over expected findings, red herrings, missed and forbidden"
                    + " actions, deviations, turns, tokens, cost, duration) and the suite's aggregate once every"
                    + " run has ended.")
    @ApiResponse(responseCode = "200", description = "The replay")
    @ApiResponse(responseCode = "404", description = "No such replay")
    @GetMapping("/{id}")
    ReplayView get(@PathVariable String id) {
        return replays.find(id).map(ReplayController::view).orElseThrow(() -> ApiProblem.notFound("replay", id));
    }

    /** The case files a suite can name. */
    record CaseList(String dir, List<String> items) {}

    @Operation(
            summary = "Case names a replay can use",
            description = "The names of the case files in cadre.replay.cases-dir (without .yaml), sorted: what"
                    + " POST /api/v1/replays accepts in suite besides case YAML texts. Empty when the directory"
                    + " does not exist.")
    @ApiResponse(responseCode = "200", description = "The case names")
    @GetMapping("/cases")
    CaseList cases() {
        if (!Files.isDirectory(casesDir)) {
            return new CaseList(casesDir.toString(), List.of());
        }
        try (java.util.stream.Stream<Path> files = Files.list(casesDir)) {
            List<String> names = files.filter(Files::isRegularFile)
                    .map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml") || n.endsWith(".yml"))
                    .map(n -> n.substring(0, n.lastIndexOf('.')))
                    .filter(n -> CASE_NAME.matcher(n).matches())
                    .sorted()
                    .toList();
            return new CaseList(casesDir.toString(), names);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + casesDir + " (cadre.replay.cases-dir)", e);
        }
    }

    @Operation(summary = "Replays, newest first", description = "The newest replays with their scores, newest first.")
    @ApiResponse(responseCode = "200", description = "The replays")
    @GetMapping
    ReplayList list(@RequestParam(defaultValue = "50") int limit) {
        if (limit < 1 || limit > 200) {
            throw ApiProblem.badField("limit", "must be 1 to 200").with("parameter", "limit");
        }
        return new ReplayList(
                replays.list(limit).stream().map(ReplayController::view).toList());
    }

    static ReplayView view(ReplayService.Replay r) {
        SuiteScore s = r.summary();
        return new ReplayView(
                r.id(),
                r.suite(),
                r.label(),
                r.team(),
                r.status(),
                r.submittedBy(),
                r.createdAt(),
                r.finishedAt(),
                r.cases().stream().map(ReplayController::view).toList(),
                s == null
                        ? null
                        : new SummaryView(
                                s.cases(),
                                s.passed(),
                                s.rootCauseFound(),
                                s.precision(),
                                s.recall(),
                                s.redHerrings(),
                                s.missedActions(),
                                s.forbiddenProposed(),
                                s.deviations(),
                                s.turns(),
                                s.tokens(),
                                s.cost(),
                                s.duration().toMillis()),
                r.error());
    }

    private static CaseView view(CaseResult c) {
        CaseScore s = c.score();
        return new CaseView(
                c.index(),
                c.caseName(),
                c.runId(),
                c.runStatus(),
                c.passed(),
                s == null
                        ? null
                        : new ScoreView(
                                s.passed(),
                                s.rootCauseFound(),
                                s.precision(),
                                s.recall(),
                                s.redHerrings(),
                                s.missedActions(),
                                s.forbiddenProposed(),
                                s.deviations(),
                                s.turns(),
                                s.tokens(),
                                s.cost(),
                                s.duration().toMillis()));
    }
}
