package dev.cadre.platform.security.oidc;

import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.PersonSessions;
import dev.cadre.platform.security.SecurityAudit;
import dev.cadre.platform.security.SignInMethod;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.web.DefaultOAuth2AuthorizationRequestResolver;
import org.springframework.security.oauth2.client.web.OAuth2AuthorizationRequestCustomizers;
import org.springframework.security.oauth2.client.web.OAuth2AuthorizedClientRepository;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.oidc.user.OidcUser;
import org.springframework.security.web.context.SecurityContextHolderFilter;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The console's sign-in through the provider, and its bearer tokens on the API. {@code GET
 * /sso/start/oidc} sends the browser to the provider (authorization code with PKCE, state and
 * nonce); the provider sends it back to {@code /sso/callback}, where Spring Security exchanges the
 * code and checks the ID token; then the person's groups decide their teams, and they get a
 * console session in their first team that ends after {@code cadre.auth.oidc.max-session-age}.
 */
final class OidcSignIn implements SignInMethod {

    static final String START = "/sso/start";
    static final String CALLBACK = "/sso/callback";
    static final String LOGOUT = "/sso/logout";
    /** The session attribute holding the person's ID token, the hint for the provider's logout. */
    static final String ID_TOKEN = Person.class.getName() + ".idToken";
    /** The session attribute holding the signed-in {@link Person} (their teams, for switching). */
    static final String PERSON = Person.class.getName();

    private final OidcProperties settings;
    private final ProviderRegistration provider;
    private final PersonResolver people;
    private final PersonSessions sessions;
    private final SecurityAudit securityAudit;
    private final AuditLog audit;
    private final Clock clock;
    private final OidcBearerFilter bearer;
    private final BrowserBoundAuthorizationRequests pending;

    OidcSignIn(
            OidcProperties settings,
            ProviderRegistration provider,
            PersonResolver people,
            PersonSessions sessions,
            SecurityAudit securityAudit,
            AuditLog audit,
            Clock clock,
            OidcBearerFilter bearer) {
        this.settings = settings;
        this.provider = provider;
        this.people = people;
        this.sessions = sessions;
        this.securityAudit = securityAudit;
        this.audit = audit;
        this.clock = clock;
        this.bearer = bearer;
        this.pending = new BrowserBoundAuthorizationRequests(clock);
    }

    @Override
    public Filter bearerFilter() {
        return bearer;
    }

    @Override
    public void configure(HttpSecurity http) throws Exception {
        var resolver = new DefaultOAuth2AuthorizationRequestResolver(provider, START);
        // PKCE for this confidential client too (RFC 9700): a stolen code is worth nothing.
        resolver.setAuthorizationRequestCustomizer(OAuth2AuthorizationRequestCustomizers.withPkce());
        http.addFilterAfter(new ProviderLogout(), SecurityContextHolderFilter.class);
        http.oauth2Login(o -> o.clientRegistrationRepository(provider)
                .authorizedClientRepository(NO_AUTHORIZED_CLIENTS)
                .loginPage("/")
                .authorizationEndpoint(
                        a -> a.authorizationRequestResolver(resolver).authorizationRequestRepository(pending))
                .loginProcessingUrl(CALLBACK)
                .successHandler(this::signedIn)
                .failureHandler(this::failed));
    }

    /** Maps the person's groups to teams and starts their console session in the first. */
    private void signedIn(HttpServletRequest request, HttpServletResponse response, Authentication auth)
            throws IOException {
        OidcUser user = (OidcUser) auth.getPrincipal();
        Person person;
        try {
            person = people.resolve(user.getClaims());
        } catch (IllegalArgumentException e) {
            refuse(request, response, "no-subject", "single sign-on refused: " + e.getMessage());
            return;
        }
        if (person.teams().isEmpty()) {
            refuse(
                    request,
                    response,
                    "no-team",
                    "single sign-on of " + person.subject() + " (" + person.name() + ") refused: no group in claim '"
                            + people.groupsClaim() + "' maps to a team");
            return;
        }
        TeamRole first = person.teams().get(0);
        CadrePrincipal principal = person.principal(first);
        Instant endsAt = clock.instant().plus(settings.maxSessionAge());
        sessions.signedIn(request, response, principal, endsAt);
        request.getSession().setAttribute(PERSON, person);
        // Kept for the provider's logout (id_token_hint), never shown.
        request.getSession().setAttribute(ID_TOKEN, user.getIdToken().getTokenValue());
        audit.record(
                person.name(),
                "session.sso",
                person.id(),
                "subject=" + person.subject() + " issuer=" + person.issuer() + " teams="
                        + person.teams().stream().map(TeamRole::toString).collect(Collectors.joining(","))
                        + " acting in " + first.team() + " until " + endsAt);
        response.sendRedirect(request.getContextPath() + "/#/incidents");
    }

    private void failed(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
            throws IOException {
        String code =
                e instanceof OAuth2AuthenticationException o ? o.getError().getErrorCode() : "failed";
        securityAudit.authenticationFailed(request, "single sign-on failed: " + code);
        response.sendRedirect(request.getContextPath() + "/?sso-error=" + code.replaceAll("[^a-z_-]", ""));
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, String code, String reason)
            throws IOException {
        securityAudit.authenticationFailed(request, reason);
        SecurityContextHolder.clearContext();
        HttpSession session = request.getSession(false);
        if (session != null) {
            session.invalidate();
        }
        response.sendRedirect(request.getContextPath() + "/?sso-error=" + code);
    }

    /**
     * {@code GET /sso/logout}: ends the console session, then sends the browser to the provider's
     * end-session endpoint (RP-initiated logout, with the ID token as hint) so that the provider's
     * own session ends too and the next sign-in asks again; back at {@code /?signed-out}. Without a
     * person's session, or when the provider names no end-session endpoint, only the first part.
     */
    private final class ProviderLogout extends OncePerRequestFilter {

        @Override
        protected boolean shouldNotFilter(HttpServletRequest request) {
            return !("GET".equals(request.getMethod()) && LOGOUT.equals(request.getServletPath()));
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws IOException {
            String back = ServletUriComponentsBuilder.fromContextPath(request)
                    .path("/")
                    .query("signed-out")
                    .build()
                    .toUriString();
            HttpSession session = request.getSession(false);
            Object idToken = session == null ? null : session.getAttribute(ID_TOKEN);
            if (session != null) {
                var auth = SecurityContextHolder.getContext().getAuthentication();
                securityAudit.loggedOut(
                        request, auth != null && auth.getPrincipal() instanceof CadrePrincipal p ? p : null);
                session.invalidate();
            }
            SecurityContextHolder.clearContext();
            Object endSession = idToken == null
                    ? null
                    : provider.registration()
                            .getProviderDetails()
                            .getConfigurationMetadata()
                            .get("end_session_endpoint");
            if (endSession == null) {
                response.sendRedirect(back);
                return;
            }
            response.sendRedirect(UriComponentsBuilder.fromUriString(String.valueOf(endSession))
                    .queryParam("id_token_hint", idToken)
                    .queryParam("client_id", settings.clientId())
                    .queryParam("post_logout_redirect_uri", back)
                    .encode()
                    .build()
                    .toUriString());
        }
    }

    /** The provider's access token is not kept: Cadre calls nothing on the person's behalf. */
    private static final OAuth2AuthorizedClientRepository NO_AUTHORIZED_CLIENTS =
            new OAuth2AuthorizedClientRepository() {
                @Override
                public <T extends OAuth2AuthorizedClient> @Nullable T loadAuthorizedClient(
                        String clientRegistrationId, Authentication principal, HttpServletRequest request) {
                    return null;
                }

                @Override
                public void saveAuthorizedClient(
                        OAuth2AuthorizedClient authorizedClient,
                        Authentication principal,
                        HttpServletRequest request,
                        HttpServletResponse response) {}

                @Override
                public void removeAuthorizedClient(
                        String clientRegistrationId,
                        Authentication principal,
                        HttpServletRequest request,
                        HttpServletResponse response) {}
            };
}
