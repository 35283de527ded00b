package dev.cadre.platform.security;

import dev.cadre.platform.security.ApiKeyService.ApiKeyView;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.net.URI;
import java.util.List;
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
            String role) {}

    record CreatedKeyResponse(ApiKeyView key, String secret, String note) {}

    @Operation(summary = "List API keys")
    @GetMapping
    List<ApiKeyView> list() {
        return keys.list();
    }

    @Operation(summary = "Create an API key; its secret is shown once")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<CreatedKeyResponse> create(
            @Valid @RequestBody CreateKeyRequest body, @AuthenticationPrincipal CadrePrincipal actor) {
        var created = keys.create(body.name(), Role.parse(body.role()), actor.name());
        return ResponseEntity.created(URI.create("/api/v1/keys/" + created.key().id()))
                .body(new CreatedKeyResponse(
                        created.key(), created.secret(), "store the secret now: it is not shown again"));
    }

    @Operation(summary = "Revoke an API key")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @DeleteMapping("/{id}")
    ResponseEntity<Void> revoke(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal actor) {
        if (!keys.revoke(id, actor.name())) {
            throw ApiProblem.notFound("API key", id);
        }
        return ResponseEntity.noContent().build();
    }
}
