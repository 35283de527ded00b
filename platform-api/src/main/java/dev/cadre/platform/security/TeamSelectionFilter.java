package dev.cadre.platform.security;

import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamStore;
import dev.cadre.platform.web.ProblemWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A platform admin acts in another team for one request by naming it in {@code X-Cadre-Team}: the
 * request's principal (and so its {@link dev.cadre.platform.tenancy.TeamScope}) is that team's, resolved
 * here once. Anyone else may name only its own team (403 otherwise, without saying whether the
 * other team exists); an unknown team answers 400 naming the header.
 */
class TeamSelectionFilter extends OncePerRequestFilter {

    static final String HEADER = "X-Cadre-Team";

    private final TeamStore teams;
    private final ProblemWriter problems;

    TeamSelectionFilter(TeamStore teams, ProblemWriter problems) {
        this.teams = teams;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String named = request.getHeader(HEADER);
        var context = SecurityContextHolder.getContext();
        var auth = context.getAuthentication();
        if (named == null
                || named.isBlank()
                || auth == null
                || !(auth.getPrincipal() instanceof CadrePrincipal caller)) {
            chain.doFilter(request, response);
            return;
        }
        Optional<TeamId> team = TeamId.parse(named.trim());
        if (team.isEmpty()) {
            problems.write(
                    response,
                    HttpStatus.BAD_REQUEST,
                    "invalid-header",
                    "Invalid request header",
                    HEADER + ": '" + named.trim() + "' is not a team name");
            return;
        }
        if (team.get().equals(caller.team())) {
            chain.doFilter(request, response);
            return;
        }
        if (!caller.platformAdmin()) {
            problems.write(
                    response,
                    HttpStatus.FORBIDDEN,
                    "forbidden",
                    "Forbidden",
                    HEADER + ": '" + caller.name() + "' acts in team '" + caller.team()
                            + "' only; a platform admin may act in another team");
            return;
        }
        if (!teams.exists(team.get())) {
            problems.write(
                    response,
                    HttpStatus.BAD_REQUEST,
                    "invalid-header",
                    "Invalid request header",
                    HEADER + ": there is no team '" + team.get() + "'");
            return;
        }
        CadrePrincipal acting = caller.inTeam(team.get());
        var switched = SecurityContextHolder.createEmptyContext();
        switched.setAuthentication(new UsernamePasswordAuthenticationToken(acting, null, acting.authorities()));
        SecurityContextHolder.setContext(switched);
        try {
            chain.doFilter(request, response);
        } finally {
            // The session (if any) keeps the team it logged in with: the choice is this request's.
            SecurityContextHolder.setContext(context);
        }
    }
}
