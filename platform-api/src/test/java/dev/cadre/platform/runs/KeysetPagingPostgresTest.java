package dev.cadre.platform.runs;

import dev.cadre.platform.support.PostgresPlatformTest;
import dev.cadre.platform.support.PostgresSchemas;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link KeysetPagingContract} on PostgreSQL. */
@PostgresPlatformTest
class KeysetPagingPostgresTest extends KeysetPagingContract {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "keyset_paging");
    }
}
