-- Retention (issue #18): which instance does the platform's maintenance right now. One row per job;
-- an instance takes it with a conditional UPDATE when it is free or expired, so of several instances
-- one deletes and manages partitions at a time (the deletes are safe to repeat, the lease saves
-- the work).
CREATE TABLE cadre_maintenance_lease (
    name         VARCHAR(64)  PRIMARY KEY,
    owner        VARCHAR(200) NOT NULL,
    lease_until  TIMESTAMP WITH TIME ZONE NOT NULL,
    last_run_at  TIMESTAMP WITH TIME ZONE
);
INSERT INTO cadre_maintenance_lease (name, owner, lease_until) VALUES ('retention', '', TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00');

-- Retention walks events and spans by age: without these each pass scanned both tables whole.
CREATE INDEX cadre_run_event_at ON cadre_run_event (at);
CREATE INDEX cadre_span_start ON cadre_span (start_nanos);
