-- Runs and their approvals belong to a team; those from before teams are team 'default''s. A team's
-- run list reads (team, created_at, id) from the newest on, as the whole list did before.
ALTER TABLE cadre_run ADD COLUMN team VARCHAR(63) DEFAULT 'default' NOT NULL;
CREATE INDEX cadre_run_team ON cadre_run (team, created_at, id);
ALTER TABLE cadre_approval ADD COLUMN team VARCHAR(63) DEFAULT 'default' NOT NULL;
CREATE INDEX cadre_approval_team ON cadre_approval (team, status, created_at);
