package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Run ids are UUIDv7: they sort by creation, also within one millisecond and when the clock steps
 * back, so inserts append to the indexes (random v4 ids scattered every insert).
 */
class TimeOrderedIdsTest {

    /** A clock whose millisecond the test sets. */
    static final class SetClock extends Clock {
        long millis;

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
            return Instant.ofEpochMilli(millis);
        }
    }

    @Test
    void idsAreVersion7_carryTheMillisecond_andStrictlyIncrease_evenWithinAMillisecondAndWhenTheClockStepsBack() {
        SetClock clock = new SetClock();
        clock.millis = Instant.parse("2026-12-03T12:00:00Z").toEpochMilli();
        TimeOrderedIds ids = new TimeOrderedIds(clock);

        List<String> made = new ArrayList<>();
        UUID first = ids.next();
        assertThat(first.version()).isEqualTo(7);
        assertThat(first.variant()).isEqualTo(2);
        assertThat(first.getMostSignificantBits() >>> 16).isEqualTo(clock.millis);
        made.add(first.toString().replace("-", ""));
        for (int i = 0; i < 10_000; i++) { // more than the 4,096 a millisecond's counter holds
            made.add(ids.nextHex());
        }
        clock.millis -= 5_000; // NTP stepped the clock back
        for (int i = 0; i < 100; i++) {
            made.add(ids.nextHex());
        }
        clock.millis += 60_000;
        UUID later = ids.next();
        made.add(later.toString().replace("-", ""));

        assertThat(made).doesNotHaveDuplicates().isSorted();
        assertThat(made).allMatch(s -> s.matches("[0-9a-f]{32}"));
        assertThat(later.getMostSignificantBits() >>> 16).isEqualTo(clock.millis);
    }
}
