package dev.cadre.platform.runs;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.TestTools;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/** {@link RunEndingContract} on the embedded H2 database. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-run-ending;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;"
                    + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:ending-agents/*.yaml",
            "cadre.approvals.separation-of-duties=false",
            "cadre.retention.enabled=false"
        })
@Import({TestTools.class, RunEndingContract.Faults.class})
class RunEndingTest extends RunEndingContract {}
