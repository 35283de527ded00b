package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The intake caps at their defaults let a 50-alert outage through and bound what one key opens. */
class IntakeLimitsTest {

    /** A clock the test moves. */
    static final class SteppedClock extends Clock {
        private Instant now = Instant.parse("2026-12-05T03:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final SteppedClock clock = new SteppedClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // The shipped defaults of max-alerts-per-delivery and new-incidents-per-minute.
    private final IntakeLimits limits = new IntakeLimits(new IntakeLimits.Settings(100, 120), clock, registry);

    @Test
    void aFiftyAlertOutage_inOneDeliveryOrInFifty_isAdmitted() {
        assertThat(limits.withinDeliveryCap(50)).isTrue();
        assertThat(limits.admit("am", 50)).isEqualTo(new IntakeLimits.Admission.Admitted(50));
        for (int i = 0; i < 50; i++) {
            assertThat(limits.admit("am-2", 1)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        }
    }

    @Test
    void beyondTheRate_theDeliveryWaits_andTheBucketRefillsOverTheMinute() {
        assertThat(limits.admit("am", 100)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        var refused = limits.admit("am", 30);
        // 20 left, 10 short at 2 per second: 5 s.
        assertThat(refused).isEqualTo(new IntakeLimits.Admission.RetryAfter(5, 20.0));
        clock.advance(Duration.ofSeconds(5));
        assertThat(limits.admit("am", 30)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        assertThat(limits.admit("other-key", 100)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        assertThat(registry.get("cadre.intake.rejections")
                        .tag("reason", "rate-limited")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void repeatsOfOpenIncidents_countAgainstTheRepeatRate_andARefusedDeliveryFitsAfterItsRetryAfter() {
        IntakeLimits small = new IntakeLimits(new IntakeLimits.Settings(4, 6, 8), clock, registry);
        for (int i = 0; i < 8; i++) {
            assertThat(small.admitRepeats("am", 1)).isEqualTo(new IntakeLimits.Admission.Admitted(1));
        }
        // 8 per minute: the ninth repeat waits 7.5 s, said as 8.
        assertThat(small.admitRepeats("am", 1)).isEqualTo(new IntakeLimits.Admission.RetryAfter(8, 0.0));
        // New incidents have their own bucket.
        assertThat(small.admit("am", 4)).isEqualTo(new IntakeLimits.Admission.Admitted(4));
        clock.advance(Duration.ofSeconds(8));
        assertThat(small.admitRepeats("am", 1)).isEqualTo(new IntakeLimits.Admission.Admitted(1));
        assertThat(registry.get("cadre.intake.rejections")
                        .tag("reason", "repeats-rate-limited")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void repeatsGivenBack_fitAgain() {
        IntakeLimits small = new IntakeLimits(new IntakeLimits.Settings(4, 6, 8), clock, registry);
        assertThat(small.admitRepeats("am", 4)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        assertThat(small.admitRepeats("am", 4)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        small.refundRepeats("am", 4);
        assertThat(small.admitRepeats("am", 4)).isEqualTo(new IntakeLimits.Admission.Admitted(4));
    }

    @Test
    void aDeliveryOverTheCap_isCounted() {
        assertThat(limits.withinDeliveryCap(101)).isFalse();
        assertThat(registry.get("cadre.intake.rejections")
                        .tag("reason", "too-many-alerts")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void whatAnAdmittedDeliveryDidNotOpen_isGivenBack() {
        limits.admit("am", 120);
        limits.refund("am", 10);
        assertThat(limits.admit("am", 10)).isInstanceOf(IntakeLimits.Admission.Admitted.class);
        assertThat(limits.admit("am", 1)).isInstanceOf(IntakeLimits.Admission.RetryAfter.class);
    }

    @Test
    void aRateBelowTheDeliveryCap_isAConfigurationError() {
        assertThatThrownBy(() -> new IntakeLimits.Settings(100, 50))
                .hasMessageContaining("new-incidents-per-minute (50) must be at least max-alerts-per-delivery (100)");
        assertThatThrownBy(() -> new IntakeLimits.Settings(4, 6, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("repeats-per-minute (3) must be at least max-alerts-per-delivery (4)");
        assertThatThrownBy(() -> new IntakeLimits.Settings(0, 50))
                .hasMessageContaining("max-alerts-per-delivery must be at least 1");
    }
}
