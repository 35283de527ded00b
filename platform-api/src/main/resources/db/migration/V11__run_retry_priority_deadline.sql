-- Issue 15 (seed 003's task envelope and FAILED -> retry): a retried run names the run it retries;
-- a submission may carry a priority (higher is taken first) and a deadline (past it, the run fails
-- with TIMEOUT_ERROR).
ALTER TABLE cadre_run ADD COLUMN retry_of VARCHAR(64);
ALTER TABLE cadre_run ADD COLUMN priority INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE cadre_run ADD COLUMN deadline TIMESTAMP WITH TIME ZONE;
