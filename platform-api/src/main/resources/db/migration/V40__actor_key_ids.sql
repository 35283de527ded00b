-- Who acted is an API key's id, not its name (issue 23, finding 9): run ownership, A2A task
-- isolation, idempotency scopes and separation of duties compare these columns; the name columns
-- stay for display and audit text. Existing rows get the id of the key that had their name (names
-- are unique since V25, so the join finds at most one; the runs V25 left under a shared name count
-- as the oldest key's, as they already did). A name no key ever had ('system', 'alertmanager', an
-- internal actor) keeps no id and is never the same actor as any key.

-- A run's submitter. Not null so that one unique index scopes idempotency keys for both kinds of
-- submitter: '' (no key: the platform itself) scopes by the name, a key id by the key alone.
ALTER TABLE cadre_run ADD COLUMN submitted_by_key VARCHAR(36) DEFAULT '' NOT NULL;
UPDATE cadre_run SET submitted_by_key = (SELECT k.id FROM cadre_api_key k WHERE k.name = cadre_run.submitted_by)
 WHERE submitted_by IN (SELECT name FROM cadre_api_key);
DROP INDEX cadre_run_idempotency;
CREATE UNIQUE INDEX cadre_run_idempotency ON cadre_run (submitted_by_key, idempotency_key, submitted_by);

-- Who proposed an approval's edits, and who decided it (null: no key, e.g. 'system' or an expiry).
ALTER TABLE cadre_approval ADD COLUMN proposed_by_key VARCHAR(36);
ALTER TABLE cadre_approval ADD COLUMN decided_by_key VARCHAR(36);
UPDATE cadre_approval SET proposed_by_key = (SELECT k.id FROM cadre_api_key k WHERE k.name = cadre_approval.proposed_by)
 WHERE proposed_by IN (SELECT name FROM cadre_api_key);
UPDATE cadre_approval SET decided_by_key = (SELECT k.id FROM cadre_api_key k WHERE k.name = cadre_approval.decided_by)
 WHERE decided_by IN (SELECT name FROM cadre_api_key);

-- Who started an evaluation: its runs are submitted (and, after a restart, resubmitted) as that key.
ALTER TABLE cadre_eval ADD COLUMN submitted_by_key VARCHAR(36);
UPDATE cadre_eval SET submitted_by_key = (SELECT k.id FROM cadre_api_key k WHERE k.name = cadre_eval.submitted_by)
 WHERE submitted_by IN (SELECT name FROM cadre_api_key);
