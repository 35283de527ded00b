package dev.cadre.platform.security;

import dev.cadre.platform.audit.AuditLog;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The security events of the audit log: logins and logouts, failed authentications, refused
 * requests (403, CSRF) and writes by API clients. Failures and refusals are whatever a caller
 * chooses to send, so they are throttled — per source (the key when one is known, else the remote
 * address): at most {@code cadre.audit.max-auth-failures-per-minute} rows a minute from one source,
 * the rest counted and reported in that source's next row. One noisy source cannot push another's
 * failures out of the log, and the number of sources tracked is bounded, so an attacker cannot fill
 * the audit table either. Refused decisions (separation of duties) are recorded where they happen,
 * never throttled. All sources together write at most 20 times the per-source limit a minute.
 */
@Component
public class SecurityAudit {

    /** Sources tracked at once; beyond it the least recently seen source is forgotten. */
    private static final int MAX_SOURCES = 1_000;
    /** All sources together may write this many times the per-source limit a minute. */
    private static final int GLOBAL_FACTOR = 20;

    private final AuditLog audit;
    private final Clock clock;
    private final int maxPerMinute;
    private final Map<String, Window> windows = new LinkedHashMap<>(64, 0.75f, true);
    // All sources together: many sources (addresses are cheap) still cannot fill the table.
    private final Window all = new Window(Instant.EPOCH);

    private static final class Window {
        Instant start;
        int recorded;
        long suppressed;

        Window(Instant start) {
            this.start = start;
        }
    }

    SecurityAudit(
            AuditLog audit,
            Clock clock,
            @Value("${cadre.audit.max-auth-failures-per-minute:60}") int maxFailuresPerMinute) {
        if (maxFailuresPerMinute < 1) {
            throw new IllegalArgumentException(
                    "cadre.audit.max-auth-failures-per-minute must be at least 1, was " + maxFailuresPerMinute);
        }
        this.audit = audit;
        this.clock = clock;
        this.maxPerMinute = maxFailuresPerMinute;
    }

    /** A console login. */
    public void loggedIn(HttpServletRequest request, CadrePrincipal principal) {
        audit.record(principal.name(), "session.login", principal.keyId(), "from " + request.getRemoteAddr());
    }

    /** A console logout; {@code principal} null when the session had already ended. */
    public void loggedOut(HttpServletRequest request, @Nullable CadrePrincipal principal) {
        audit.record(
                principal == null ? "anonymous" : principal.name(),
                "session.logout",
                principal == null ? "(no session)" : principal.keyId(),
                "from " + request.getRemoteAddr());
    }

    /** A credential that did not authenticate; {@code reason} never contains the credential. */
    public void authenticationFailed(HttpServletRequest request, String reason) {
        authenticationFailed(request, reason, null);
    }

    /**
     * The same, for a secret that belongs to a revoked key: the record names the key (actor and id),
     * and the key is the throttling source, so its failures neither hide nor are hidden by others.
     */
    public void authenticationFailed(HttpServletRequest request, String reason, @Nullable CadrePrincipal revoked) {
        String source = revoked != null ? "key:" + revoked.keyId() : "addr:" + request.getRemoteAddr();
        throttled(
                source,
                revoked == null ? "anonymous" : revoked.name(),
                "auth.failed",
                request.getMethod() + " " + request.getRequestURI(),
                reason + (revoked == null ? "" : " (revoked key " + revoked.keyId() + ")") + " from "
                        + request.getRemoteAddr());
    }

    /** A request refused with 403: its role does not allow it, or its CSRF token was missing or stale. */
    public void refused(HttpServletRequest request, @Nullable CadrePrincipal principal, boolean csrf, String detail) {
        throttled(
                principal != null ? "key:" + principal.keyId() : "addr:" + request.getRemoteAddr(),
                principal == null ? "anonymous" : principal.name(),
                csrf ? "csrf.refused" : "access.denied",
                request.getMethod() + " " + request.getRequestURI(),
                detail + (principal == null ? "" : " (key " + principal.keyId() + ")") + " from "
                        + request.getRemoteAddr());
    }

    /** A write an API client made (memory entries), recorded once it succeeded. */
    public void clientWrite(CadrePrincipal principal, String action, String target, String detail) {
        audit.record(principal.name(), action, target, detail);
    }

    private void throttled(String source, String actor, String action, String target, String detail) {
        long dropped;
        synchronized (this) {
            Instant now = clock.instant();
            Window w = windows.get(source);
            if (w == null) {
                if (windows.size() >= MAX_SOURCES) {
                    var eldest = windows.entrySet().iterator();
                    eldest.next();
                    eldest.remove();
                }
                w = new Window(now);
                windows.put(source, w);
            }
            if (!now.isBefore(w.start.plusSeconds(60))) {
                w.start = now;
                w.recorded = 0;
            }
            if (!now.isBefore(all.start.plusSeconds(60))) {
                all.start = now;
                all.recorded = 0;
            }
            if (w.recorded >= maxPerMinute || all.recorded >= maxPerMinute * GLOBAL_FACTOR) {
                w.suppressed++;
                return;
            }
            w.recorded++;
            all.recorded++;
            dropped = w.suppressed;
            w.suppressed = 0;
        }
        audit.record(
                actor,
                action,
                target,
                detail
                        + (dropped > 0
                                ? " (" + dropped + " earlier records from this source not written: over the"
                                        + " per-minute limit)"
                                : ""));
    }
}
