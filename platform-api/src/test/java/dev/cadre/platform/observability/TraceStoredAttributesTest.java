package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Spans are stored without the attributes that repeat what is stored anyway (the run id, an agent's
 * session id under two more names, the parent's session), and a run's trace reads the same, byte for
 * byte, as from spans stored with every attribute (as before).
 */
@PlatformTest
class TraceStoredAttributesTest {

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    JsonMapper json;

    @Test
    void anAgentSpan_isStoredWithoutTheIdsItRepeats() {
        ObjectNode agent = (ObjectNode) json.readTree("{\"gen_ai.provider.name\":\"scripted\","
                + "\"gen_ai.agent.name\":\"cpu\",\"cadre.session.parent_id\":\"run_1\","
                + "\"cadre.session.id\":\"run_1/cpu#1\",\"gen_ai.agent.id\":\"run_1/cpu#1\",\"cadre.depth\":1,"
                + "\"gen_ai.conversation.id\":\"run_1/cpu#1\",\"cadre.run.id\":\"run_1\",\"cadre.status\":\"ok\"}");

        assertThat(TraceStore.storedAttributes(agent, "run_1").toString())
                .isEqualTo("{\"gen_ai.provider.name\":\"scripted\",\"gen_ai.agent.name\":\"cpu\","
                        + "\"cadre.session.id\":\"run_1/cpu#1\",\"cadre.depth\":1,\"cadre.status\":\"ok\"}");
    }

    @Test
    void aModelCall_keepsItsConversationId_theOnlySessionItHas() {
        ObjectNode chat = (ObjectNode)
                json.readTree(
                        "{\"gen_ai.agent.name\":\"ops\","
                                + "\"gen_ai.conversation.id\":\"run_1\",\"gen_ai.operation.name\":\"chat\",\"cadre.run.id\":\"run_1\"}");

        assertThat(TraceStore.storedAttributes(chat, "run_1").toString())
                .isEqualTo("{\"gen_ai.agent.name\":\"ops\",\"gen_ai.conversation.id\":\"run_1\","
                        + "\"gen_ai.operation.name\":\"chat\"}");
        // Another run's id is not this row's column: kept.
        assertThat(TraceStore.storedAttributes(chat, "run_2").has("cadre.run.id"))
                .isTrue();
    }

    @Test
    void aRunsTrace_readsTheSame_fromSpansStoredWithEveryAttribute() {
        Api api = new Api(port);
        String run = api.submitRun("triage", "compact spans").get("id").asString();
        api.awaitRunEnd(run);
        Await.until(
                "spans of " + run + " in the trace store",
                () -> api.get("/api/v1/runs/" + run + "/trace", Api.ADMIN_KEY).json(),
                t -> t.get("spanCount").asInt() >= 14 && !t.get("traceId").isNull());
        String compact =
                api.get("/api/v1/runs/" + run + "/trace", Api.ADMIN_KEY).body();

        record Row(String traceId, String spanId, String parent, String name, ObjectNode attributes) {}
        List<Row> rows = jdbc.sql("SELECT trace_id, span_id, parent_span_id, name, attributes FROM cadre_span"
                        + " WHERE run_id = ?")
                .param(run)
                .query((rs, i) ->
                        new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), (ObjectNode)
                                json.readTree(rs.getString(5))))
                .list();
        assertThat(rows).hasSizeGreaterThanOrEqualTo(14);
        assertThat(rows).noneMatch(r -> r.attributes().has("cadre.run.id"));
        // Back to what the exporter hands over, as every span stored before was kept.
        Map<String, String> sessionOf = new HashMap<>();
        rows.forEach(r -> sessionOf.put(
                r.spanId(), r.attributes().path("cadre.session.id").asString(null)));
        for (Row r : rows) {
            ObjectNode a = r.attributes();
            a.put("cadre.run.id", run);
            String session = a.path("cadre.session.id").asString(null);
            if (r.name().startsWith("invoke_agent")) {
                a.put("gen_ai.agent.id", session);
                a.put("gen_ai.conversation.id", session);
                if (sessionOf.get(r.parent()) != null) {
                    a.put("cadre.session.parent_id", sessionOf.get(r.parent()));
                }
            }
            jdbc.sql("UPDATE cadre_span SET attributes = ? WHERE trace_id = ? AND span_id = ?")
                    .params(a.toString(), r.traceId(), r.spanId())
                    .update();
        }

        assertThat(api.get("/api/v1/runs/" + run + "/trace", Api.ADMIN_KEY).body())
                .isEqualTo(compact);
    }
}
