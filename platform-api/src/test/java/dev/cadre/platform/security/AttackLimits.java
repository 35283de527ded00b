package dev.cadre.platform.security;

import dev.cadre.platform.support.PlatformTest;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.test.context.TestPropertySource;

/**
 * The platform with the production default for separation of duties and small limits an attacker's
 * test can hit; the attack tests share this one context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@PlatformTest
@TestPropertySource(
        properties = {
            "cadre.approvals.separation-of-duties=true",
            "cadre.security.session.max-per-key=2",
            "cadre.security.rate-limit.requests-per-second=50",
            "cadre.security.rate-limit.burst=40",
            "cadre.sse.max-streams-per-key=2",
            "cadre.sse.idle-timeout=PT5S",
            "cadre.mcp.max-sessions-per-key=3",
            "server.forward-headers-strategy=native",
            // Issue 23 finding 7: small intake caps so one test can hit both.
            "cadre.integrations.alertmanager.max-alerts-per-delivery=4",
            "cadre.integrations.alertmanager.new-incidents-per-minute=6",
            "cadre.integrations.alertmanager.repeats-per-minute=8",
            "cadre.integrations.alertmanager.agent=triage"
        })
@interface AttackLimits {}
