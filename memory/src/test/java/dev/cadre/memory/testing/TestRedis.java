package dev.cadre.memory.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.List;

/** Clean-up of the Redis keys a test created under its own prefix (never anything else). */
public final class TestRedis {

    private TestRedis() {}

    /** Deletes every key starting with {@code prefix}; the prefix must be the test's own, e.g. with a UUID. */
    public static void deletePrefix(RedisClient redis, String prefix) {
        if (prefix.length() < 16) {
            throw new IllegalArgumentException("refusing to delete by a short prefix: '" + prefix + "'");
        }
        try (StatefulRedisConnection<String, String> c = redis.connect()) {
            ScanIterator<String> keys = ScanIterator.scan(
                    c.sync(), ScanArgs.Builder.matches(prefix + "*").limit(500));
            List<String> batch = new ArrayList<>();
            while (keys.hasNext()) {
                batch.add(keys.next());
                if (batch.size() == 500) {
                    c.sync().del(batch.toArray(String[]::new));
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                c.sync().del(batch.toArray(String[]::new));
            }
        }
    }
}
