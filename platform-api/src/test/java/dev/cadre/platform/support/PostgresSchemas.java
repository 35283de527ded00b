package dev.cadre.platform.support;

import dev.cadre.memory.testing.ExternalServices;
import org.springframework.test.context.DynamicPropertyRegistry;

/** For {@link PostgresPlatformTest} classes' {@code @DynamicPropertySource} methods. */
public final class PostgresSchemas {

    private PostgresSchemas() {}

    /** Points the datasource at a new schema of the test PostgreSQL database ({@code CADRE_TEST_POSTGRES_URL}). */
    public static void fresh(DynamicPropertyRegistry registry, String prefix) {
        ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema(prefix);
        registry.add("spring.datasource.url", pg::jdbcUrl);
        registry.add("spring.datasource.username", pg::user);
        registry.add("spring.datasource.password", pg::password);
    }
}
