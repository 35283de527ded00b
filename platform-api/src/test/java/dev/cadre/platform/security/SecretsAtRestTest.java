package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.approval.ActionHash;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import dev.cadre.platform.support.TestTools;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 13, item 6 (remainder): the record of what ran keeps a hash, not the secret. An approver
 * edits a call to carry a credential; the tool runs with it, but the approval (over REST, and in the
 * database once the run ended) and the tool journal keep it only redacted, with the hash of what ran.
 */
@PlatformTest
class SecretsAtRestTest {

    private static final String SECRET = "hunter2pass-7741";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Test
    void editedArgumentsWithASecret_runAsGiven_butAreKeptAndShownOnlyRedactedWithTheirHash() {
        Api api = new Api(port);
        String run = api.submitRun("fixer", "secret edits").get("id").asString();
        String id = api.pendingApprovalOf(run).get("id").asString();
        JsonNode edits = JSON.readTree("{\"service\":\"api\",\"host\":\"https://ops:" + SECRET + "@web-9\"}");

        var decided = api.approve(id, Api.ADMIN_KEY, Api.json(Map.of("editedArguments", edits)));
        assertThat(decided.status()).as(decided.body()).isEqualTo(200);
        String ran = ActionHash.of("restart_service", edits);
        assertThat(decided.json().get("editedArguments").get("host").asString())
                .isEqualTo("https://ops:[REDACTED]@web-9");
        assertThat(decided.json().get("executedHash").asString()).isEqualTo(ran);
        assertThat(decided.body()).doesNotContain(SECRET);

        assertThat(api.awaitRunEnd(run).get("status").asString()).isEqualTo("completed");
        // The tool itself got the real arguments.
        assertThat(TestTools.RESTARTS).contains(run + " " + edits);

        var journal = jdbc.sql("SELECT arguments, arguments_hash FROM cadre_tool_journal WHERE run_id = ?")
                .param(run)
                .query((rs, i) -> new String[] {rs.getString(1), rs.getString(2)})
                .single();
        assertThat(journal[0]).doesNotContain(SECRET).contains("[REDACTED]");
        assertThat(journal[1]).as("the journal's hash of what ran").isEqualTo(ran);

        String stored = jdbc.sql("SELECT edited_arguments FROM cadre_approval WHERE id = ?")
                .param(id)
                .query(String.class)
                .single();
        assertThat(stored).as("edits at rest once the run ended").doesNotContain(SECRET);
        assertThat(api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY).body()).doesNotContain(SECRET);
        assertThat(api.get("/api/v1/approvals?runId=" + run, Api.ADMIN_KEY).body())
                .doesNotContain(SECRET);
        assertThat(api.get("/api/v1/runs/" + run + "/events", Api.ADMIN_KEY).body())
                .doesNotContain(SECRET);
    }
}
