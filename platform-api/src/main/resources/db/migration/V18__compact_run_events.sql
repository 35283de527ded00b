-- Bytes per run (issue #18): a run event's stored JSON no longer repeats what its columns hold
-- (type, run, session, parent session, sequence number: about a third of an event's bytes). The
-- format says how to read a row: 0 = the JSON as sent (every row stored before this migration), 1 =
-- without those fields, which the platform puts back from the columns on read (StoredEventFormat).
-- A constant default: existing rows are not rewritten.
ALTER TABLE cadre_run_event ADD COLUMN data_format SMALLINT DEFAULT 0 NOT NULL;
