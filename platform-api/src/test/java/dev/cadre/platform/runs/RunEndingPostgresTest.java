package dev.cadre.platform.runs;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PostgresSchemas;
import dev.cadre.platform.support.TestTools;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link RunEndingContract} on PostgreSQL. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:ending-agents/*.yaml",
            "cadre.approvals.separation-of-duties=false",
            "cadre.retention.enabled=false"
        })
@Import({TestTools.class, RunEndingContract.Faults.class})
class RunEndingPostgresTest extends RunEndingContract {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "run_ending");
    }
}
