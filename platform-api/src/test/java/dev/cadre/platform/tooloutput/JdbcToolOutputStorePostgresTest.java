package dev.cadre.platform.tooloutput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.output.ToolOutputStore;
import dev.cadre.agent.tool.output.ToolOutputs;
import dev.cadre.platform.support.PostgresPlatformTest;
import dev.cadre.platform.support.PostgresSchemas;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link ToolOutputStoreContract} on PostgreSQL, plus what only a database does: outputs go with their run. */
@PostgresPlatformTest
class JdbcToolOutputStorePostgresTest extends ToolOutputStoreContract {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "tool_outputs");
    }

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
        return JdbcToolOutputStoreTest.insertRun(jdbc);
    }

    @Test
    void deletingTheRun_deletesItsOutputs_andANulCharacterIsKept() {
        String run = newRun();
        ToolOutputs.Delivered d = outputs.deliver(
                new ToolContext(run, run, "a", "call_1_1"), "logs", "nul \u0000 here\n" + log(5000), 4096);
        assertThat(outputs.read(run, d.handle(), 0, 1, null, 1000)
                        .lines()
                        .getFirst()
                        .text())
                .isEqualTo("nul \uFFFD here");
        jdbc.sql("DELETE FROM cadre_run WHERE id = ?").params(run).update();
        assertThat(store().find(run, d.handle())).isNull();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM cadre_tool_output_chunk WHERE run_id = ?")
                        .params(run)
                        .query(Long.class)
                        .single())
                .isZero();
    }
}
