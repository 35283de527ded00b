-- Issue 23: a run's texts (input, context, result, failure message, subagents) are stored redacted
-- when written, so a read does no pattern matching. Rows from before hold them as given (FALSE) and
-- are redacted when read.
ALTER TABLE cadre_run ADD COLUMN redacted BOOLEAN DEFAULT FALSE NOT NULL;
