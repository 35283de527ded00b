package dev.cadre.platform.integrations;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How much one intake key may start and write: at most {@code maxAlertsPerDelivery} alerts in one
 * delivery, at most {@code newIncidentsPerMinute} new incidents — each of which starts a triage run —
 * per key per minute, and at most {@code repeatsPerMinute} repeats (firing alerts of incidents
 * already open, each a sighting on the timeline) per key per minute; token buckets per key and
 * instance. A delivery is admitted whole or not at all, so nothing is half-processed when it is
 * refused and Alertmanager's retry delivers all of it; resolves cost nothing. Refusals are counted in {@code
 * cadre_intake_rejections_total{reason}} and admitted alerts in {@code
 * cadre_intake_alerts_total{outcome}}, both with closed label sets.
 */
final class IntakeLimits {

    /** Outcomes an admitted alert can have (the intake's {@code action}), the metric's closed label set. */
    static final java.util.List<String> OUTCOMES = java.util.List.of(
            "incident-opened",
            "seen-again",
            "seen-again-escalated",
            "duplicate",
            "stale",
            "incident-resolved",
            "no-open-incident");

    // A full map of buckets is simply emptied: at worst some keys get a fresh minute.
    private static final int MAX_BUCKETS = 10_000;

    /**
     * @param maxAlertsPerDelivery alerts one delivery may carry ({@code
     *     cadre.integrations.alertmanager.max-alerts-per-delivery})
     * @param newIncidentsPerMinute new incidents (and triage runs) one key may open per minute ({@code
     *     cadre.integrations.alertmanager.new-incidents-per-minute})
     * @param repeatsPerMinute firing alerts of already open incidents one key may deliver per minute
     *     ({@code cadre.integrations.alertmanager.repeats-per-minute})
     */
    record Settings(int maxAlertsPerDelivery, int newIncidentsPerMinute, int repeatsPerMinute) {

        /** The shipped default of {@code cadre.integrations.alertmanager.repeats-per-minute}. */
        static final int DEFAULT_REPEATS_PER_MINUTE = 600;

        Settings(int maxAlertsPerDelivery, int newIncidentsPerMinute) {
            this(
                    maxAlertsPerDelivery,
                    newIncidentsPerMinute,
                    Math.max(DEFAULT_REPEATS_PER_MINUTE, maxAlertsPerDelivery));
        }

        Settings {
            if (maxAlertsPerDelivery < 1) {
                throw new IllegalArgumentException(
                        "cadre.integrations.alertmanager.max-alerts-per-delivery must be at least 1, was "
                                + maxAlertsPerDelivery);
            }
            if (newIncidentsPerMinute < maxAlertsPerDelivery) {
                // Otherwise a delivery of new alerts within the per-delivery cap could never be admitted.
                throw new IllegalArgumentException(
                        "cadre.integrations.alertmanager.new-incidents-per-minute (" + newIncidentsPerMinute
                                + ") must be at least max-alerts-per-delivery (" + maxAlertsPerDelivery + ")");
            }
            if (repeatsPerMinute < maxAlertsPerDelivery) {
                // Otherwise a delivery of repeats within the per-delivery cap could never be admitted.
                throw new IllegalArgumentException(
                        "cadre.integrations.alertmanager.repeats-per-minute (" + repeatsPerMinute
                                + ") must be at least max-alerts-per-delivery (" + maxAlertsPerDelivery + ")");
            }
        }
    }

    /** Admitted, or refused with the seconds after which the same delivery would fit. */
    sealed interface Admission {
        record Admitted(int reserved) implements Admission {}

        record RetryAfter(long seconds, double available) implements Admission {}
    }

    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }
    }

    private final Settings settings;
    private final Clock clock;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final Map<String, Bucket> repeatBuckets = new ConcurrentHashMap<>();
    private final Map<String, Counter> alerts = new ConcurrentHashMap<>();
    private final Counter tooManyAlerts;
    private final Counter rateLimited;
    private final Counter repeatsLimited;

    IntakeLimits(Settings settings, Clock clock, MeterRegistry registry) {
        this.settings = settings;
        this.clock = clock;
        for (String outcome : OUTCOMES) {
            alerts.put(
                    outcome,
                    Counter.builder("cadre.intake.alerts")
                            .description("Alerts the Alertmanager intake admitted, by what became of them")
                            .tag("outcome", outcome)
                            .register(registry));
        }
        this.tooManyAlerts = rejections(registry, "too-many-alerts");
        this.rateLimited = rejections(registry, "rate-limited");
        this.repeatsLimited = rejections(registry, "repeats-rate-limited");
    }

    private static Counter rejections(MeterRegistry registry, String reason) {
        return Counter.builder("cadre.intake.rejections")
                .description("Alertmanager deliveries refused whole: too many alerts in one, or a key over its"
                        + " new-incident or repeat rate")
                .tag("reason", reason)
                .register(registry);
    }

    Settings settings() {
        return settings;
    }

    /** Whether a delivery of {@code count} alerts is within the per-delivery cap; counts a refusal. */
    boolean withinDeliveryCap(int count) {
        if (count <= settings.maxAlertsPerDelivery()) {
            return true;
        }
        tooManyAlerts.increment();
        return false;
    }

    /** Takes {@code newIncidents} from the key's bucket, all or none; counts a refusal. */
    Admission admit(String key, int newIncidents) {
        return take(buckets, settings.newIncidentsPerMinute(), key, newIncidents, rateLimited);
    }

    /**
     * Takes {@code repeats} (firing alerts of incidents already open) from the key's repeat bucket,
     * all or none; counts a refusal. Each repeat writes a sighting, so a flood of one alert is
     * throttled like a flood of new ones, and Alertmanager's retry of the refused delivery loses nothing.
     */
    Admission admitRepeats(String key, int repeats) {
        return take(repeatBuckets, settings.repeatsPerMinute(), key, repeats, repeatsLimited);
    }

    private Admission take(Map<String, Bucket> buckets, int perMinute, String key, int wanted, Counter refusals) {
        if (wanted == 0) {
            return new Admission.Admitted(0);
        }
        double perMs = perMinute / 60_000.0;
        long now = clock.millis();
        if (buckets.size() >= MAX_BUCKETS && !buckets.containsKey(key)) {
            buckets.clear();
        }
        Bucket b = buckets.computeIfAbsent(key, k -> new Bucket(perMinute, now));
        synchronized (b) {
            b.tokens = Math.min(perMinute, b.tokens + (now - b.at) * perMs);
            b.at = now;
            if (b.tokens >= wanted) {
                b.tokens -= wanted;
                return new Admission.Admitted(wanted);
            }
            refusals.increment();
            long waitMs = (long) Math.ceil((wanted - b.tokens) / perMs);
            return new Admission.RetryAfter(Math.max(1, (waitMs + 999) / 1000), b.tokens);
        }
    }

    /** Gives back what an admitted delivery reserved but did not open (a concurrent delivery opened it). */
    void refund(String key, int unused) {
        refund(buckets, settings.newIncidentsPerMinute(), key, unused);
    }

    /** Gives back the repeats of a delivery that was refused for its new incidents after all. */
    void refundRepeats(String key, int unused) {
        refund(repeatBuckets, settings.repeatsPerMinute(), key, unused);
    }

    private static void refund(Map<String, Bucket> buckets, int perMinute, String key, int unused) {
        Bucket b = buckets.get(key);
        if (b == null || unused <= 0) {
            return;
        }
        synchronized (b) {
            b.tokens = Math.min(perMinute, b.tokens + unused);
        }
    }

    /** Counts one admitted alert by what the intake did with it. */
    void counted(String outcome) {
        Counter c = alerts.get(outcome);
        if (c != null) {
            c.increment();
        }
    }
}
