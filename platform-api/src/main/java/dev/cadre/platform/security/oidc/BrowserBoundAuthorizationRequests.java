package dev.cadre.platform.security.oidc;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseCookie;
import org.springframework.security.oauth2.client.web.AuthorizationRequestRepository;
import org.springframework.security.oauth2.core.endpoint.OAuth2AuthorizationRequest;

/**
 * Sign-ins under way, kept on the server by their {@code state} (with the PKCE verifier and the
 * nonce, which never reach the browser) and bound to the browser that started them by a
 * short-lived cookie. Not the session: the console's session cookie is {@code SameSite=Strict}, so
 * the browser does not send it on the provider's cross-site redirect back; this cookie is {@code
 * Lax}, sent on that top-level redirect and only to {@code /sso}. The binding stops login CSRF: a
 * callback carrying someone else's state finds no sign-in of this browser.
 */
final class BrowserBoundAuthorizationRequests implements AuthorizationRequestRepository<OAuth2AuthorizationRequest> {

    static final String COOKIE = "CADRE_SSO";
    private static final Duration TTL = Duration.ofMinutes(10);
    // Bounds memory when many sign-ins are started and never finished.
    private static final int MAX_PENDING = 10_000;

    private record Pending(OAuth2AuthorizationRequest request, String bindingHash, Instant until) {}

    private final Map<String, Pending> byState = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final Clock clock;

    BrowserBoundAuthorizationRequests(Clock clock) {
        this.clock = clock;
    }

    @Override
    public @Nullable OAuth2AuthorizationRequest loadAuthorizationRequest(HttpServletRequest request) {
        Pending pending = pending(request);
        return pending == null ? null : pending.request();
    }

    @Override
    public void saveAuthorizationRequest(
            @Nullable OAuth2AuthorizationRequest authorizationRequest,
            HttpServletRequest request,
            HttpServletResponse response) {
        if (authorizationRequest == null) {
            removeAuthorizationRequest(request, response);
            return;
        }
        Instant now = clock.instant();
        byState.values().removeIf(p -> p.until().isBefore(now));
        if (byState.size() >= MAX_PENDING) {
            byState.clear();
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String binding = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        byState.put(authorizationRequest.getState(), new Pending(authorizationRequest, sha256(binding), now.plus(TTL)));
        cookie(request, response, binding, TTL);
    }

    @Override
    public @Nullable OAuth2AuthorizationRequest removeAuthorizationRequest(
            HttpServletRequest request, HttpServletResponse response) {
        Pending pending = pending(request);
        if (pending == null) {
            return null;
        }
        byState.remove(pending.request().getState());
        cookie(request, response, "", Duration.ZERO);
        return pending.request();
    }

    private @Nullable Pending pending(HttpServletRequest request) {
        String state = request.getParameter("state");
        String binding = binding(request);
        if (state == null || binding == null) {
            return null;
        }
        Pending pending = byState.get(state);
        if (pending == null
                || pending.until().isBefore(clock.instant())
                || !MessageDigest.isEqual(
                        pending.bindingHash().getBytes(StandardCharsets.US_ASCII),
                        sha256(binding).getBytes(StandardCharsets.US_ASCII))) {
            return null;
        }
        return pending;
    }

    private static @Nullable String binding(HttpServletRequest request) {
        Cookie[] cookies = request.getCookies();
        if (cookies == null) {
            return null;
        }
        for (Cookie c : cookies) {
            if (COOKIE.equals(c.getName()) && !c.getValue().isEmpty()) {
                return c.getValue();
            }
        }
        return null;
    }

    private static void cookie(
            HttpServletRequest request, HttpServletResponse response, String value, Duration maxAge) {
        response.addHeader(
                "Set-Cookie",
                ResponseCookie.from(COOKIE, value)
                        .path("/sso")
                        .httpOnly(true)
                        .secure(request.isSecure())
                        .sameSite("Lax")
                        .maxAge(maxAge)
                        .build()
                        .toString());
    }

    private static String sha256(String s) {
        try {
            return Base64.getEncoder()
                    .encodeToString(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
