-- A run's ending (its one `done` or `error` event and its terminal status) is one fact, stored in
-- one transaction; the primary key makes it one per run, ever (issue 27: a resumed run stored two
-- `done` events). Deleted with its run.
CREATE TABLE cadre_run_ending (
    run_id  VARCHAR(64) PRIMARY KEY REFERENCES cadre_run (id) ON DELETE CASCADE,
    type    VARCHAR(20) NOT NULL,
    at      TIMESTAMP WITH TIME ZONE NOT NULL
);
