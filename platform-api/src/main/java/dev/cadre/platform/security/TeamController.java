package dev.cadre.platform.security;

import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.tenancy.Team;
import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamStore;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.net.URI;
import java.time.Instant;
import java.util.List;
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
import org.springframework.web.bind.annotation.RestController;

/**
 * Teams: platform admins create them; every caller reads the teams it may act in (a platform admin
 * all of them, anyone else its own), so another team's name is not revealed.
 */
@RestController
@RequestMapping("/api/v1/teams")
class TeamController {

    private final TeamStore teams;
    private final AuditLog audit;

    TeamController(TeamStore teams, AuditLog audit) {
        this.teams = teams;
        this.audit = audit;
    }

    record CreateTeamRequest(
            @NotBlank @Size(max = 63) String name,
            @Nullable @Size(max = 200) String title) {}

    /** A team as the API shows it. */
    record TeamView(String name, String title, Instant createdAt, String createdBy) {
        static TeamView of(Team t) {
            return new TeamView(t.id().name(), t.title(), t.createdAt(), t.createdBy());
        }
    }

    @Operation(
            summary = "List the teams the caller may act in",
            description = "All teams for a platform admin; the caller's own team for anyone else, so that other"
                    + " teams' names are not revealed.")
    @GetMapping
    List<TeamView> list(@AuthenticationPrincipal CadrePrincipal caller) {
        return teams.list().stream()
                .filter(t -> caller.platformAdmin() || t.id().equals(caller.team()))
                .map(TeamView::of)
                .toList();
    }

    @Operation(
            summary = "Get a team the caller may act in",
            description = "Another team answers 404 to anyone but a platform admin, as a team that does not exist.")
    @ApiResponse(responseCode = "200", description = "The team")
    @ApiResponse(responseCode = "404", description = "No such team, or not one the caller may act in")
    @GetMapping("/{name}")
    TeamView get(@PathVariable String name, @AuthenticationPrincipal CadrePrincipal caller) {
        return TeamId.parse(name)
                .filter(id -> caller.platformAdmin() || id.equals(caller.team()))
                .flatMap(teams::find)
                .map(TeamView::of)
                .orElseThrow(() -> ApiProblem.notFound("team", name));
    }

    @Operation(
            summary = "Create a team (platform admins)",
            description = "The name is the team's identity, a DNS label (1 to 63 of a-z, 0-9 and '-'); it is never"
                    + " reused. Keys are then created in the team with POST /api/v1/keys and its 'team' field.")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "The name is not a team name: 'field' names it")
    @ApiResponse(responseCode = "409", description = "A team of that name exists")
    @PostMapping(produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<TeamView> create(
            @Valid @RequestBody CreateTeamRequest body, @AuthenticationPrincipal CadrePrincipal caller) {
        TeamId id = TeamId.parse(body.name())
                .orElseThrow(() -> ApiProblem.badField(
                                "name",
                                "'" + body.name() + "' is not a team name: use 1 to 63 of a-z, 0-9 and '-', starting"
                                        + " and ending with a letter or digit")
                        .with("value", body.name()));
        String title = body.title() == null || body.title().isBlank()
                ? id.name()
                : body.title().strip();
        if (!teams.create(id, title, caller.name())) {
            throw ApiProblem.conflict("a team named '" + id + "' exists already (team names are never reused)");
        }
        audit.record(caller.name(), "team.create", id.name(), "title=" + title);
        Team created = teams.find(id).orElseThrow();
        return ResponseEntity.status(HttpStatus.CREATED)
                .location(URI.create("/api/v1/teams/" + id.name()))
                .body(TeamView.of(created));
    }
}
