-- The durable outbox: one row per outbound delivery (notifications, the escalation webhook). Written
-- when what caused it is stored, attempted after that commit, retried with backoff until delivered or
-- failed. A worker claims due rows by setting lease_owner/lease_until (PostgreSQL: FOR UPDATE SKIP
-- LOCKED), so instances share the work and a crashed instance's rows are taken over when its lease
-- ends. The receiver's address is not stored (it stays in configuration: a webhook URL may hold a token).
CREATE TABLE cadre_outbox (
    id               VARCHAR(40)   PRIMARY KEY,
    channel          VARCHAR(40)   NOT NULL,
    idempotency_key  VARCHAR(200)  NOT NULL,
    subject          VARCHAR(200),
    kind             VARCHAR(40),
    body             TEXT          NOT NULL,
    state            VARCHAR(16)   NOT NULL,
    attempts         INT           NOT NULL,
    max_attempts     INT           NOT NULL,
    next_attempt_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    lease_owner      VARCHAR(200),
    lease_until      TIMESTAMP WITH TIME ZONE,
    last_status      INT           NOT NULL,
    last_error       VARCHAR(1000),
    created_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    delivered_at     TIMESTAMP WITH TIME ZONE
);
-- Enqueueing one key twice (two instances escalating one incident) stores one delivery.
CREATE UNIQUE INDEX cadre_outbox_key ON cadre_outbox (idempotency_key);
-- The worker's claim: pending rows by due time.
CREATE INDEX cadre_outbox_due ON cadre_outbox (state, next_attempt_at);
-- "Is a notification of this kind about this incident still pending?"
CREATE INDEX cadre_outbox_subject ON cadre_outbox (subject, kind, state);
