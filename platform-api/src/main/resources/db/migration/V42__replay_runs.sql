-- Replays (issue 25): the runs that are replays of a recorded incident case, with the case itself and
-- the team they run against ('running' or a team YAML's path). A row is written before its run is
-- stored, so a run with a row here is always a replay: after a restart the recovery sweep resumes it
-- from this row with its tools answering from the recording, or fails it; never as an ordinary run.
CREATE TABLE cadre_replay_run (
    run_id      VARCHAR(64)   PRIMARY KEY,
    replay_id   VARCHAR(40)   NOT NULL,
    case_index  INT           NOT NULL,
    case_name   VARCHAR(200)  NOT NULL,
    case_yaml   TEXT          NOT NULL,
    team        VARCHAR(2000) NOT NULL,
    created_at  TIMESTAMP     NOT NULL,
    score       TEXT
);
CREATE INDEX cadre_replay_run_replay ON cadre_replay_run (replay_id, case_index);
