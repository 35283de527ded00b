-- Replays of a suite of incident cases against a team (issue 25): status, and once every case's run
-- has ended the suite's aggregate (per-case scores are on cadre_replay_run). A replay a stopped
-- process left running is driven again at start-up (its runs are durable).
CREATE TABLE cadre_replay (
    id            VARCHAR(40)   PRIMARY KEY,
    suite         VARCHAR(100)  NOT NULL,
    label         VARCHAR(200),
    team          VARCHAR(2000) NOT NULL,
    status        VARCHAR(16)   NOT NULL,
    submitted_by  VARCHAR(200)  NOT NULL,
    created_at    TIMESTAMP     NOT NULL,
    finished_at   TIMESTAMP,
    cases_total   INT           NOT NULL,
    summary       TEXT,
    error         VARCHAR(2000)
);
CREATE INDEX cadre_replay_created ON cadre_replay (created_at DESC, id DESC);
