-- Baseline: records which Cadre schema generation this database carries.
CREATE TABLE cadre_schema_info (
    id          INTEGER PRIMARY KEY,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
INSERT INTO cadre_schema_info (id, created_at) VALUES (1, CURRENT_TIMESTAMP);
