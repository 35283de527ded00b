-- A key's name is who the audit log, runs, approvals, A2A tasks and idempotency keys say acted, so
-- two keys must never share one. name_key is the normalised name (new names are already lower-case
-- [a-z0-9._-], which also rules out look-alike letters); the unique index settles concurrent creates.
ALTER TABLE cadre_api_key ADD COLUMN name_key VARCHAR(100);

-- Keys created before this index that share a name (case-insensitively): the oldest keeps it, each
-- later one gets its id appended after a '#', which no new name may contain. Their earlier runs keep
-- the shared name and count as the oldest key's from now on.
UPDATE cadre_api_key k SET name = SUBSTRING(k.name, 1, 60) || '#' || k.id
 WHERE EXISTS (SELECT 1 FROM cadre_api_key o
                WHERE LOWER(o.name) = LOWER(k.name)
                  AND (o.created_at < k.created_at OR (o.created_at = k.created_at AND o.id < k.id)));
UPDATE cadre_api_key SET name_key = LOWER(name);
ALTER TABLE cadre_api_key ALTER COLUMN name_key SET NOT NULL;
CREATE UNIQUE INDEX cadre_api_key_name_key ON cadre_api_key (name_key);

-- No part of a secret is kept or shown: the prefix held the first characters of each secret (all 8
-- of them once for the bootstrap key). Keys are told apart by their id.
UPDATE cadre_api_key SET key_prefix = '';
