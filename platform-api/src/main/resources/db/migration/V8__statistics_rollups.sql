-- Pre-aggregated statistics (issue #18): the overview, the per-agent figures and /api/v1/agents read
-- these instead of cadre_run and cadre_span, so their cost depends on the window, not on history.
-- Each row is incremented in the same transaction as the run's terminal update (or the span's
-- insert), which happens once per run (first outcome wins), so the rollups cannot drift.
-- Hours are the hour of submission (runs) or of the span's start (model calls), in UTC.

-- Ended runs per hour of submission, agent, final status and failure category ('' for none).
CREATE TABLE cadre_run_rollup (
    bucket_hour       TIMESTAMP WITH TIME ZONE NOT NULL,
    agent             VARCHAR(100) NOT NULL,
    status            VARCHAR(20)  NOT NULL,
    failure_category  VARCHAR(40)  NOT NULL,
    runs              BIGINT       NOT NULL DEFAULT 0,
    input_tokens      BIGINT       NOT NULL DEFAULT 0,
    output_tokens     BIGINT       NOT NULL DEFAULT 0,
    max_duration_ms   BIGINT       NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket_hour, agent, status, failure_category)
);

-- Durations of ended runs as a histogram per hour of submission: bucket b holds durations in
-- (2^((b-1)/8), 2^(b/8)] ms (bucket 0: up to 1 ms), so a percentile read from it is within 9 %.
CREATE TABLE cadre_run_duration_rollup (
    bucket_hour  TIMESTAMP WITH TIME ZONE NOT NULL,
    bucket       INTEGER NOT NULL,
    runs         BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket_hour, bucket)
);

-- Delegations made (as orchestrator) and received (as worker) per agent and hour of submission.
CREATE TABLE cadre_delegation_rollup (
    bucket_hour         TIMESTAMP WITH TIME ZONE NOT NULL,
    agent               VARCHAR(100) NOT NULL,
    made                BIGINT NOT NULL DEFAULT 0,
    made_misrouted      BIGINT NOT NULL DEFAULT 0,
    received            BIGINT NOT NULL DEFAULT 0,
    received_misrouted  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket_hour, agent)
);

-- All-time outcomes per agent (GET /api/v1/agents): one row per agent.
CREATE TABLE cadre_agent_outcome (
    agent      VARCHAR(100) PRIMARY KEY,
    runs       BIGINT NOT NULL DEFAULT 0,
    completed  BIGINT NOT NULL DEFAULT 0,
    failed     BIGINT NOT NULL DEFAULT 0,
    tokens     BIGINT NOT NULL DEFAULT 0
);

-- Model calls ('chat …' spans) per hour of start, agent and model.
CREATE TABLE cadre_model_rollup (
    bucket_hour    TIMESTAMP WITH TIME ZONE NOT NULL,
    agent          VARCHAR(100) NOT NULL,
    model          VARCHAR(200) NOT NULL,
    calls          BIGINT NOT NULL DEFAULT 0,
    input_tokens   BIGINT NOT NULL DEFAULT 0,
    output_tokens  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket_hour, agent, model)
);

-- Rollups of the history stored before this migration are built once at start-up by the one
-- instance that deletes these marker rows (1970, never inside a statistics window), in the same
-- transaction as the rebuild.
INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category) VALUES (TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', '', 'backfill', '');
INSERT INTO cadre_model_rollup (bucket_hour, agent, model) VALUES (TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', '', 'backfill');
