package dev.cadre.memory.bench;

import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import dev.cadre.memory.bench.ClosedLoop.Op;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The operations memory's figures are measured against — raw PostgreSQL and Redis, and the library
 * called directly — shared by MemoryBenchmark and the platform benchmark, so "REST / library" and
 * "library / raw" compare the very same baselines.
 */
public final class Baselines {

    public static final String VALUE = "{\"status\":\"ok\",\"cpu\":42,\"checkedBy\":\"inspector\"}";

    private Baselines() {}

    /** The table {@link #rawUpdate} writes; created once per schema. */
    public static void createRawTable(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(
                    "CREATE TABLE bench_raw (k VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL, version BIGINT NOT NULL)");
        }
    }

    /** A pooled connection and a conditional {@code UPDATE … WHERE version = ?} in autocommit, per call. */
    public static Op rawUpdate(DataSource ds, int run, int clients) throws Exception {
        long[] versions = new long[clients];
        String[] keys = new String[clients];
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO bench_raw (k, value, version) VALUES (?, ?, 1)")) {
            for (int i = 0; i < clients; i++) {
                keys[i] = "raw-" + run + "-" + clients + "-" + i;
                versions[i] = 1;
                ps.setString(1, keys[i]);
                ps.setString(2, VALUE);
                ps.executeUpdate();
            }
        }
        return client -> {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement(
                            "UPDATE bench_raw SET value = ?, version = version + 1 WHERE k = ? AND version = ?")) {
                ps.setString(1, VALUE);
                ps.setString(2, keys[client]);
                ps.setLong(3, versions[client]);
                if (ps.executeUpdate() != 1) {
                    throw new IllegalStateException("raw update lost its version");
                }
                versions[client]++;
            }
        };
    }

    /** {@code put} with the expected version, one key per client. */
    public static Op cas(SharedMemory memory, String ns, int clients) {
        long[] versions = new long[clients];
        Writer[] writers = new Writer[clients];
        for (int i = 0; i < clients; i++) {
            writers[i] = Writer.agent("bench-" + i, "run");
        }
        return client -> {
            WriteOutcome outcome = memory.put(ns, "key-" + client, VALUE, versions[client], writers[client]);
            if (!(outcome instanceof WriteOutcome.Written w)) {
                throw new IllegalStateException("CAS lost its version: " + outcome);
            }
            versions[client] = w.version();
        };
    }

    /** A plain Redis {@code GET} of a value as large as an entry's. */
    public static Op rawGet(StatefulRedisConnection<String, String> raw, String prefix, int clients) {
        for (int i = 0; i < clients; i++) {
            raw.sync().set(prefix + ":raw:" + i, VALUE);
        }
        return client -> {
            if (raw.sync().get(prefix + ":raw:" + client) == null) {
                throw new IllegalStateException("raw key vanished");
            }
        };
    }

    /** {@code get}, answered by the hybrid's cache once warmed (entries created when absent). */
    public static Op cachedGet(SharedMemory hybrid, String ns, int clients) {
        for (int i = 0; i < clients; i++) {
            if (hybrid.get(ns, "key-" + i, true).isEmpty()) {
                hybrid.put(ns, "key-" + i, VALUE, 0, Writer.agent("bench", "run"));
            }
            hybrid.get(ns, "key-" + i); // warm the cache
        }
        return client -> {
            if (hybrid.get(ns, "key-" + client).isEmpty()) {
                throw new IllegalStateException("entry vanished");
            }
        };
    }

    /** {@code get(…, consistent = true)}: a primary-key read on PostgreSQL. */
    public static Op consistentGet(SharedMemory hybrid, String ns) {
        return client -> {
            if (hybrid.get(ns, "key-" + client, true).isEmpty()) {
                throw new IllegalStateException("entry vanished");
            }
        };
    }
}
