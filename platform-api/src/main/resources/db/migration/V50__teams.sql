-- Teams as tenants. A team's name is its identity (a DNS-1123 label). An install from before teams
-- becomes the team 'default': every existing key belongs to it, and nothing changes for its users.
CREATE TABLE cadre_team (
    name        VARCHAR(63)  PRIMARY KEY,
    title       VARCHAR(200) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by  VARCHAR(100) NOT NULL
);
INSERT INTO cadre_team (name, title, created_at, created_by) VALUES ('default', 'Default team', CURRENT_TIMESTAMP, 'system');

-- Each key acts in one team with its role there. A platform admin spans all teams: the admin keys
-- that existed before teams stay platform admins, so whoever managed the install still can.
ALTER TABLE cadre_api_key ADD COLUMN team VARCHAR(63) DEFAULT 'default' NOT NULL;
ALTER TABLE cadre_api_key ADD COLUMN platform_admin BOOLEAN DEFAULT FALSE NOT NULL;
UPDATE cadre_api_key SET platform_admin = TRUE WHERE role = 'ADMIN';
ALTER TABLE cadre_api_key ADD CONSTRAINT cadre_api_key_team FOREIGN KEY (team) REFERENCES cadre_team (name);
CREATE INDEX cadre_api_key_by_team ON cadre_api_key (team);
