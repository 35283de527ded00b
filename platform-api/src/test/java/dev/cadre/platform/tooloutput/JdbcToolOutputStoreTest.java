package dev.cadre.platform.tooloutput;

import dev.cadre.agent.tool.output.ToolOutputStore;
import dev.cadre.agent.tool.output.ToolOutputs;
import dev.cadre.platform.support.PlatformTest;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/** {@link ToolOutputStoreContract} on the platform's database store, embedded default (H2). */
@PlatformTest
class JdbcToolOutputStoreTest extends ToolOutputStoreContract {

    @Autowired
    ToolOutputs outputs;

    @Autowired
    JdbcClient jdbc;

    @Override
    ToolOutputStore store() {
        return outputs.store();
    }

    @Override
    String newRun() {
        return insertRun(jdbc);
    }

    /** A finished run row no executor picks up (its agent is no agent). */
    static String insertRun(JdbcClient jdbc) {
        String id = "run_" + UUID.randomUUID();
        Timestamp now = Timestamp.from(Instant.now());
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, created_at, updated_at)"
                        + " VALUES (?, 'tool-output-test', 'x', 'completed', 'tool-output-test', ?, ?)")
                .params(id, now, now)
                .update();
        return id;
    }
}
