package dev.cadre.platform.security;

import dev.cadre.platform.web.ProblemWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A per-key request rate limit ({@code cadre.security.rate-limit.*}): a token bucket per API key
 * (console sessions count against the key that logged in), refilled at {@code requests-per-second}
 * up to {@code burst}. Beyond it: 429 with {@code Retry-After}. Every answer to a limited key says
 * {@code X-RateLimit-Limit} (the burst) and {@code X-RateLimit-Remaining} (requests it may still make
 * at once), so a client can slow down before it is refused. Off when the rate is 0. Buckets are
 * per instance, so behind a load balancer a key gets the rate once per instance.
 */
class RateLimitFilter extends OncePerRequestFilter {

    // A full map of buckets is simply emptied: at worst some keys get a fresh burst.
    private static final int MAX_BUCKETS = 10_000;

    /** The burst a key may spend at once (GitHub's and Twitter's name for it). */
    static final String LIMIT = "X-RateLimit-Limit";
    /** The requests a key may still make at once. */
    static final String REMAINING = "X-RateLimit-Remaining";

    private final ProblemWriter problems;
    private final Clock clock;
    private final double perSecond;
    private final double burst;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }
    }

    RateLimitFilter(ProblemWriter problems, Clock clock, double perSecond, int burst) {
        if (perSecond < 0) {
            throw new IllegalArgumentException(
                    "cadre.security.rate-limit.requests-per-second must not be negative, was " + perSecond);
        }
        if (perSecond > 0 && burst < 1) {
            throw new IllegalArgumentException("cadre.security.rate-limit.burst must be at least 1, was " + burst);
        }
        this.problems = problems;
        this.clock = clock;
        this.perSecond = perSecond;
        this.burst = burst;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return perSecond == 0;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        var auth = SecurityContextHolder.getContext().getAuthentication();
        if (auth != null && auth.getPrincipal() instanceof CadrePrincipal p) {
            long[] remaining = new long[1];
            long waitMillis = take(p.keyId(), remaining);
            response.setHeader(LIMIT, Long.toString((long) burst));
            response.setHeader(REMAINING, Long.toString(remaining[0]));
            if (waitMillis > 0) {
                long seconds = Math.max(1, (waitMillis + 999) / 1000);
                response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
                problems.write(
                        response,
                        HttpStatus.TOO_MANY_REQUESTS,
                        "rate-limited",
                        "Too many requests",
                        "key '" + p.name() + "' is over its rate limit of " + perSecond + " requests/s (burst "
                                + (long) burst + "); retry after " + seconds + " s");
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /**
     * Takes one token; answers 0, or how many milliseconds until one is available, and puts the
     * whole tokens left into {@code remaining[0]}.
     */
    private long take(String keyId, long[] remaining) {
        long now = clock.millis();
        if (buckets.size() >= MAX_BUCKETS && !buckets.containsKey(keyId)) {
            buckets.clear();
        }
        Bucket b = buckets.computeIfAbsent(keyId, k -> new Bucket(burst, now));
        synchronized (b) {
            b.tokens = Math.min(burst, b.tokens + (now - b.at) * perSecond / 1000.0);
            b.at = now;
            if (b.tokens >= 1) {
                b.tokens -= 1;
                remaining[0] = (long) Math.floor(b.tokens);
                return 0;
            }
            remaining[0] = 0;
            return (long) Math.ceil((1 - b.tokens) * 1000.0 / perSecond);
        }
    }
}
