package dev.cadre.memory;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.TestDatabases;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract on {@link JdbcSharedMemory} over an H2 file database opened with the URL options of
 * platform-api's embedded default.
 */
class JdbcH2SharedMemoryIT extends SharedMemoryContract {

    private static Path dir;
    private static HikariDataSource dataSource;

    @BeforeAll
    static void createDatabase() throws IOException {
        dir = Files.createTempDirectory("cadre-memory-h2");
        dataSource = TestDatabases.h2File(dir, 12);
        MemorySchema.migrate(dataSource);
    }

    @AfterAll
    static void deleteDatabase() throws IOException {
        dataSource.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Override
    protected SharedMemory create(MemoryOptions options) {
        return new JdbcSharedMemory(dataSource, options);
    }
}
