package dev.cadre.platform.security;

import dev.cadre.platform.audit.AuditLog;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Clock;
import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The security events of the audit log: logins, failed authentications and writes by API clients.
 * Failed authentications are whatever an anonymous caller chooses to send, so they are throttled:
 * at most {@code cadre.audit.max-auth-failures-per-minute} rows a minute, the rest counted and
 * reported in the next row — an attacker cannot fill the audit table, and no failure goes unseen.
 */
@Component
public class SecurityAudit {

    private final AuditLog audit;
    private final Clock clock;
    private final int maxFailuresPerMinute;
    private Instant window = Instant.EPOCH;
    private int recordedInWindow;
    private long suppressed;

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
        this.maxFailuresPerMinute = maxFailuresPerMinute;
    }

    /** A console login. */
    public void loggedIn(HttpServletRequest request, CadrePrincipal principal) {
        audit.record(principal.name(), "session.login", principal.keyId(), "from " + request.getRemoteAddr());
    }

    /** A credential that did not authenticate; {@code reason} never contains the credential. */
    public void authenticationFailed(HttpServletRequest request, String reason) {
        long dropped;
        synchronized (this) {
            Instant now = clock.instant();
            if (!now.isBefore(window.plusSeconds(60))) {
                window = now;
                recordedInWindow = 0;
            }
            if (recordedInWindow >= maxFailuresPerMinute) {
                suppressed++;
                return;
            }
            recordedInWindow++;
            dropped = suppressed;
            suppressed = 0;
        }
        audit.record(
                "anonymous",
                "auth.failed",
                request.getMethod() + " " + request.getRequestURI(),
                reason + " from " + request.getRemoteAddr()
                        + (dropped > 0
                                ? " (" + dropped + " earlier failures not recorded: over the per-minute limit)"
                                : ""));
    }

    /** A write an API client made (memory entries), recorded once it succeeded. */
    public void clientWrite(CadrePrincipal principal, String action, String target, String detail) {
        audit.record(principal.name(), action, target, detail);
    }
}
