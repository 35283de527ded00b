package dev.cadre.platform.runs;

import dev.cadre.platform.support.PostgresPlatformTest;
import dev.cadre.platform.support.PostgresSchemas;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link StoredEventFormatContract} on PostgreSQL (day-partitioned events, V10 then V18). */
@PostgresPlatformTest
class StoredEventFormatPostgresTest extends StoredEventFormatContract {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "stored_event_format");
    }
}
