-- The findings open for the period before this run (its rows of recon_exceptions), copied (temporary) by
-- pipelines/reconcile/reconcile.ts before the models are built: a finding keeps its first_detected_at while it stays
-- open, and recon_exception_history compares the run's findings with these.
CREATE OR REPLACE TEMP TABLE prev_recon_exceptions (
  finding_id        VARCHAR,      -- md5(period|type|reference|transaction_id)
  exception_type    VARCHAR,
  partner_reference VARCHAR,
  transaction_id    BIGINT,
  first_detected_at TIMESTAMPTZ,  -- when a run first found it
  -- For the roll-forward (recon_roll_forward): what the previous run left, as it stood then.
  currency_code     VARCHAR,
  amount            DECIMAL(18,4), -- its effect on the cost bridge then
  built_at          TIMESTAMPTZ,   -- when the previous run built it
  decision_at_build VARCHAR        -- its decision at that moment (recon_decisions as of built_at)
)
