package dev.cadre.platform.security.oidc;

import org.jspecify.annotations.Nullable;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.client.registration.ClientRegistrations;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;

/**
 * Cadre's client at the provider, its endpoints discovered from the issuer's OpenID configuration
 * on first use rather than at start-up: the platform starts (and API keys work) while the provider
 * is down, and a failed discovery is tried again on the next sign-in.
 */
final class ProviderRegistration implements ClientRegistrationRepository {

    static final String ID = "oidc";

    private final OidcProperties settings;
    private volatile @Nullable ClientRegistration registration;

    ProviderRegistration(OidcProperties settings) {
        this.settings = settings;
    }

    @Override
    public @Nullable ClientRegistration findByRegistrationId(String registrationId) {
        return ID.equals(registrationId) ? registration() : null;
    }

    /** The registration, discovering the provider's endpoints if not done yet. */
    ClientRegistration registration() {
        ClientRegistration known = registration;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (registration == null) {
                String secret = settings.clientSecret();
                boolean publicClient = secret == null || secret.isBlank();
                registration = ClientRegistrations.fromIssuerLocation(String.valueOf(settings.issuerUri()))
                        .registrationId(ID)
                        .clientId(String.valueOf(settings.clientId()))
                        .clientSecret(publicClient ? null : secret)
                        .clientAuthenticationMethod(
                                publicClient
                                        ? ClientAuthenticationMethod.NONE
                                        : ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
                        .authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE)
                        .redirectUri(settings.redirectUri())
                        .scope(settings.scopes())
                        .clientName(settings.displayName())
                        .build();
            }
            return registration;
        }
    }
}
