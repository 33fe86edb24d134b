-- The runner's parameters for one reconcile run: exactly one row, created (temporary) by
-- pipelines/reconcile/reconcile.ts from the config and the command line before the models are built. Configuration
-- reaches the models as data, never as pasted text.
CREATE OR REPLACE TEMP TABLE cfg_params (
  period                VARCHAR NOT NULL,        -- YYYY-MM: the period being reconciled
  period_start          DATE NOT NULL,           -- its first local date
  period_end            DATE NOT NULL,           -- its last local date
  scope_starts_at       TIMESTAMPTZ NOT NULL,    -- a day before the period's first local midnight: rows dated
                                                 -- from here to
  scope_ends_at         TIMESTAMPTZ NOT NULL,    -- a day after its end are in the period's scope
                                                 -- (int_recon_scope_references)
  as_of                 DATE NOT NULL,           -- the date unredeemed keys are aged at (--as-of, default today)
  cost_tolerance        DECIMAL(18,4) NOT NULL,  -- reconciliation.costTolerance
  price_tolerance       DECIMAL(18,4) NOT NULL,  -- reconciliation.priceTolerance (default: costTolerance)
  unredeemed_after_days INTEGER NOT NULL,        -- reconciliation.unredeemedAfterDays
  timezone              VARCHAR NOT NULL,        -- the configured IANA time zone: local dates and periods
  run_id                VARCHAR NOT NULL,        -- the reconcile run (pipeline_runs.run_id)
  built_at              TIMESTAMPTZ NOT NULL,    -- when the run started building
  lookups               BIGINT NOT NULL,         -- references looked up individually (set after the lookup)
  lookups_found         BIGINT NOT NULL,         -- of which the provider returned a sale
  complete              BOOLEAN NOT NULL,        -- whether the period is completely extracted
                                                 -- (pipelines/extract/completeness.ts)
  incomplete_reasons    VARCHAR,                 -- JSON list of what is missing when not complete, else NULL
  signoff_id            VARCHAR,                 -- the period's active sign-off (period_signoffs), NULL when unsigned
  history_start         DATE                     -- extract.historyStart: no sale of ours was created before it
                                                 -- (NULL: unset)
)
