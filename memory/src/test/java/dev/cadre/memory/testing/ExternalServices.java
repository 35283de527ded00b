package dev.cadre.memory.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The real PostgreSQL and Redis that integration tests run against.
 *
 * <p>Where a Docker engine answers, Testcontainers starts throw-away servers (unless an address
 * was given explicitly). Otherwise the tests use the services at the configured addresses
 * (environment variables {@code CADRE_TEST_POSTGRES_URL}, {@code CADRE_TEST_POSTGRES_USER},
 * {@code CADRE_TEST_POSTGRES_PASSWORD}, {@code CADRE_TEST_REDIS_URL}; defaults
 * 127.0.0.1:5432 database {@code test} user {@code postgres}, and 127.0.0.1:6379). When neither is
 * reachable the test fails with a message saying exactly what to start: an integration test
 * never skips silently.
 */
public final class ExternalServices {

    private static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

    private ExternalServices() {}

    /** Connection facts of a PostgreSQL database (and, after {@link #freshSchema}, a schema). */
    public record Postgres(String jdbcUrl, String user, String password, String schema) {

        public Connection connect() throws SQLException {
            return DriverManager.getConnection(jdbcUrl, user, password);
        }

        /**
         * Creates an empty schema only this caller uses, so tests never see each other's rows and
         * never drop what they did not create.
         */
        public Postgres freshSchema(String prefix) {
            String name = (prefix + "_" + UUID.randomUUID().toString().substring(0, 8))
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[^a-z0-9_]", "_");
            try (Connection c = connect();
                    var st = c.createStatement()) {
                st.execute("CREATE SCHEMA " + name);
            } catch (SQLException e) {
                throw new IllegalStateException("Could not create test schema " + name + " in " + jdbcUrl, e);
            }
            String sep = jdbcUrl.contains("?") ? "&" : "?";
            return new Postgres(jdbcUrl + sep + "currentSchema=" + name, user, password, name);
        }

        /** Drops a schema this test created with {@link #freshSchema}. */
        public void dropSchema() {
            if (schema == null) {
                return;
            }
            try (Connection c = connect();
                    var st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            } catch (SQLException e) {
                throw new IllegalStateException("Could not drop test schema " + schema, e);
            }
        }
    }

    /** Address of a Redis server. */
    public record Redis(String host, int port) {
        public String uri() {
            return "redis://" + host + ":" + port;
        }
    }

    /** The PostgreSQL database integration tests use; fails the test when none is reachable. */
    public static Postgres postgres() {
        return Holder.POSTGRES;
    }

    /** The Redis server integration tests use; fails the test when none is reachable. */
    public static Redis redis() {
        return Holder.REDIS;
    }

    /** Whether a Docker engine answers (Testcontainers usable). */
    public static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    // Lazy holder: the containers (or the reachability checks) happen once per test JVM.
    private static final class Holder {
        static final Postgres POSTGRES = resolvePostgres();
        static final Redis REDIS = resolveRedis();
    }

    /**
     * The platform creates pg_trgm where its search path points, which in the tests is a throw-away
     * schema; dropping that schema (CASCADE) would take the extension, and every other schema's
     * trigram indexes, away in the middle of the suite. So the extension lives in {@code public}.
     */
    private static void keepTrigramsInPublic(Connection c) {
        try (var st = c.createStatement()) {
            st.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public");
            st.execute("ALTER EXTENSION pg_trgm SET SCHEMA public");
        } catch (SQLException e) {
            // Not installed or no privilege: the platform then searches without trigram indexes, as it says.
        }
    }

    private static Postgres resolvePostgres() {
        String url = System.getenv("CADRE_TEST_POSTGRES_URL");
        if (url == null && dockerAvailable()) {
            PostgreSQLContainer pg = new PostgreSQLContainer("postgres:16-alpine");
            pg.start();
            return new Postgres(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword(), null);
        }
        String effective = url != null ? url : DEFAULT_PG_URL;
        String user = envOr("CADRE_TEST_POSTGRES_USER", "postgres");
        String password = envOr("CADRE_TEST_POSTGRES_PASSWORD", "");
        URI address = URI.create(effective.substring("jdbc:".length()));
        requireReachable(
                "PostgreSQL",
                address.getHost(),
                address.getPort() < 0 ? 5432 : address.getPort(),
                "start it (e.g. `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`), "
                        + "point CADRE_TEST_POSTGRES_URL / _USER / _PASSWORD at one, or run a Docker engine for Testcontainers");
        Postgres pg = new Postgres(effective, user, password, null);
        try (Connection c = pg.connect()) {
            keepTrigramsInPublic(c);
            return pg;
        } catch (SQLException e) {
            throw new AssertionError(
                    "PostgreSQL at " + effective + " refused user '" + user + "': " + e.getMessage()
                            + " — set CADRE_TEST_POSTGRES_USER / CADRE_TEST_POSTGRES_PASSWORD",
                    e);
        }
    }

    private static Redis resolveRedis() {
        String url = System.getenv("CADRE_TEST_REDIS_URL");
        if (url == null && dockerAvailable()) {
            GenericContainer<?> redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
            redis.start();
            return new Redis(redis.getHost(), redis.getMappedPort(6379));
        }
        URI address = URI.create(url != null ? url : DEFAULT_REDIS_URL);
        int port = address.getPort() < 0 ? 6379 : address.getPort();
        requireReachable(
                "Redis",
                address.getHost(),
                port,
                "start it (e.g. `redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save \"\" --appendonly no`), "
                        + "point CADRE_TEST_REDIS_URL at one, or run a Docker engine for Testcontainers");
        return new Redis(address.getHost(), port);
    }

    private static void requireReachable(String what, String host, int port, String remedy) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2_000);
        } catch (IOException e) {
            throw new AssertionError(what + " is not reachable at " + host + ":" + port
                    + " and no Docker engine is available for Testcontainers. To run the integration tests, "
                    + remedy + ". (" + e.getMessage() + ")");
        }
    }

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null ? fallback : v;
    }
}
