-- The findings of the periods before the one reconciled (their rows of recon_exceptions, each as its own period's
-- last reconcile left it) with their current decision (recon_decisions, not superseded), copied (temporary) by
-- pipelines/reconcile/carried-inputs.ts before the models are built: recon_carried_forward keeps the open ones.
CREATE OR REPLACE TEMP TABLE earlier_findings (
  from_period        VARCHAR,        -- YYYY-MM of the finding
  finding_id         VARCHAR,
  exception_type     VARCHAR,
  partner_reference  VARCHAR,
  currency_code      VARCHAR,
  amount             DECIMAL(18,4),  -- its effect on the cost bridge
  provider_value     DECIMAL(18,4),  -- for its exposure (cfg_exception_types.exposure_from)
  first_detected_at  TIMESTAMPTZ,
  decision           VARCHAR,        -- current; NULL: undecided
  owner              VARCHAR,
  expected_clear_by  DATE
)
