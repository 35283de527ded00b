-- The platform's own trace store: the spans of runs (those carrying cadre.run.id), so the console
-- and GET /api/v1/runs/{id}/trace work without any external tracing backend.
CREATE TABLE cadre_span (
    trace_id        VARCHAR(32)  NOT NULL,
    span_id         VARCHAR(16)  NOT NULL,
    parent_span_id  VARCHAR(16),
    run_id          VARCHAR(64)  NOT NULL,
    name            VARCHAR(200) NOT NULL,
    start_nanos     BIGINT       NOT NULL,
    end_nanos       BIGINT       NOT NULL,
    status          VARCHAR(10)  NOT NULL,
    status_message  VARCHAR(400),
    attributes      TEXT         NOT NULL,
    PRIMARY KEY (trace_id, span_id)
);
CREATE INDEX cadre_span_run ON cadre_span (run_id, start_nanos);
