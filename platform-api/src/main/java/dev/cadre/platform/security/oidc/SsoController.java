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

    record TeamsView(String name, String current, List<TeamView> teams) {}

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
            summary = "The teams of the person signed in through single sign-on, and the one they act in",
            description = "Teams come from the person's groups at the identity provider (cadre.auth.oidc.groups).")
    @ApiResponse(responseCode = "200", description = "The person's teams with their role in each, and the current team")
    @ApiResponse(responseCode = "409", description = "The caller did not sign in through single sign-on")
    @GetMapping(value = "/api/v1/session/team", produces = MediaType.APPLICATION_JSON_VALUE)
    TeamsView teams(HttpServletRequest request, Authentication auth) {
        Person person = person(request, auth);
        Object current = request.getSession().getAttribute(OidcSignIn.TEAM);
        return view(
                person,
                current instanceof String team ? team : person.teams().get(0).team());
    }

    @Operation(
            summary = "Act in another of the signed-in person's teams",
            description = "The console session acts in the named team from now on, with the person's role there.")
    @ApiResponse(responseCode = "200", description = "Switched: the person's teams and the current one")
    @ApiResponse(responseCode = "400", description = "Not one of the person's teams (named)")
    @ApiResponse(responseCode = "409", description = "The caller did not sign in through single sign-on")
    @PostMapping(value = "/api/v1/session/team", produces = MediaType.APPLICATION_JSON_VALUE)
    TeamsView switchTeam(
            @Valid @RequestBody SwitchRequest body,
            HttpServletRequest request,
            HttpServletResponse response,
            Authentication auth) {
        Person person = person(request, auth);
        TeamRole membership = person.in(body.team().trim())
                .orElseThrow(() -> new ApiProblem(
                                HttpStatus.BAD_REQUEST,
                                "not-a-member",
                                "Not a member",
                                "team: '" + person.name() + "' is not a member of team '" + body.team()
                                        + "'; their teams: "
                                        + String.join(
                                                ", ",
                                                person.teams().stream()
                                                        .map(TeamRole::team)
                                                        .toList()))
                        .with("field", "team"));
        sessions.switched(request, response, person.principal(membership));
        request.getSession().setAttribute(OidcSignIn.TEAM, membership.team());
        return view(person, membership.team());
    }

    private static TeamsView view(Person person, String current) {
        return new TeamsView(
                person.name(),
                current,
                person.teams().stream().map(TeamView::of).toList());
    }

    private static Person person(HttpServletRequest request, @Nullable Authentication auth) {
        HttpSession session = request.getSession(false);
        Object person = session == null ? null : session.getAttribute(OidcSignIn.PERSON);
        if (auth == null
                || !(auth.getPrincipal() instanceof CadrePrincipal principal)
                || !(person instanceof Person p)
                || !p.id().equals(principal.keyId())) {
            throw new ApiProblem(
                    HttpStatus.CONFLICT,
                    "not-signed-in-with-sso",
                    "Not signed in through single sign-on",
                    "only a person signed in through single sign-on switches teams; an API key acts in its own team");
        }
        return p;
    }
}
