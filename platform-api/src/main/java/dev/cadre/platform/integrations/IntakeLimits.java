package dev.cadre.platform.integrations;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How much one intake key may start (issue 23 finding 7: one 4 KB delivery opened 30 incidents, 30
 * runs and 30 pending approvals in 2 s; the body limit allowed thousands): at most {@code
 * maxAlertsPerDelivery} alerts in one delivery, and at most {@code newIncidentsPerMinute} new
 * incidents — each of which starts a triage run — per key per minute, a token bucket per key and
 * instance. A delivery is admitted whole or not at all, so nothing is half-processed when it is
 * refused; repeats and resolves of open incidents cost nothing. Refusals are counted in {@code
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
     */
    record Settings(int maxAlertsPerDelivery, int newIncidentsPerMinute) {
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
    private final Map<String, Counter> alerts = new ConcurrentHashMap<>();
    private final Counter tooManyAlerts;
    private final Counter rateLimited;

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
    }

    private static Counter rejections(MeterRegistry registry, String reason) {
        return Counter.builder("cadre.intake.rejections")
                .description("Alertmanager deliveries refused whole: too many alerts in one, or a key over its"
                        + " new-incident rate")
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
        if (newIncidents == 0) {
            return new Admission.Admitted(0);
        }
        double perMs = settings.newIncidentsPerMinute() / 60_000.0;
        long now = clock.millis();
        if (buckets.size() >= MAX_BUCKETS && !buckets.containsKey(key)) {
            buckets.clear();
        }
        Bucket b = buckets.computeIfAbsent(key, k -> new Bucket(settings.newIncidentsPerMinute(), now));
        synchronized (b) {
            b.tokens = Math.min(settings.newIncidentsPerMinute(), b.tokens + (now - b.at) * perMs);
            b.at = now;
            if (b.tokens >= newIncidents) {
                b.tokens -= newIncidents;
                return new Admission.Admitted(newIncidents);
            }
            rateLimited.increment();
            long waitMs = (long) Math.ceil((newIncidents - b.tokens) / perMs);
            return new Admission.RetryAfter(Math.max(1, (waitMs + 999) / 1000), b.tokens);
        }
    }

    /** Gives back what an admitted delivery reserved but did not open (a concurrent delivery opened it). */
    void refund(String key, int unused) {
        Bucket b = buckets.get(key);
        if (b == null || unused <= 0) {
            return;
        }
        synchronized (b) {
            b.tokens = Math.min(settings.newIncidentsPerMinute(), b.tokens + unused);
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
