/**
 * Sign-in through the company's OpenID Connect provider: the console's authorization-code flow
 * with PKCE, the provider's bearer JWTs on the API, and the mapping of the provider's groups to a
 * team and a role. On only when {@code cadre.auth.oidc.issuer-uri} is set.
 */
@NullMarked
package dev.cadre.platform.security.oidc;

import org.jspecify.annotations.NullMarked;
