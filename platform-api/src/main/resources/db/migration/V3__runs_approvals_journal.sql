-- Durable runs. Status values are A2A task states; the checkpoint is agent-core's JSON codec output
-- after the last completed loop iteration, from which an interrupted run resumes.
CREATE TABLE cadre_run (
    id                VARCHAR(64)  PRIMARY KEY,
    agent             VARCHAR(100) NOT NULL,
    input             TEXT         NOT NULL,
    context           TEXT,
    status            VARCHAR(20)  NOT NULL,
    result            TEXT,
    failure_category  VARCHAR(40),
    failure_code      VARCHAR(100),
    failure_message   VARCHAR(400),
    subagents         TEXT,
    tools_called      TEXT,
    input_tokens      BIGINT       NOT NULL DEFAULT 0,
    output_tokens     BIGINT       NOT NULL DEFAULT 0,
    iterations        INTEGER      NOT NULL DEFAULT 0,
    submitted_by      VARCHAR(100) NOT NULL,
    idempotency_key   VARCHAR(200),
    request_hash      VARCHAR(64),
    trace_id          VARCHAR(32),
    checkpoint        TEXT,
    checkpoint_at     TIMESTAMP WITH TIME ZONE,
    resume_count      INTEGER      NOT NULL DEFAULT 0,
    owner             VARCHAR(100),
    lease_until       TIMESTAMP WITH TIME ZONE,
    lease_version     BIGINT       NOT NULL DEFAULT 0,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    started_at        TIMESTAMP WITH TIME ZONE,
    finished_at       TIMESTAMP WITH TIME ZONE,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    version           BIGINT       NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX cadre_run_idempotency ON cadre_run (submitted_by, idempotency_key);
CREATE INDEX cadre_run_status ON cadre_run (status, created_at);
CREATE INDEX cadre_run_agent ON cadre_run (agent, created_at);
CREATE INDEX cadre_run_created ON cadre_run (created_at);

-- Every event of a run, main stream and subagents', numbered per run for resumable SSE.
CREATE TABLE cadre_run_event (
    run_id             VARCHAR(64)  NOT NULL,
    seq                BIGINT       NOT NULL,
    session_id         VARCHAR(300) NOT NULL,
    parent_session_id  VARCHAR(300),
    main_stream        BOOLEAN      NOT NULL,
    type               VARCHAR(40)  NOT NULL,
    data               TEXT         NOT NULL,
    at                 TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- Approval requests for APPROVE-risk tool calls; one per (run, session, call), so asking again after
-- a resume finds the same request (and its decision) instead of creating a second one.
CREATE TABLE cadre_approval (
    id                 VARCHAR(64)  PRIMARY KEY,
    run_id             VARCHAR(64)  NOT NULL,
    session_id         VARCHAR(300) NOT NULL,
    call_id            VARCHAR(200) NOT NULL,
    agent              VARCHAR(100) NOT NULL,
    tool               VARCHAR(100) NOT NULL,
    arguments          TEXT         NOT NULL,
    what               VARCHAR(1000),
    why                VARCHAR(2000),
    confidence         DOUBLE PRECISION,
    plan               TEXT,
    status             VARCHAR(20)  NOT NULL,
    edited_arguments   TEXT,
    decision_comment   VARCHAR(2000),
    decided_by         VARCHAR(100),
    decided_at         TIMESTAMP WITH TIME ZONE,
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    version            BIGINT       NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX cadre_approval_call ON cadre_approval (run_id, session_id, call_id);
CREATE INDEX cadre_approval_status ON cadre_approval (status, created_at);

-- Journal of side-effecting tool calls: 'started' is written (and committed) before the action,
-- 'finished' with its result after, so a crash in between never leads to running it twice.
CREATE TABLE cadre_tool_journal (
    run_id       VARCHAR(64)  NOT NULL,
    session_id   VARCHAR(300) NOT NULL,
    call_id      VARCHAR(200) NOT NULL,
    tool         VARCHAR(100) NOT NULL,
    arguments    TEXT,
    state        VARCHAR(16)  NOT NULL,
    result       TEXT,
    started_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    finished_at  TIMESTAMP WITH TIME ZONE,
    PRIMARY KEY (run_id, session_id, call_id)
);
