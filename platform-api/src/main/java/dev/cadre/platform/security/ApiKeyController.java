package dev.cadre.platform.security;

import dev.cadre.platform.security.ApiKeyService.ApiKeyView;
import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Admin management of API keys; a new key's secret appears in the creation response only. */
@RestController
@RequestMapping("/api/v1/keys")
class ApiKeyController {

    private final ApiKeyService keys;

    ApiKeyController(ApiKeyService keys) {
        this.keys = keys;
    }

    record CreateKeyRequest(
            @NotBlank @Size(max = 100) String name,

            @NotBlank
            @Pattern(
                    regexp = "(?i)viewer|operator|admin|intake|agent",
                    message = "must be viewer, operator, admin, intake or agent")
            String role,

            // The team the key acts in: the creator's when absent.
            @Nullable @Size(max = 63) String team,

            // Spans all teams (role admin only); only a platform admin may create one.
            @Nullable Boolean platformAdmin) {}

    record CreatedKeyResponse(ApiKeyView key, String secret, String note) {}

    @Operation(summary = "List API keys")
    @GetMapping
    List<ApiKeyView> list(@AuthenticationPrincipal CadrePrincipal caller) {
        return keys.list(keysOf(caller));
    }

    /** A team admin manages its own team's keys; a platform admin every team's. */
    private static TeamScope keysOf(CadrePrincipal caller) {
        return caller.platformAdmin()
                ? TeamScope.allTeams("a platform admin manages every team's keys")
                : caller.scope();
    }

    @Operation(summary = "Create an API key; its secret is shown once")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<CreatedKeyResponse> create(
            @Valid @RequestBody CreateKeyRequest body, @AuthenticationPrincipal CadrePrincipal actor) {
        TeamId team = body.team() == null
                ? actor.team()
                : TeamId.parse(body.team())
                        .orElseThrow(() -> ApiProblem.badField(
                                        "team",
                                        "'" + body.team() + "' is not a team name: use 1 to 63 of a-z, 0-9 and '-',"
                                                + " starting and ending with a letter or digit")
                                .with("value", body.team()));
        boolean platformAdmin = Boolean.TRUE.equals(body.platformAdmin());
        if (!actor.platformAdmin() && platformAdmin) {
            throw new ApiProblem(
                    HttpStatus.FORBIDDEN,
                    "forbidden",
                    "Only a platform admin may create a platform admin key",
                    "platformAdmin: your key is an admin of team '" + actor.team() + "' only");
        }
        if (!actor.platformAdmin() && !team.equals(actor.team())) {
            throw new ApiProblem(
                    HttpStatus.FORBIDDEN,
                    "forbidden",
                    "Keys of another team are created by a platform admin",
                    "team: your key is an admin of team '" + actor.team() + "' only");
        }
        var created = keys.create(body.name(), Role.parse(body.role()), team, platformAdmin, actor.name());
        return ResponseEntity.created(URI.create("/api/v1/keys/" + created.key().id()))
                .body(new CreatedKeyResponse(
                        created.key(), created.secret(), "store the secret now: it is not shown again"));
    }

    @Operation(
            summary = "Rotate an API key: a new secret, shown once",
            description = "The same key (id, name, team, role) takes a new secret; the old one stops working at"
                    + " once on this instance and within cadre.security.key-cache-ttl on others. 404 for a key of"
                    + " another team (to a team admin), 409 for a revoked key.")
    @ApiResponse(responseCode = "200", description = "The key and its new secret")
    @ApiResponse(responseCode = "404", description = "No such key (in the caller's team)")
    @ApiResponse(responseCode = "409", description = "The key is revoked")
    @PostMapping(value = "/{id}/rotate", produces = MediaType.APPLICATION_JSON_VALUE)
    CreatedKeyResponse rotate(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal actor) {
        var rotated =
                keys.rotate(keysOf(actor), id, actor.name()).orElseThrow(() -> ApiProblem.notFound("API key", id));
        return new CreatedKeyResponse(rotated.key(), rotated.secret(), "store the secret now: it is not shown again");
    }

    @Operation(summary = "Revoke an API key")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @DeleteMapping("/{id}")
    ResponseEntity<Void> revoke(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal actor) {
        if (!keys.revoke(keysOf(actor), id, actor.name())) {
            throw ApiProblem.notFound("API key", id);
        }
        return ResponseEntity.noContent().build();
    }
}
