-- An approval covers exactly the action it showed: the SHA-256 of the tool name and its canonical
-- arguments (agent-core's ActionHash). When a resumed run asks at the same position for another
-- action, the earlier request is marked superseded and a new attempt asks again, so the position is
-- no longer unique on its own: (run, session, call, attempt) is.
ALTER TABLE cadre_approval ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cadre_approval ADD COLUMN arguments_hash VARCHAR(64);
-- The hash of what runs after the decision: the shown action's, or that of the approver's edits.
ALTER TABLE cadre_approval ADD COLUMN executed_hash VARCHAR(64);
ALTER TABLE cadre_approval ADD COLUMN superseded_by VARCHAR(64);
DROP INDEX cadre_approval_call;
CREATE UNIQUE INDEX cadre_approval_call_attempt ON cadre_approval (run_id, session_id, call_id, attempt);

-- The journal keeps the hash of the arguments that ran (and a redacted copy), never a secret.
ALTER TABLE cadre_tool_journal ADD COLUMN arguments_hash VARCHAR(64);
