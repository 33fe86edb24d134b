-- The registry of finding types (core/finding-types.ts) as a table: one row per exception_type with its family,
-- its place in every list and its cost bridge step. Created (temporary) by pipelines/reconcile/reconcile.ts before the
-- models are built; a type a rule model emits that is not here gets no family, and sql/tests/finding_types_accepted
-- fails.
CREATE OR REPLACE TEMP TABLE cfg_exception_types (
  exception_type VARCHAR PRIMARY KEY,  -- the registry's type (core/finding-types.ts)
  family         VARCHAR NOT NULL,     -- its family: the workbook sheet it is on
  list_order     INTEGER NOT NULL,     -- its place in every summary, report and email (1 first)
  bridge_step    INTEGER UNIQUE,       -- its step in recon_bridge; NULL when it moves no cost between the sides
  bridge_label   VARCHAR,              -- the step's label in recon_bridge
  exposure_from  VARCHAR               -- 'provider_value' when its cost at stake is its exposure (issue 30), else NULL
)
