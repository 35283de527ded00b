package dev.cadre.memory.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;

/** Pooled DataSources on the integration-test databases (close them after the test). */
public final class TestDatabases {

    private TestDatabases() {}

    /** A pool on a PostgreSQL database or schema from {@link ExternalServices#postgres()}. */
    public static HikariDataSource pool(ExternalServices.Postgres pg, int size) {
        return pool(pg, size, true);
    }

    /** As {@link #pool(ExternalServices.Postgres, int)}, with connections in or out of autocommit. */
    public static HikariDataSource pool(ExternalServices.Postgres pg, int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setAutoCommit(autoCommit);
        config.setJdbcUrl(pg.jdbcUrl());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setMaximumPoolSize(size);
        config.setPoolName("cadre-memory-test");
        return new HikariDataSource(config);
    }

    /**
     * A pool on an H2 file database in {@code dir}, with the URL options of platform-api's embedded
     * default.
     */
    public static HikariDataSource h2File(Path dir, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:file:" + dir.resolve("cadre").toAbsolutePath()
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setPoolName("cadre-memory-h2");
        return new HikariDataSource(config);
    }
}
