-- PostgreSQL only (spring.flyway.locations adds db/vendor/{vendor}; H2 keeps plain tables and
-- retention deletes there in batches). Run events and spans, the bulk of what a run writes, become
-- tables partitioned by day, so retention drops a day's partition (space back at once, no dead rows
-- for VACUUM) instead of deleting rows. Retention's maintenance creates the coming days' partitions
-- ahead (cadre.retention.partitions-ahead) and drops those past cadre.retention.events / .spans.
--
-- What is stored already becomes one partition covering everything before tomorrow (attaching it
-- checks its rows once); batched deletes trim it until it is old enough to drop whole. Columns and
-- indexes are copied from the existing table, whatever later migrations added to it. The primary
-- keys gain the partition key (PostgreSQL requires it): an event is still one per (run, seq), a
-- span one per (trace, span), since a retried insert writes the same time again.

DO $$
DECLARE
    d record;
    defs text[] := ARRAY[]::text[];
    def text;
    tomorrow timestamptz := (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC';
BEGIN
    FOR d IN SELECT indexname, indexdef FROM pg_indexes
             WHERE schemaname = current_schema() AND tablename = 'cadre_run_event'
               AND indexdef NOT LIKE 'CREATE UNIQUE INDEX%'
    LOOP
        defs := defs || d.indexdef;
        EXECUTE format('ALTER INDEX %I RENAME TO %I', d.indexname, left(d.indexname, 50) || '_legacy');
    END LOOP;
    ALTER TABLE cadre_run_event RENAME TO cadre_run_event_legacy;
    -- A partition's primary key must match the table's (with the partition key).
    ALTER TABLE cadre_run_event_legacy DROP CONSTRAINT cadre_run_event_pkey;
    ALTER TABLE cadre_run_event_legacy ADD CONSTRAINT cadre_run_event_legacy_pkey PRIMARY KEY (run_id, seq, at);
    CREATE TABLE cadre_run_event (LIKE cadre_run_event_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (at);
    ALTER TABLE cadre_run_event ADD CONSTRAINT cadre_run_event_pkey PRIMARY KEY (run_id, seq, at);
    FOREACH def IN ARRAY defs LOOP
        EXECUTE def;
    END LOOP;
    EXECUTE format('ALTER TABLE cadre_run_event ATTACH PARTITION cadre_run_event_legacy'
                   ' FOR VALUES FROM (MINVALUE) TO (%L)', tomorrow);
    CREATE TABLE cadre_run_event_default PARTITION OF cadre_run_event DEFAULT;

    defs := ARRAY[]::text[];
    FOR d IN SELECT indexname, indexdef FROM pg_indexes
             WHERE schemaname = current_schema() AND tablename = 'cadre_span'
               AND indexdef NOT LIKE 'CREATE UNIQUE INDEX%'
    LOOP
        defs := defs || d.indexdef;
        EXECUTE format('ALTER INDEX %I RENAME TO %I', d.indexname, left(d.indexname, 50) || '_legacy');
    END LOOP;
    ALTER TABLE cadre_span RENAME TO cadre_span_legacy;
    -- A partition's primary key must match the table's (with the partition key).
    ALTER TABLE cadre_span_legacy DROP CONSTRAINT cadre_span_pkey;
    ALTER TABLE cadre_span_legacy ADD CONSTRAINT cadre_span_legacy_pkey PRIMARY KEY (trace_id, span_id, start_nanos);
    CREATE TABLE cadre_span (LIKE cadre_span_legacy INCLUDING DEFAULTS) PARTITION BY RANGE (start_nanos);
    ALTER TABLE cadre_span ADD CONSTRAINT cadre_span_pkey PRIMARY KEY (trace_id, span_id, start_nanos);
    FOREACH def IN ARRAY defs LOOP
        EXECUTE def;
    END LOOP;
    EXECUTE format('ALTER TABLE cadre_span ATTACH PARTITION cadre_span_legacy FOR VALUES FROM (MINVALUE) TO (%s)',
                   (extract(epoch FROM tomorrow) * 1000000000)::bigint);
    CREATE TABLE cadre_span_default PARTITION OF cadre_span DEFAULT;
END $$;
