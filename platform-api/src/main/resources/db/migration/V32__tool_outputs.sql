-- Tool output budgets (issue 24): a tool result over its cap reaches the model as head + tail and a
-- handle; the full output (redacted, at most cadre.tools.output.max-stored-bytes) is kept here, in
-- chunks of whole lines so tool_output_read and GET /api/v1/runs/{id}/tool-outputs/{handle} read a
-- page without loading the whole output. Kept as long as its run: deleting the run deletes them.
CREATE TABLE cadre_tool_output (
    run_id          VARCHAR(64)  NOT NULL REFERENCES cadre_run (id) ON DELETE CASCADE,
    handle          VARCHAR(40)  NOT NULL,
    session_id      VARCHAR(300) NOT NULL,
    call_id         VARCHAR(200) NOT NULL,
    tool            VARCHAR(100) NOT NULL,
    original_bytes  BIGINT       NOT NULL,
    stored_bytes    BIGINT       NOT NULL,
    stored_lines    BIGINT       NOT NULL,
    truncated       BOOLEAN      NOT NULL,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (run_id, handle)
);

CREATE TABLE cadre_tool_output_chunk (
    run_id      VARCHAR(64) NOT NULL,
    handle      VARCHAR(40) NOT NULL,
    seq         INTEGER     NOT NULL,
    first_line  BIGINT      NOT NULL,
    line_count  INTEGER     NOT NULL,
    text        TEXT        NOT NULL,
    PRIMARY KEY (run_id, handle, seq),
    FOREIGN KEY (run_id, handle) REFERENCES cadre_tool_output (run_id, handle) ON DELETE CASCADE
);
