-- Routing evaluations (issue 17): a suite's runs and, once they have ended, its scored report.
-- run_ids lets an evaluation interrupted by a restart pick up its runs (which are durable) again.
CREATE TABLE cadre_eval (
    id                VARCHAR(40)  PRIMARY KEY,
    suite             VARCHAR(100) NOT NULL,
    agent             VARCHAR(200) NOT NULL,
    repeat_count      INT          NOT NULL,
    status            VARCHAR(16)  NOT NULL,
    submitted_by      VARCHAR(200) NOT NULL,
    created_at        TIMESTAMP    NOT NULL,
    finished_at       TIMESTAMP,
    runs_total        INT          NOT NULL,
    routing_accuracy  DOUBLE PRECISION,
    misroute_rate     DOUBLE PRECISION,
    suite_json        TEXT         NOT NULL,
    run_ids           TEXT         NOT NULL,
    report            TEXT,
    error             VARCHAR(2000)
);
CREATE INDEX cadre_eval_created ON cadre_eval (created_at DESC, id DESC);
