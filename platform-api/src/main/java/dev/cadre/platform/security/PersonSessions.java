package dev.cadre.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Instant;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;

/**
 * Console sessions and requests of people who signed in through the identity provider rather than
 * with an API key: the one door by which a sign-in method outside this package makes a {@link
 * CadrePrincipal} the caller, under the same session rules (fresh id, per-caller cap, maximum
 * lifetime, audit) as a key's login.
 */
@Component
public class PersonSessions {

    private final ConsoleSessions sessions;
    private final SecurityAudit audit;

    PersonSessions(ConsoleSessions sessions, SecurityAudit audit) {
        this.sessions = sessions;
        this.audit = audit;
    }

    /** The authentication of {@code principal}, with the authority of its role (and of a platform admin). */
    public static Authentication authentication(CadrePrincipal principal) {
        return new UsernamePasswordAuthenticationToken(principal, null, principal.authorities());
    }

    /**
     * Starts the console session of a person who just signed in: a fresh session id (against
     * fixation), the principal stored, the session ending at {@code endsAt}.
     */
    public void signedIn(
            HttpServletRequest request, HttpServletResponse response, CadrePrincipal principal, Instant endsAt) {
        if (request.getSession(false) != null) {
            request.changeSessionId();
        }
        store(request, response, principal);
        sessions.loggedIn(request.getSession(), principal, endsAt);
        audit.loggedIn(request, principal);
    }

    /** Replaces the principal of the current session (the same person acting in another team). */
    public void switched(HttpServletRequest request, HttpServletResponse response, CadrePrincipal principal) {
        store(request, response, principal);
    }

    private void store(HttpServletRequest request, HttpServletResponse response, CadrePrincipal principal) {
        var context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(authentication(principal));
        SecurityContextHolder.setContext(context);
        sessions.saveContext(context, request, response);
    }
}
