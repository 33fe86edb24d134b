-- Issue 30, one meaning of amount: a finding's `amount` is its effect on the cost bridge; `exposure` is the cost
-- at stake of a finding whose registry row says so (an unredeemed key: paid for a key nobody redeemed), NULL for
-- every other one. Counted apart from amounts in every total, headline and filter.
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS exposure DECIMAL(18,4);

-- The carried-forward mart (sql/marts/recon_carried_forward.sql): one row per finding of an earlier period still
-- open when a period is reconciled, replaced by each reconcile of that (the report's) period. docs/DATA.md.
CREATE TABLE IF NOT EXISTS recon_carried_forward (
  period             VARCHAR NOT NULL,       -- the report's period
  from_period        VARCHAR NOT NULL,       -- the period the finding belongs to
  finding_id         VARCHAR NOT NULL,
  exception_type     VARCHAR NOT NULL,
  partner_reference  VARCHAR,
  currency_code      VARCHAR,
  amount             DECIMAL(18,4) NOT NULL, -- its effect on the cost bridge
  exposure           DECIMAL(18,4),          -- its cost at stake (unredeemed keys), else NULL
  decision           VARCHAR,                -- NULL: undecided
  owner              VARCHAR,
  expected_clear_by  DATE,
  first_detected_at  TIMESTAMPTZ NOT NULL,
  age_days           INTEGER NOT NULL,       -- days from its first detection to the report's as_of
  overdue            BOOLEAN NOT NULL,       -- past its expected_clear_by, or timing without one
  as_of              DATE NOT NULL,
  built_at           TIMESTAMPTZ NOT NULL,
  run_id             VARCHAR NOT NULL
);
