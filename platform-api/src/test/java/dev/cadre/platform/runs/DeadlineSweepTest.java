package dev.cadre.platform.runs;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.TestTools;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/** The deadline sweep on the embedded (in-process) queue. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-deadlines;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.runs.max-concurrent=1",
            // The tests expire runs themselves; a scheduled sweep ending one first would race them.
            "cadre.runs.sweep-interval=PT1H",
            "cadre.approvals.separation-of-duties=false"
        })
@Import(TestTools.class)
class DeadlineSweepTest extends DeadlineSweepContract {}
