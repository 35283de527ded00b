-- What a run's model calls cost (in cadre.models.currency, from the price table), and the run's
-- budget in that currency when its request gave one (docs/models.md "Cost").
ALTER TABLE cadre_run ADD COLUMN cost DOUBLE PRECISION DEFAULT 0 NOT NULL;
ALTER TABLE cadre_run ADD COLUMN max_cost DOUBLE PRECISION;
