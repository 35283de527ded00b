package dev.cadre.platform.security;

import dev.cadre.platform.web.ProblemWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates requests that carry an API key ({@code Authorization: Bearer …} or
 * {@code X-API-Key}). A key that is present but wrong is rejected at once with 401 — falling back
 * to anonymous would hide a misconfigured client behind confusing 403s.
 */
class ApiKeyAuthenticationFilter extends OncePerRequestFilter {

    static final String API_KEY_HEADER = "X-API-Key";

    private final ApiKeyService keys;
    private final ProblemWriter problems;
    private final SecurityAudit audit;

    ApiKeyAuthenticationFilter(ApiKeyService keys, ProblemWriter problems, SecurityAudit audit) {
        this.keys = keys;
        this.problems = problems;
        this.audit = audit;
    }

    static boolean carriesApiKey(HttpServletRequest request) {
        return presentedKey(request).isPresent();
    }

    static Optional<String> presentedKey(HttpServletRequest request) {
        String header = request.getHeader(API_KEY_HEADER);
        if (header != null && !header.isBlank()) {
            return Optional.of(header.trim());
        }
        String auth = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of(auth.substring(7).trim());
        }
        return Optional.empty();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Optional<String> presented = presentedKey(request);
        // A bearer token that an earlier sign-in method (the identity provider's JWTs) already
        // accepted is not an API key to look up.
        if (presented.isEmpty() || SecurityContextHolder.getContext().getAuthentication() != null) {
            chain.doFilter(request, response);
            return;
        }
        Optional<CadrePrincipal> principal = keys.authenticate(presented.get());
        if (principal.isEmpty()) {
            String header = request.getHeader(API_KEY_HEADER) != null ? API_KEY_HEADER : "Authorization";
            Optional<CadrePrincipal> revoked = keys.revokedKey(presented.get());
            audit.authenticationFailed(
                    request,
                    (revoked.isPresent() ? "revoked" : "unknown") + " API key in " + header,
                    revoked.orElse(null));
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"cadre\", error=\"invalid_token\"");
            problems.write(
                    response,
                    HttpStatus.UNAUTHORIZED,
                    "invalid-api-key",
                    "Invalid API key",
                    "the API key in " + (request.getHeader(API_KEY_HEADER) != null ? API_KEY_HEADER : "Authorization")
                            + " is unknown or revoked");
            return;
        }
        var auth = new UsernamePasswordAuthenticationToken(
                principal.get(), null, principal.get().authorities());
        var context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(auth);
        SecurityContextHolder.setContext(context);
        try {
            chain.doFilter(request, response);
        } finally {
            SecurityContextHolder.clearContext();
        }
    }
}
