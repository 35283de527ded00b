package dev.cadre.platform.tooloutput;

import dev.cadre.agent.tool.output.ToolOutputChunk;
import dev.cadre.agent.tool.output.ToolOutputInfo;
import dev.cadre.agent.tool.output.ToolOutputStore;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Full tool outputs in {@code cadre_tool_output} (one row each) and {@code cadre_tool_output_chunk}
 * (their lines, about 64K chars a row): written in one transaction, so a reader sees an output whole
 * or not at all, and read a few chunks at a time. Rows go with their run ({@code ON DELETE CASCADE}).
 */
class JdbcToolOutputStore implements ToolOutputStore {

    private final JdbcClient jdbc;
    private final JdbcTemplate template;
    private final TransactionTemplate tx;
    private final Clock clock;

    JdbcToolOutputStore(JdbcClient jdbc, JdbcTemplate template, TransactionTemplate tx, Clock clock) {
        this.jdbc = jdbc;
        this.template = template;
        this.tx = tx;
        this.clock = clock;
    }

    @Override
    public void save(ToolOutputInfo info, List<ToolOutputChunk> chunks) {
        tx.executeWithoutResult(status -> {
            // A re-run call (after a restart) replaces what an earlier attempt kept; chunks go by cascade.
            jdbc.sql("DELETE FROM cadre_tool_output WHERE run_id = ? AND handle = ?")
                    .params(info.runId(), info.handle())
                    .update();
            jdbc.sql(
                            "INSERT INTO cadre_tool_output (run_id, handle, session_id, call_id, tool, original_bytes,"
                                    + " stored_bytes, stored_lines, truncated, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    .params(
                            info.runId(),
                            info.handle(),
                            info.sessionId(),
                            info.callId(),
                            info.tool(),
                            info.originalBytes(),
                            info.storedBytes(),
                            info.storedLines(),
                            info.truncated(),
                            Timestamp.from(clock.instant()))
                    .update();
            List<Object[]> rows = new ArrayList<>(chunks.size());
            for (ToolOutputChunk c : chunks) {
                rows.add(new Object[] {info.runId(), info.handle(), c.seq(), c.firstLine(), c.lineCount(), c.text()});
            }
            template.batchUpdate(
                    "INSERT INTO cadre_tool_output_chunk (run_id, handle, seq, first_line, line_count, text)"
                            + " VALUES (?, ?, ?, ?, ?, ?)",
                    rows);
        });
    }

    @Override
    public @Nullable ToolOutputInfo find(String runId, String handle) {
        return jdbc.sql("SELECT session_id, call_id, tool, original_bytes, stored_bytes, stored_lines, truncated"
                        + " FROM cadre_tool_output WHERE run_id = ? AND handle = ?")
                .params(runId, handle)
                .query((rs, i) -> new ToolOutputInfo(
                        runId,
                        handle,
                        rs.getString("session_id"),
                        rs.getString("call_id"),
                        rs.getString("tool"),
                        rs.getLong("original_bytes"),
                        rs.getLong("stored_bytes"),
                        rs.getLong("stored_lines"),
                        rs.getBoolean("truncated")))
                .optional()
                .orElse(null);
    }

    @Override
    public List<ToolOutputChunk> chunks(String runId, String handle, long fromLine, int max) {
        return jdbc.sql("SELECT seq, first_line, line_count, text FROM cadre_tool_output_chunk"
                        + " WHERE run_id = ? AND handle = ? AND first_line + line_count > ?"
                        + " ORDER BY seq FETCH FIRST " + Math.max(1, max) + " ROWS ONLY")
                .params(runId, handle, fromLine)
                .query((rs, i) -> new ToolOutputChunk(
                        rs.getInt("seq"), rs.getLong("first_line"), rs.getInt("line_count"), rs.getString("text")))
                .list();
    }
}
