package dev.cadre.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings shared by the backends; a backend ignores those it has no use for. Build with {@link
 * #defaults()} and the {@code with…} methods.
 *
 * @param policy input limits and declared namespaces
 * @param listener observer of every operation (metrics)
 * @param clock source of {@code updatedAt}
 * @param relayPollInterval how often the outbox relay looks for work when nothing woke it (JDBC,
 *     hybrid)
 * @param redisPrefix prefix of every Redis key the hybrid backend uses (cache entries and the
 *     stream), so several installations can share one Redis
 * @param cacheTtl how long a cached entry lives in Redis
 * @param streamMaxLength approximate number of events kept in the Redis stream; older ones are
 *     trimmed and subscribers that fall behind resync from PostgreSQL
 * @param redisTimeout time limit of one Redis command, after which the hybrid backend falls back to
 *     PostgreSQL and reports itself degraded
 * @param historyBudget how much history one key keeps, enforced as it is written
 */
public record MemoryOptions(
        MemoryPolicy policy,
        MemoryListener listener,
        Clock clock,
        Duration relayPollInterval,
        String redisPrefix,
        Duration cacheTtl,
        long streamMaxLength,
        Duration redisTimeout,
        MemoryHistoryBudget historyBudget) {

    public MemoryOptions {
        Objects.requireNonNull(historyBudget, "historyBudget");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(clock, "clock");
        requirePositive(relayPollInterval, "relayPollInterval");
        requirePositive(cacheTtl, "cacheTtl");
        requirePositive(redisTimeout, "redisTimeout");
        if (redisPrefix.isBlank() || redisPrefix.contains(" ")) {
            throw new IllegalArgumentException(
                    "redisPrefix must be non-empty without spaces, was '" + redisPrefix + "'");
        }
        if (streamMaxLength < 100) {
            throw new IllegalArgumentException("streamMaxLength must be at least 100, was " + streamMaxLength);
        }
    }

    public static MemoryOptions defaults() {
        return new MemoryOptions(
                MemoryPolicy.defaults(),
                MemoryListener.NONE,
                Clock.systemUTC(),
                Duration.ofSeconds(1),
                "cadre:memory",
                Duration.ofHours(1),
                100_000,
                Duration.ofMillis(500),
                MemoryHistoryBudget.NONE);
    }

    public MemoryOptions withPolicy(MemoryPolicy value) {
        return new MemoryOptions(
                value,
                listener,
                clock,
                relayPollInterval,
                redisPrefix,
                cacheTtl,
                streamMaxLength,
                redisTimeout,
                historyBudget);
    }

    public MemoryOptions withListener(MemoryListener value) {
        return new MemoryOptions(
                policy,
                value,
                clock,
                relayPollInterval,
                redisPrefix,
                cacheTtl,
                streamMaxLength,
                redisTimeout,
                historyBudget);
    }

    public MemoryOptions withClock(Clock value) {
        return new MemoryOptions(
                policy,
                listener,
                value,
                relayPollInterval,
                redisPrefix,
                cacheTtl,
                streamMaxLength,
                redisTimeout,
                historyBudget);
    }

    public MemoryOptions withRelayPollInterval(Duration value) {
        return new MemoryOptions(
                policy, listener, clock, value, redisPrefix, cacheTtl, streamMaxLength, redisTimeout, historyBudget);
    }

    public MemoryOptions withRedisPrefix(String value) {
        return new MemoryOptions(
                policy,
                listener,
                clock,
                relayPollInterval,
                value,
                cacheTtl,
                streamMaxLength,
                redisTimeout,
                historyBudget);
    }

    public MemoryOptions withCacheTtl(Duration value) {
        return new MemoryOptions(
                policy,
                listener,
                clock,
                relayPollInterval,
                redisPrefix,
                value,
                streamMaxLength,
                redisTimeout,
                historyBudget);
    }

    public MemoryOptions withStreamMaxLength(long value) {
        return new MemoryOptions(
                policy, listener, clock, relayPollInterval, redisPrefix, cacheTtl, value, redisTimeout, historyBudget);
    }

    public MemoryOptions withRedisTimeout(Duration value) {
        return new MemoryOptions(
                policy,
                listener,
                clock,
                relayPollInterval,
                redisPrefix,
                cacheTtl,
                streamMaxLength,
                value,
                historyBudget);
    }

    public MemoryOptions withHistoryBudget(MemoryHistoryBudget value) {
        return new MemoryOptions(
                policy,
                listener,
                clock,
                relayPollInterval,
                redisPrefix,
                cacheTtl,
                streamMaxLength,
                redisTimeout,
                value);
    }

    private static void requirePositive(Duration d, String name) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
