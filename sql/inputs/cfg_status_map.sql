-- reconciliation.statusMap as a table: one row per provider status text (trimmed), with the class it maps to.
-- Created (temporary) by pipelines/reconcile/reconcile.ts before the models are built; a status not in it is 'unknown'.
CREATE OR REPLACE TEMP TABLE cfg_status_map (
  status       VARCHAR PRIMARY KEY,  -- the provider's status text, trimmed
  status_class VARCHAR NOT NULL      -- redeemed | canceled | booked
)
