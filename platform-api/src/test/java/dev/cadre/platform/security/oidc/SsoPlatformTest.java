package dev.cadre.platform.security.oidc;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.KeycloakPeer;
import dev.cadre.platform.support.TestTools;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The platform signing people in through the real Keycloak of {@link KeycloakPeer} (realm {@code
 * cadre}): groups payments-operators, payments-viewers and storage-operators map to teams, and
 * cadre-admins are platform admins. Separation of duties is on, as in production. The tests that
 * extend this share one context.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-sso-test;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.tracing.store-delay=PT0.05S",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.tools.workspace.dir=target/workspaces",
            "cadre.retention.enabled=false",
            "cadre.approvals.separation-of-duties=true",
            "cadre.auth.oidc.client-id=" + KeycloakPeer.CLIENT_ID,
            "cadre.auth.oidc.client-secret=" + KeycloakPeer.CLIENT_SECRET,
            "cadre.auth.oidc.audience=cadre-api",
            "cadre.auth.oidc.display-name=Keycloak",
            "cadre.auth.oidc.groups.payments-operators=payments:operator",
            "cadre.auth.oidc.groups.payments-viewers=payments:viewer",
            "cadre.auth.oidc.groups.storage-operators=storage:operator",
            "cadre.auth.oidc.admin-groups=cadre-admins",
            // The expired-token test waits for a one-second token to expire: no grace beyond it.
            "cadre.auth.oidc.clock-skew=PT0S"
        })
@Import(TestTools.class)
abstract class SsoPlatformTest {

    @DynamicPropertySource
    static void keycloak(DynamicPropertyRegistry registry) {
        registry.add("cadre.auth.oidc.issuer-uri", () -> KeycloakPeer.shared().issuer());
    }
}
