package dev.cadre.platform.security;

import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Console login: an API key exchanged for a session cookie, so the browser never stores the key. */
@RestController
@RequestMapping("/api/v1/session")
class SessionController {

    private final ApiKeyService keys;
    private final ConsoleSessions sessions;
    private final SecurityAudit audit;

    SessionController(ApiKeyService keys, ConsoleSessions sessions, SecurityAudit audit) {
        this.keys = keys;
        this.sessions = sessions;
        this.audit = audit;
    }

    record LoginRequest(@NotBlank String apiKey) {}

    /** Who is calling; {@code team} is the team it acts in, {@code platformAdmin} whether it spans all. */
    record SessionResponse(String name, String role, String team, boolean platformAdmin, List<String> can) {
        static SessionResponse of(CadrePrincipal p) {
            List<String> can = switch (p.role()) {
                case VIEWER -> List.of("read");
                case OPERATOR -> List.of("read", "operate");
                case ADMIN -> List.of("read", "operate", "admin");
                case INTAKE -> List.of("submit-alerts");
                case AGENT -> List.of("a2a");
            };
            return new SessionResponse(
                    p.name(),
                    p.role().name().toLowerCase(java.util.Locale.ROOT),
                    p.team().name(),
                    p.platformAdmin(),
                    can);
        }
    }

    @Operation(summary = "Log in to the console with an API key")
    @SecurityRequirements
    @ApiResponse(responseCode = "200", description = "Logged in: the session cookie is set")
    @ApiResponse(responseCode = "401", description = "The API key is unknown or revoked")
    @ApiResponse(responseCode = "200", description = "Logged in: the session cookie is set")
    @ApiResponse(responseCode = "401", description = "The API key is unknown or revoked")
    @PostMapping(produces = MediaType.APPLICATION_JSON_VALUE)
    SessionResponse login(
            @Valid @RequestBody LoginRequest body, HttpServletRequest request, HttpServletResponse response) {
        CadrePrincipal principal = keys.authenticate(body.apiKey()).orElse(null);
        if (principal == null) {
            var revoked = keys.revokedKey(body.apiKey());
            audit.authenticationFailed(
                    request,
                    "console login with " + (revoked.isPresent() ? "a revoked" : "an unknown") + " key",
                    revoked.orElse(null));
            throw new ApiProblem(
                            HttpStatus.UNAUTHORIZED, "invalid-api-key", "Invalid API key", "apiKey: unknown or revoked")
                    .with("field", "apiKey");
        }
        if (principal.role().integration()) {
            audit.authenticationFailed(request, "console login refused to integration key " + principal.name());
            throw new ApiProblem(
                            HttpStatus.FORBIDDEN,
                            "integration-key",
                            "Integration keys cannot log in",
                            "apiKey: a key with role " + principal.role().name().toLowerCase(java.util.Locale.ROOT)
                                    + " is for an integration, not for people; log in with a viewer, operator or admin key")
                    .with("field", "apiKey");
        }
        // A fresh session id at login defeats session fixation.
        if (request.getSession(false) != null) {
            request.changeSessionId();
        }
        var context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(new UsernamePasswordAuthenticationToken(principal, null, principal.authorities()));
        SecurityContextHolder.setContext(context);
        sessions.saveContext(context, request, response);
        sessions.loggedIn(request.getSession(), principal);
        audit.loggedIn(request, principal);
        return SessionResponse.of(principal);
    }

    @Operation(summary = "Who is calling: name, role and what it may do")
    @GetMapping
    SessionResponse whoami(Authentication auth) {
        if (auth == null || !(auth.getPrincipal() instanceof CadrePrincipal p)) {
            throw new ApiProblem(
                    HttpStatus.UNAUTHORIZED, "unauthenticated", "Authentication required", "not logged in");
        }
        return SessionResponse.of(p);
    }

    @Operation(summary = "Log out of the console")
    @SecurityRequirements
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @DeleteMapping
    ResponseEntity<Void> logout(HttpServletRequest request, Authentication auth) {
        audit.loggedOut(request, auth != null && auth.getPrincipal() instanceof CadrePrincipal p ? p : null);
        var session = request.getSession(false);
        if (session != null) {
            session.invalidate();
        }
        SecurityContextHolder.clearContext();
        return ResponseEntity.noContent().build();
    }
}
