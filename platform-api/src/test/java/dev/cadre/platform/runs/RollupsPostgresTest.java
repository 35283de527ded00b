package dev.cadre.platform.runs;

import dev.cadre.platform.support.PostgresPlatformTest;
import dev.cadre.platform.support.PostgresSchemas;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link RollupsContract} on PostgreSQL. */
@PostgresPlatformTest
class RollupsPostgresTest extends RollupsContract {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "rollups");
    }
}
