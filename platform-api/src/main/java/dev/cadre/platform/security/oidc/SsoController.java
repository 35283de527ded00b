package dev.cadre.platform.security.oidc;

import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.PersonSessions;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the console's sign-in page needs to know about single sign-on, and the team switch of a
 * person who signed in through it and belongs to several teams.
 */
@RestController
class SsoController {

    private final OidcProperties settings;
    private final ObjectProvider<OidcSignIn> signIn;
    private final PersonSessions sessions;

    SsoController(OidcProperties settings, ObjectProvider<OidcSignIn> signIn, PersonSessions sessions) {
        this.settings = settings;
        this.signIn = signIn;
        this.sessions = sessions;
    }

    record SsoView(
            boolean enabled,
            @Nullable String displayName,
            @Nullable String signInUrl) {}

    record TeamView(String team, String role) {
        static TeamView of(TeamRole t) {
            return new TeamView(t.team(), t.role().name().toLowerCase(Locale.ROOT));
        }
    }

    /** {@code singleSignOn}: a person signed in through the provider (sign-out goes through {@code /sso/logout}). */
    record TeamsView(String name, String current, List<TeamView> teams, boolean singleSignOn) {}

    record SwitchRequest(@NotBlank @Size(max = 63) String team) {}

    @Operation(
            summary = "Whether people can sign in through the identity provider, and where",
            description = "Public: the console's sign-in page asks it before anyone is signed in. When enabled,"
                    + " signInUrl starts the provider's sign-in (authorization code with PKCE).")
    @SecurityRequirements
    @ApiResponse(
            responseCode = "200",
            description = "Whether single sign-on is on, the button's name and where it starts")
    @GetMapping(value = "/api/v1/session/sso", produces = MediaType.APPLICATION_JSON_VALUE)
    SsoView sso() {
        return signIn.getIfAvailable() == null
                ? new SsoView(false, null, null)
                : new SsoView(true, settings.displayName(), OidcSignIn.START + "/" + ProviderRegistration.ID);
    }

    @Operation(
            summary = "The teams the caller may act in, and the one it acts in",
            description = "A person signed in through single sign-on has the teams their groups at the identity"
                    + " provider grant (cadre.auth.oidc.groups); an API key or a bearer token acts in one team.")
    @ApiResponse(responseCode = "200", description = "The teams with the caller's role in each, and the current team")
    @GetMapping(value = "/api/v1/session/team", produces = MediaType.APPLICATION_JSON_VALUE)
    TeamsView teams(HttpServletRequest request, Authentication auth) {
        CadrePrincipal principal = principal(auth);
        Person person = person(request, principal);
        return person != null ? view(person, principal) : single(principal);
    }

    @Operation(
            summary = "Act in another of the signed-in person's teams",
            description = "The console session of a person signed in through single sign-on acts in the named team"
                    + " from now on, with the person's role there. An API key acts in its own team only.")
    @ApiResponse(responseCode = "200", description = "Switched: the teams and the current one")
    @ApiResponse(responseCode = "400", description = "Not one of the caller's teams (their teams named)")
    @PostMapping(value = "/api/v1/session/team", produces = MediaType.APPLICATION_JSON_VALUE)
    TeamsView switchTeam(
            @Valid @RequestBody SwitchRequest body,
            HttpServletRequest request,
            HttpServletResponse response,
            Authentication auth) {
        CadrePrincipal principal = principal(auth);
        Person person = person(request, principal);
        String team = body.team().trim();
        if (person == null) {
            if (team.equals(principal.team().name())) {
                return single(principal);
            }
            throw new ApiProblem(
                            HttpStatus.BAD_REQUEST,
                            "not-a-member",
                            "Not a member",
                            "team: '" + principal.name() + "' acts in team '"
                                    + principal.team().name()
                                    + "' only; a person switches teams after signing in through single sign-on")
                    .with("field", "team");
        }
        TeamRole membership = person.in(team)
                .orElseThrow(() -> notAMember(
                        person.name(),
                        team,
                        person.teams().stream().map(TeamRole::team).toList()));
        CadrePrincipal switched = person.principal(membership);
        sessions.switched(request, response, switched);
        return view(person, switched);
    }

    private static ApiProblem notAMember(String who, String team, List<String> theirs) {
        return new ApiProblem(
                        HttpStatus.BAD_REQUEST,
                        "not-a-member",
                        "Not a member",
                        "team: '" + who + "' is not a member of team '" + team + "'; their teams: "
                                + String.join(", ", theirs))
                .with("field", "team");
    }

    private static TeamsView view(Person person, CadrePrincipal current) {
        return new TeamsView(
                person.name(),
                current.team().name(),
                person.teams().stream().map(TeamView::of).toList(),
                true);
    }

    private static TeamsView single(CadrePrincipal principal) {
        return new TeamsView(
                principal.name(),
                principal.team().name(),
                List.of(new TeamView(
                        principal.team().name(), principal.role().name().toLowerCase(Locale.ROOT))),
                false);
    }

    private static CadrePrincipal principal(@Nullable Authentication auth) {
        if (auth == null || !(auth.getPrincipal() instanceof CadrePrincipal principal)) {
            throw new ApiProblem(
                    HttpStatus.UNAUTHORIZED, "unauthenticated", "Authentication required", "not signed in");
        }
        return principal;
    }

    /** The person of this console session, when it is one signed in through single sign-on. */
    private static @Nullable Person person(HttpServletRequest request, CadrePrincipal principal) {
        HttpSession session = request.getSession(false);
        Object person = session == null ? null : session.getAttribute(OidcSignIn.PERSON);
        return person instanceof Person p && p.id().equals(principal.keyId()) ? p : null;
    }
}
