package dev.cadre.platform.runs;

import dev.cadre.agent.approval.ActionHash;
import dev.cadre.agent.journal.JournalEntry;
import dev.cadre.agent.journal.JournalKey;
import dev.cadre.agent.journal.ToolJournal;
import dev.cadre.agent.run.CheckpointCodec;
import dev.cadre.agent.tool.ToolResult;
import dev.cadre.platform.storage.Removed;
import dev.cadre.platform.web.SecretRedactor;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The durable tool journal: each write commits on its own before returning (no surrounding
 * transaction), so "started" is on disk before the side effect begins. It keeps the hash of the
 * arguments that ran ({@link ActionHash}, comparable with the approval's {@code executed_hash}) and a
 * redacted copy, never a secret in the clear: a resumed run reuses the stored result and, for a call
 * that never finished, only its tool name — never the arguments.
 */
@Component
public class JdbcToolJournal implements ToolJournal {

    private final JdbcClient jdbc;
    private final CheckpointCodec codec;
    private final JsonMapper json;
    private final Clock clock;
    private final SecretRedactor redactor;

    JdbcToolJournal(JdbcClient jdbc, CheckpointCodec codec, JsonMapper json, Clock clock, SecretRedactor redactor) {
        this.jdbc = jdbc;
        this.codec = codec;
        this.json = json;
        this.clock = clock;
        this.redactor = redactor;
    }

    @Override
    public @Nullable JournalEntry find(JournalKey key) {
        return jdbc.sql("SELECT tool, arguments, state, result FROM cadre_tool_journal"
                        + " WHERE run_id = ? AND session_id = ? AND call_id = ?")
                .params(key.runId(), key.sessionId(), key.callId())
                .query((rs, i) -> {
                    String result = rs.getString("result");
                    if ("finished".equals(rs.getString("state")) && result != null) {
                        return (JournalEntry) new JournalEntry.Finished(key, codec.readToolResult(result));
                    }
                    String args = rs.getString("arguments");
                    return new JournalEntry.Started(
                            key, rs.getString("tool"), args == null ? json.createObjectNode() : json.readTree(args));
                })
                .optional()
                .orElse(null);
    }

    @Override
    public void started(JournalKey key, String tool, JsonNode arguments) {
        try {
            jdbc.sql("INSERT INTO cadre_tool_journal (run_id, session_id, call_id, tool, arguments, arguments_hash,"
                            + " state, started_at) VALUES (?, ?, ?, ?, ?, ?, 'started', ?)")
                    .params(
                            key.runId(),
                            key.sessionId(),
                            key.callId(),
                            tool,
                            redactor.redact(arguments).toString(),
                            ActionHash.of(tool, arguments),
                            Timestamp.from(clock.instant()))
                    .update();
        } catch (DuplicateKeyException e) {
            // Already journalled by an earlier attempt: the loop consults find() before running, so
            // reaching here means that attempt's outcome is unknown — refuse to run it again.
            throw new IllegalStateException("tool call " + key + " was already started once; not running it twice", e);
        }
    }

    @Override
    public void finished(JournalKey key, ToolResult result) {
        jdbc.sql("UPDATE cadre_tool_journal SET state = 'finished', result = ?, finished_at = ?"
                        + " WHERE run_id = ? AND session_id = ? AND call_id = ?")
                .params(
                        codec.writeToolResult(result),
                        Timestamp.from(clock.instant()),
                        key.runId(),
                        key.sessionId(),
                        key.callId())
                .update();
    }

    /** Removes the journal of these runs (retention removing the runs themselves). */
    public Removed deleteOfRuns(java.util.Collection<String> runIds) {
        if (runIds.isEmpty()) {
            return Removed.NONE;
        }
        String in = dev.cadre.platform.storage.KeyLists.placeholders(1, runIds.size());
        long bytes = jdbc.sql("SELECT COALESCE(SUM(COALESCE(LENGTH(arguments), 0) + COALESCE(LENGTH(result), 0)), 0)"
                        + " FROM cadre_tool_journal WHERE run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .query(Long.class)
                .single();
        int n = jdbc.sql("DELETE FROM cadre_tool_journal WHERE run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .update();
        return new Removed(n, bytes);
    }

    static final String TABLE = "cadre_tool_journal";

    private final dev.cadre.platform.storage.TableSize size =
            new dev.cadre.platform.storage.TableSize(this::totalBytes);

    private long totalBytes() {
        return jdbc.sql(dev.cadre.platform.storage.PostgresSizes.TOTAL_BYTES)
                .params(TABLE, TABLE)
                .query(Long.class)
                .single();
    }

    /** Bytes on disk of the table (with indexes and TOAST); empty where the database cannot tell (H2). */
    public java.util.OptionalLong sizeBytes() {
        return size.bytes();
    }

    /** PostgreSQL: makes the space of removed rows reusable now ({@link dev.cadre.platform.storage.PostgresSizes#vacuum}). */
    public void reclaimSpace() {
        size.whereMeasurable(() ->
                jdbc.sql(dev.cadre.platform.storage.PostgresSizes.vacuum(TABLE)).update());
    }
}
