-- The W3C traceparent of whoever submitted the run (HTTP or A2A caller), so the run's spans
-- continue the caller's trace even when it executes later or on another instance.
ALTER TABLE cadre_run ADD COLUMN trace_parent VARCHAR(64);
