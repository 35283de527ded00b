package dev.cadre.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.security.core.context.DeferredSecurityContext;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.context.HttpSessionSecurityContextRepository;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.stereotype.Component;

/**
 * Where console sessions live, and the rules they obey. A session stores which key logged in and
 * when; every request re-checks that key ({@link ApiKeyService#activeKey}), so revoking the key
 * ends the session, and the session ends anyway after {@code cadre.security.session.max-lifetime}
 * however active it is. Each key holds at most {@code cadre.security.session.max-per-key}
 * sessions; a new login ends the oldest. A request that carries an API key never reads or writes a
 * session: key authentication is stateless.
 */
@Component
class ConsoleSessions implements SecurityContextRepository {

    static final String GRANT = ConsoleSessions.class.getName() + ".GRANT";

    private final HttpSessionSecurityContextRepository sessions = new HttpSessionSecurityContextRepository();
    private final ApiKeyService keys;
    private final Clock clock;
    private final Duration maxLifetime;
    private final int maxPerKey;
    // Live sessions per key id, oldest first, to enforce the cap (sessions are per instance).
    private final Map<String, Deque<HttpSession>> byKey = new ConcurrentHashMap<>();

    /**
     * What a session holds besides the security context: who logged in, when, and — for a person
     * who signed in through the identity provider, who has no API key to re-check — when the
     * session ends ({@code null} for a key's session).
     */
    record Grant(String keyId, Instant loggedInAt, @Nullable Instant endsAt) implements Serializable {}

    ConsoleSessions(
            ApiKeyService keys,
            Clock clock,
            @Value("${cadre.security.session.max-lifetime:PT12H}") Duration maxLifetime,
            @Value("${cadre.security.session.max-per-key:5}") int maxPerKey) {
        if (maxLifetime.isNegative() || maxLifetime.isZero()) {
            throw new IllegalArgumentException(
                    "cadre.security.session.max-lifetime must be positive, was " + maxLifetime);
        }
        if (maxPerKey < 1) {
            throw new IllegalArgumentException(
                    "cadre.security.session.max-per-key must be at least 1, was " + maxPerKey);
        }
        this.keys = keys;
        this.clock = clock;
        this.maxLifetime = maxLifetime;
        this.maxPerKey = maxPerKey;
    }

    /** Binds a freshly logged-in session to its key, ending the key's oldest session beyond the cap. */
    void loggedIn(HttpSession session, CadrePrincipal principal) {
        loggedIn(session, principal, null);
    }

    /**
     * The same for a person signed in through the identity provider: the session ends at {@code
     * endsAt} (and never later than the maximum lifetime), since no key can be revoked to end it.
     */
    void loggedIn(HttpSession session, CadrePrincipal principal, @Nullable Instant endsAt) {
        session.setAttribute(GRANT, new Grant(principal.keyId(), clock.instant(), endsAt));
        Deque<HttpSession> open = byKey.computeIfAbsent(principal.keyId(), k -> new ArrayDeque<>());
        synchronized (open) {
            open.removeIf(s -> s.getId().equals(session.getId()) || !alive(s));
            open.addLast(session);
            while (open.size() > maxPerKey) {
                invalidate(open.pollFirst());
            }
        }
    }

    /** Only the deferred form is used by the filter chain; this one answers the same. */
    @Override
    @Deprecated
    @SuppressWarnings("deprecation")
    public SecurityContext loadContext(org.springframework.security.web.context.HttpRequestResponseHolder holder) {
        return loadDeferredContext(holder.getRequest()).get();
    }

    @Override
    public DeferredSecurityContext loadDeferredContext(HttpServletRequest request) {
        if (ApiKeyAuthenticationFilter.carriesApiKey(request)) {
            // The key filter authenticates this request; a session cookie sent along is ignored.
            return new Deferred(SecurityContextHolder::createEmptyContext, true);
        }
        DeferredSecurityContext stored = sessions.loadDeferredContext(request);
        return new Deferred(() -> checked(request, stored), false) {
            @Override
            public boolean isGenerated() {
                return stored.isGenerated() || get().getAuthentication() == null;
            }
        };
    }

    private SecurityContext checked(HttpServletRequest request, DeferredSecurityContext stored) {
        SecurityContext context = stored.get();
        if (context.getAuthentication() == null
                || !(context.getAuthentication().getPrincipal() instanceof CadrePrincipal)) {
            return context;
        }
        HttpSession session = request.getSession(false);
        Grant grant = session == null ? null : (Grant) session.getAttribute(GRANT);
        boolean valid = grant != null
                && clock.instant().isBefore(grant.loggedInAt().plus(maxLifetime))
                && (grant.endsAt() != null
                        ? clock.instant().isBefore(grant.endsAt())
                        : keys.activeKey(grant.keyId()).isPresent());
        if (valid) {
            return context;
        }
        // Revoked key, expired or unknown grant: the session is over, and this request anonymous.
        if (session != null) {
            invalidate(session);
        }
        return SecurityContextHolder.createEmptyContext();
    }

    @Override
    public void saveContext(SecurityContext context, HttpServletRequest request, HttpServletResponse response) {
        if (ApiKeyAuthenticationFilter.carriesApiKey(request)) {
            return;
        }
        sessions.saveContext(context, request, response);
    }

    @Override
    public boolean containsContext(HttpServletRequest request) {
        // For a key request there is nothing to store: answering true keeps session management
        // from creating a session for it.
        return ApiKeyAuthenticationFilter.carriesApiKey(request) || sessions.containsContext(request);
    }

    private static boolean alive(HttpSession session) {
        try {
            session.getCreationTime();
            return true;
        } catch (IllegalStateException invalidated) {
            return false;
        }
    }

    private static void invalidate(HttpSession session) {
        try {
            session.invalidate();
        } catch (IllegalStateException alreadyInvalidated) {
            // nothing left to end
        }
    }

    private static class Deferred implements DeferredSecurityContext {
        private final Supplier<SecurityContext> supplier;
        private final boolean generated;
        private SecurityContext value;

        Deferred(Supplier<SecurityContext> supplier, boolean generated) {
            this.supplier = supplier;
            this.generated = generated;
        }

        @Override
        public synchronized SecurityContext get() {
            if (value == null) {
                value = supplier.get();
            }
            return value;
        }

        @Override
        public boolean isGenerated() {
            return generated;
        }
    }
}
