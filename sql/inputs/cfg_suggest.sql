-- reconciliation.suggest as one row (issue 29): whether near-miss references are proposed as suggested matches,
-- the lowest score stored and how many days apart the two sides may be. Created (temporary) by
-- pipelines/reconcile/match-inputs.ts before the models are built.
CREATE OR REPLACE TEMP TABLE cfg_suggest (
  enabled   BOOLEAN NOT NULL,  -- false: nothing proposed (confirmed pairs stay matched)
  min_score INTEGER NOT NULL,  -- pairs scoring below it are not stored (0-100)
  max_days  INTEGER NOT NULL   -- the two sides' local dates at most this many days apart
)
