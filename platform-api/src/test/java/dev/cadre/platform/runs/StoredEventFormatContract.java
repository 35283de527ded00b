package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.event.EventMeta;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Run events are stored without the envelope their columns hold (V18) and read back as the same
 * JSON text they were sent as, field order included; rows stored before V18 (the whole JSON) read
 * as they always did. Run on H2 ({@link StoredEventFormatTest}) and PostgreSQL, where the events
 * table is partitioned ({@link StoredEventFormatPostgresTest}).
 */
abstract class StoredEventFormatContract {

    @Autowired
    RunEvents events;

    @Autowired
    EventJson eventJson;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    JsonMapper json;

    @Test
    void everyEventType_isStoredCompact_andReadsBackAsTheSameText() {
        String runId = "run-format-" + UUID.randomUUID();
        List<String> sent = new ArrayList<>();
        long seq = 0;
        for (AgentEvent e : WireFormatGoldenTest.allEventTypes(runId)) {
            ObjectNode wire = eventJson.toJson(e);
            wire.put("seq", ++seq);
            sent.add(wire.toString());
            assertThat(events.append(e)).isEqualTo(seq);
        }
        // A workflow step's main stream is stored as a child of the workflow's session.
        AgentEvent step = new AgentEvent.TextDelta(
                new EventMeta(
                        runId, runId + "/step#1", null, 1, "step", Instant.parse("2026-01-02T03:04:05.123456789Z")),
                "a step speaks");
        ObjectNode stepWire = eventJson.toJson(step);
        stepWire.put("parentSessionId", runId);
        stepWire.put("seq", ++seq);
        sent.add(stepWire.toString());
        events.appendStep(step, runId);

        assertThat(readBack(runId)).containsExactlyElementsOf(sent);
        List<String> stored = jdbc.sql("SELECT data FROM cadre_run_event WHERE run_id = ? AND data_format = 1")
                .param(runId)
                .query(String.class)
                .list();
        assertThat(stored).hasSize(sent.size());
        assertThat(stored).noneMatch(d -> d.contains("\"runId\"") || d.contains("\"seq\"") || d.contains("\"type\""));
        long storedBytes = stored.stream().mapToLong(String::length).sum();
        long sentBytes = sent.stream().mapToLong(String::length).sum();
        assertThat(storedBytes).isLessThan(sentBytes - sent.size() * (long) (runId.length() + 40));
    }

    @Test
    void aRowStoredBeforeV18_readsAsItWasStored() {
        String runId = "run-old-" + UUID.randomUUID();
        AgentEvent e = WireFormatGoldenTest.allEventTypes(runId).get(3); // tool_call_start
        ObjectNode wire = eventJson.toJson(e);
        wire.put("seq", 1);
        String old = wire.toString();
        // As the platform inserted events before V18: no data_format (its default says "whole").
        jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, parent_session_id, main_stream, type, data, at)"
                        + " VALUES (?, 1, ?, NULL, TRUE, ?, ?, ?)")
                .params(
                        runId,
                        e.meta().sessionId(),
                        e.type(),
                        old,
                        Timestamp.from(e.meta().at()))
                .update();

        assertThat(readBack(runId)).containsExactly(old);
    }

    @Test
    void anEventWhoseJsonDoesNotRepeatItsColumns_isStoredWhole() {
        String runId = "run-whole-" + UUID.randomUUID();
        // Like the executor's "failed before executing" event: no session in the JSON.
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.put("type", "error");
        data.put("runId", runId);
        data.put("status", "failed");
        events.append(runId, "error", true, runId, null, data, Instant.now());

        assertThat(readBack(runId))
                .containsExactly("{\"type\":\"error\",\"runId\":\"" + runId + "\",\"status\":\"failed\",\"seq\":1}");
        assertThat(jdbc.sql("SELECT data_format FROM cadre_run_event WHERE run_id = ?")
                        .param(runId)
                        .query(Integer.class)
                        .single())
                .isZero();
    }

    @Test
    void aFormatThisVersionDoesNotKnow_isAnErrorNamingIt() {
        assertThatThrownBy(() -> StoredEventFormat.read(
                        JsonNodeFactory.instance.objectNode(), 7, "run-x", 3, "status", "run-x", null))
                .hasMessageContaining("event 3 of run run-x has unknown stored format 7");
    }

    private List<String> readBack(String runId) {
        return events.since(runId, 0, true, 1000).stream()
                .map(ev -> json.writeValueAsString(ev.data()))
                .toList();
    }
}
