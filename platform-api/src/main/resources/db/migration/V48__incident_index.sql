-- The incident list's index: one row per incident with what the list filters and orders by, kept
-- beside the incident record (shared memory) on every write of it, so a page of the list reads a
-- page of this table instead of every incident.
CREATE TABLE cadre_incident_index (
    incident_id  VARCHAR(64)  PRIMARY KEY,
    opened_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    status       VARCHAR(32)  NOT NULL,
    severity     VARCHAR(64)  NOT NULL,
    source       VARCHAR(64)  NOT NULL
);
-- Newest opened first, keyset-paged; the filters are few-valued columns checked on the way.
CREATE INDEX cadre_incident_index_opened ON cadre_incident_index (opened_at, incident_id);
CREATE INDEX cadre_incident_index_status ON cadre_incident_index (status, opened_at, incident_id);

-- An incident's timeline read by time (retention's cut, a window of sightings).
CREATE INDEX cadre_incident_event_at ON cadre_incident_event (incident_id, at);
