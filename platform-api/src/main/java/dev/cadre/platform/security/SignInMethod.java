package dev.cadre.platform.security;

import jakarta.servlet.Filter;
import org.jspecify.annotations.Nullable;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;

/**
 * A way for people to sign in besides API keys (the identity provider's, in {@code
 * security.oidc}): the security chain lets it add its endpoints and flows, and runs its bearer
 * filter just before the API-key filter, so a token it accepts is not looked up as a key.
 */
public interface SignInMethod {

    /** Authenticates bearer credentials that are not API keys, or {@code null} for none. */
    @Nullable
    Filter bearerFilter();

    /**
     * Adds this method's flows and the access rules of its own endpoints; called before the
     * chain's own rules, so its rules come first.
     */
    void configure(HttpSecurity http) throws Exception;
}
