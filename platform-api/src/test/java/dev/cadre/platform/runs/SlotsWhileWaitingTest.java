package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.TestTools;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

/**
 * Runs waiting for a human give their execution slot back: with two slots, three runs waiting for
 * approval do not stop a fourth from completing, and once approved they all finish, sharing the
 * two slots. (Before, each waiting run held its slot, and enough pending approvals stalled the
 * instance.) Its own context: it needs {@code max-concurrent=2}.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-slots;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.runs.max-concurrent=2",
            // One admin key submits and decides here (SecurityAttackTest covers the refusal).
            "cadre.approvals.separation-of-duties=false"
        })
@Import(TestTools.class)
class SlotsWhileWaitingTest {

    @LocalServerPort
    int port;

    @Test
    void runsWaitingForAHuman_doNotHoldTheInstancesSlots() {
        Api api = new Api(port);
        List<String> waiting = new ArrayList<>();
        List<String> approvals = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = api.submitRun("fixer", "api is stuck #" + i).get("id").asString();
            waiting.add(id);
            // One at a time: each reaches input-required (its approval stored) before the next starts.
            approvals.add(api.pendingApprovalOf(id).get("id").asString());
        }

        JsonNode other = api.awaitRunEnd(
                api.submitRun("echoer", "while three wait").get("id").asString());
        assertThat(other.get("status").asString()).isEqualTo("completed");
        assertThat(other.get("result").asString()).isEqualTo("remote says: while three wait");

        for (String approval : approvals) {
            assertThat(api.approve(approval, Api.ADMIN_KEY).status()).isEqualTo(200);
        }
        for (String id : waiting) {
            assertThat(api.awaitRunEnd(id).get("status").asString()).isEqualTo("completed");
        }
    }
}
