package dev.cadre.platform.security.oidc;

import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.PersonSessions;
import dev.cadre.platform.security.SecurityAudit;
import dev.cadre.platform.web.ProblemWriter;
import dev.cadre.platform.web.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.stream.Collectors;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates requests whose {@code Authorization: Bearer} value is a JWT of the provider (API
 * keys go on to the key filter). A token that fails a check is answered 401 with a problem whose
 * {@code reason} says which check (expired, wrong-audience, wrong-issuer, bad-signature, …),
 * never echoing the token. A person in several teams picks one with {@code X-Cadre-Team}; without
 * it they act in the first of their teams.
 */
final class OidcBearerFilter extends OncePerRequestFilter {

    static final String TEAM_HEADER = "X-Cadre-Team";

    private final BearerTokenVerifier verifier;
    private final PersonResolver people;
    private final ProblemWriter problems;
    private final SecurityAudit audit;

    OidcBearerFilter(BearerTokenVerifier verifier, PersonResolver people, ProblemWriter problems, SecurityAudit audit) {
        this.verifier = verifier;
        this.people = people;
        this.problems = problems;
        this.audit = audit;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String auth = request.getHeader(HttpHeaders.AUTHORIZATION);
        String token = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                ? auth.substring(7).trim()
                : null;
        if (token == null || !BearerTokenVerifier.looksLikeJwt(token)) {
            chain.doFilter(request, response);
            return;
        }
        BearerTokenVerifier.Verdict verdict = verifier.verify(token);
        if (verdict instanceof BearerTokenVerifier.Verdict.Refused refused) {
            audit.authenticationFailed(request, "bearer token refused: " + refused.reason());
            refuse(
                    response,
                    refused.providerFault() ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.UNAUTHORIZED,
                    refused.reason(),
                    refused.detail());
            return;
        }
        var jwt = ((BearerTokenVerifier.Verdict.Accepted) verdict).jwt();
        Person person;
        try {
            person = people.resolve(jwt.getClaims());
        } catch (IllegalArgumentException e) {
            audit.authenticationFailed(request, "bearer token refused: no subject");
            refuse(response, HttpStatus.UNAUTHORIZED, "no-subject", e.getMessage());
            return;
        }
        Optional<TeamRole> membership = chosen(request, person);
        if (membership.isEmpty()) {
            String team = request.getHeader(TEAM_HEADER);
            String detail = person.teams().isEmpty()
                    ? "'" + person.name() + "' is in no group that Cadre maps to a team (claim '" + people.groupsClaim()
                            + "', cadre.auth.oidc.groups)"
                    : "'" + person.name() + "' is not a member of team '" + team + "'; their teams: "
                            + person.teams().stream().map(TeamRole::team).collect(Collectors.joining(", "));
            audit.authenticationFailed(request, "bearer token of " + person.subject() + " refused: no team");
            problems.write(
                    response,
                    HttpStatus.FORBIDDEN,
                    person.teams().isEmpty() ? "no-team" : "not-a-member",
                    "No team",
                    detail);
            return;
        }
        CadrePrincipal principal = person.principal(membership.get());
        var context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(PersonSessions.authentication(principal));
        SecurityContextHolder.setContext(context);
        try {
            chain.doFilter(request, response);
        } finally {
            SecurityContextHolder.clearContext();
        }
    }

    private static Optional<TeamRole> chosen(HttpServletRequest request, Person person) {
        String team = request.getHeader(TEAM_HEADER);
        if (team == null || team.isBlank()) {
            return person.teams().stream().findFirst();
        }
        return person.in(team.trim());
    }

    private void refuse(HttpServletResponse response, HttpStatus status, String reason, String detail)
            throws IOException {
        // RFC 6750: the error in the challenge; the description without quotes that would end it.
        response.setHeader(
                HttpHeaders.WWW_AUTHENTICATE,
                "Bearer realm=\"cadre\", error=\"invalid_token\", error_description=\"" + detail.replace('"', '\'')
                        + "\"");
        var problem = Problems.of(status, "invalid-token", "Invalid bearer token", detail);
        problem.setProperty("reason", reason);
        problems.write(response, problem);
    }
}
