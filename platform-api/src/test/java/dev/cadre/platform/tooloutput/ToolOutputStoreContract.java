package dev.cadre.platform.tooloutput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.telemetry.Redactor;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.output.ToolOutputBudget;
import dev.cadre.agent.tool.output.ToolOutputChunk;
import dev.cadre.agent.tool.output.ToolOutputInfo;
import dev.cadre.agent.tool.output.ToolOutputPage;
import dev.cadre.agent.tool.output.ToolOutputStore;
import dev.cadre.agent.tool.output.ToolOutputs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ToolOutputStore} must do, run on the in-memory store ({@link
 * InMemoryToolOutputStoreTest}), on the platform's database store on H2 ({@link JdbcToolOutputStoreTest})
 * and on PostgreSQL ({@link JdbcToolOutputStorePostgresTest}).
 */
abstract class ToolOutputStoreContract {

    /** The store under test. */
    abstract ToolOutputStore store();

    /** Makes a run exist (a database store keeps outputs only for runs it knows). */
    abstract String newRun();

    private ToolOutputs outputs() {
        return new ToolOutputs(store(), new ToolOutputBudget(4096, Map.of(), 1024 * 1024), Redactor.credentials());
    }

    static String log(int lines) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            out.append(i == 5 ? "line 5 token=abc123secret" : "line " + i + (i % 10 == 9 ? " ERROR" : " ok"))
                    .append('\n');
        }
        return out.toString();
    }

    @Test
    void aCappedOutput_isKeptWhole_andReadBackPageByPage() {
        String run = newRun();
        String log = log(20_000);
        ToolOutputs outputs = outputs();
        ToolOutputs.Delivered d = outputs.deliver(new ToolContext(run, run, "a", "call_1_1"), "logs", log, 4096);
        assertThat(d.handle()).isNotNull();

        ToolOutputInfo info = store().find(run, d.handle());
        assertThat(info)
                .isEqualTo(new ToolOutputInfo(
                        run, d.handle(), run, "call_1_1", "logs", log.length(), info.storedBytes(), 20_000, false));
        // Every line comes back once, in order, over pages: the whole output, redacted.
        List<String> lines = new ArrayList<>();
        Long offset = 0L;
        int pages = 0;
        while (offset != null) {
            ToolOutputPage page = outputs.read(run, d.handle(), offset, 1000, null, 1_000_000);
            assertThat(page.lines()).isNotEmpty();
            assertThat(page.lines().getFirst().number()).isEqualTo(offset);
            page.lines().forEach(l -> lines.add(l.text()));
            offset = page.nextOffset();
            pages++;
        }
        assertThat(pages).isEqualTo(20);
        assertThat(lines).hasSize(20_000);
        assertThat(lines.get(19_999)).isEqualTo("line 19999 ERROR");
        assertThat(lines.get(5)).isEqualTo("line 5 [REDACTED]");
        assertThat(String.join("\n", lines) + "\n").hasSize((int) info.storedBytes());
    }

    @Test
    void grepOffsetAndLimit_selectTheLines_andTheByteBudgetEndsAPageEarly() {
        String run = newRun();
        ToolOutputs outputs = outputs();
        ToolOutputs.Delivered d =
                outputs.deliver(new ToolContext(run, run, "a", "call_1_1"), "logs", log(20_000), 4096);
        ToolOutputPage errors = outputs.read(run, d.handle(), 15_000, 3, "error", 1_000_000);
        assertThat(errors.lines()).extracting(ToolOutputPage.Line::number).containsExactly(15_009L, 15_019L, 15_029L);
        assertThat(errors.nextOffset()).isEqualTo(15_030L);
        ToolOutputPage last = outputs.read(run, d.handle(), 19_995, 100, "ERROR", 1_000_000);
        assertThat(last.lines()).extracting(ToolOutputPage.Line::text).containsExactly("line 19999 ERROR");
        assertThat(last.nextOffset()).isNull();
        // A line counts its text and 12 bytes for its number: "line 100 ok" is 23, so 8 fit in 200 bytes.
        ToolOutputPage small = outputs.read(run, d.handle(), 100, 1000, null, 200);
        assertThat(small.lines()).hasSize(8);
        assertThat(small.nextOffset()).isEqualTo(108L);
        assertThat(outputs.read(run, d.handle(), 20_000, 10, null, 1000).lines())
                .isEmpty();
    }

    @Test
    void aHandle_isOnlyFoundInItsOwnRun() {
        String run = newRun();
        String other = newRun();
        ToolOutputs outputs = outputs();
        ToolOutputs.Delivered d = outputs.deliver(new ToolContext(run, run, "a", "call_1_1"), "logs", log(2000), 4096);
        assertThat(store().find(other, d.handle())).isNull();
        assertThat(store().chunks(other, d.handle(), 0, 10)).isEmpty();
        assertThat(outputs.read(other, d.handle(), 0, 10, null, 1000)).isNull();
        assertThat(store().find(run, "out_0000000000000000")).isNull();
    }

    @Test
    void savingAgainUnderAHandle_replacesTheOutput() {
        String run = newRun();
        String handle = "out_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        store().save(
                        new ToolOutputInfo(run, handle, run, "call_1_1", "logs", 100, 12, 2, false),
                        List.of(new ToolOutputChunk(0, 0, 2, "first\nrun\n")));
        store().save(
                        new ToolOutputInfo(run, handle, run, "call_1_1", "logs", 200, 6, 1, true),
                        List.of(new ToolOutputChunk(0, 0, 1, "again\n")));
        assertThat(store().find(run, handle).originalBytes()).isEqualTo(200);
        assertThat(store().find(run, handle).truncated()).isTrue();
        assertThat(store().chunks(run, handle, 0, 10)).containsExactly(new ToolOutputChunk(0, 0, 1, "again\n"));
    }

    @Test
    void chunks_startAtTheOneHoldingTheLine_andStopAtMax() {
        String run = newRun();
        String handle = "out_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        List<ToolOutputChunk> chunks = List.of(
                new ToolOutputChunk(0, 0, 3, "a\nb\nc\n"),
                new ToolOutputChunk(1, 3, 2, "d\ne\n"),
                new ToolOutputChunk(2, 5, 1, "f\n"),
                new ToolOutputChunk(3, 6, 2, "g\nh\n"));
        store().save(new ToolOutputInfo(run, handle, run, "c", "t", 16, 16, 8, false), chunks);
        assertThat(store().chunks(run, handle, 0, 2)).containsExactly(chunks.get(0), chunks.get(1));
        assertThat(store().chunks(run, handle, 4, 10)).containsExactly(chunks.get(1), chunks.get(2), chunks.get(3));
        assertThat(store().chunks(run, handle, 5, 1)).containsExactly(chunks.get(2));
        assertThat(store().chunks(run, handle, 8, 10)).isEmpty();
    }
}
