-- Indexes for the keyset (cursor) pages of the API and console (issue #18): every list orders by
-- (created_at DESC, id DESC) and continues after the last row of the previous page, so each filter
-- has an index ending in (created_at, id) that the page reads backwards and stops after LIMIT rows.
-- The older (…, created_at) indexes are their prefixes and are replaced.
DROP INDEX cadre_run_created;
DROP INDEX cadre_run_status;
DROP INDEX cadre_run_agent;
CREATE INDEX cadre_run_created_id ON cadre_run (created_at, id);
CREATE INDEX cadre_run_status_created ON cadre_run (status, created_at, id);
CREATE INDEX cadre_run_agent_created ON cadre_run (agent, created_at, id);
CREATE INDEX cadre_run_status_agent_created ON cadre_run (status, agent, created_at, id);

DROP INDEX cadre_approval_status;
CREATE INDEX cadre_approval_status_created ON cadre_approval (status, created_at, id);
CREATE INDEX cadre_approval_created ON cadre_approval (created_at, id);
