package dev.cadre.platform.security.oidc;

import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.PersonSessions;
import dev.cadre.platform.security.SecurityAudit;
import dev.cadre.platform.web.ProblemWriter;
import java.time.Clock;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Single sign-on is wired only when {@code cadre.auth.oidc.issuer-uri} is set; API keys work either way. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(OidcProperties.class)
class OidcConfiguration {

    @Bean
    @ConditionalOnExpression("!'${cadre.auth.oidc.issuer-uri:}'.isBlank()")
    OidcSignIn oidcSignIn(
            OidcProperties settings,
            PersonSessions sessions,
            SecurityAudit securityAudit,
            AuditLog audit,
            ProblemWriter problems,
            Clock clock) {
        var provider = new ProviderRegistration(settings);
        var people = new PersonResolver(settings);
        var bearer = new OidcBearerFilter(
                new BearerTokenVerifier(settings, provider, clock), people, problems, securityAudit);
        return new OidcSignIn(settings, provider, people, sessions, securityAudit, audit, clock, bearer);
    }
}
