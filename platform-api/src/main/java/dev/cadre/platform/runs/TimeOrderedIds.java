package dev.cadre.platform.runs;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;

/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter (method 1 of section 6.2)
 * and 62 random bits. Ids made by one generator are strictly increasing, also within one
 * millisecond and when the clock steps back, so new runs append to the primary-key and time
 * indexes instead of landing at random pages (random v4 ids did, for every insert).
 */
final class TimeOrderedIds {

    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private long lastMillis = -1; // guarded by this
    private int counter; // guarded by this

    TimeOrderedIds(Clock clock) {
        this.clock = clock;
    }

    synchronized UUID next() {
        long millis = clock.millis();
        if (millis > lastMillis) {
            lastMillis = millis;
            // Start low in the 12-bit space with a random offset, leaving room to count up.
            counter = random.nextInt(1 << 10);
        } else {
            counter++;
            if (counter > 0xFFF) {
                // 4,096 ids in one millisecond: borrow the next millisecond rather than repeat.
                lastMillis++;
                counter = 0;
            }
        }
        long msb = (lastMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | counter;
        long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    /** The 32 hex digits of {@link #next()} without dashes, as run ids carry them. */
    String nextHex() {
        return next().toString().replace("-", "");
    }
}
