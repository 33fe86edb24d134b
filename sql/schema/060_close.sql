-- Closing a period: its completeness verdict, its sign-offs, the findings exactly as signed, and what
-- changed since. Written by `pinrecon reconcile` (verdict, signoff_status, recon_signoff_changes) and
-- `pinrecon close` / `pinrecon reopen` (period_signoffs, recon_exceptions_signed).
--
-- recon_summary gains:
--   verdict              incomplete | reconciled (no findings) | reconciled_with_findings
--   incomplete_reasons   JSON array of the reasons the period is incomplete (NULL when complete)
--   signoff_status       unsigned | signed | changed_since_signoff
--   signoff_id           the active sign-off compared with (NULL when unsigned)
--   signoff_amount_delta this currency's bridge amount now minus as signed (NULL when unsigned)
ALTER TABLE recon_summary ADD COLUMN IF NOT EXISTS verdict VARCHAR;
ALTER TABLE recon_summary ADD COLUMN IF NOT EXISTS incomplete_reasons VARCHAR;
ALTER TABLE recon_summary ADD COLUMN IF NOT EXISTS signoff_status VARCHAR;
ALTER TABLE recon_summary ADD COLUMN IF NOT EXISTS signoff_id VARCHAR;
ALTER TABLE recon_summary ADD COLUMN IF NOT EXISTS signoff_amount_delta DECIMAL(18,4);

-- One row per sign-off of a period (`pinrecon close`); a reopen fills the reopened_* columns, never deletes.
-- A period's active sign-off is its row with reopened_at NULL (at most one).
CREATE TABLE IF NOT EXISTS period_signoffs (
  signoff_id     VARCHAR PRIMARY KEY,
  period         VARCHAR NOT NULL,
  signed_by      VARCHAR NOT NULL,
  signed_at      TIMESTAMPTZ NOT NULL,
  note           VARCHAR,
  run_id         VARCHAR NOT NULL,        -- the reconcile run whose figures were signed
  as_of          DATE NOT NULL,           -- that reconciliation's as-of date
  findings       BIGINT NOT NULL,         -- findings signed
  undecided      BIGINT NOT NULL,         -- of which without a decision (close --allow-undecided)
  content_sha256 VARCHAR NOT NULL,        -- sha256 of the signed rows (recon_exceptions_signed), findings and decisions
  manifest       VARCHAR NOT NULL,        -- JSON: pinrecon version, sha256 of sql/, sha256 of each landing and
                                          -- ledger file
  reopened_at    TIMESTAMPTZ,
  reopened_by    VARCHAR,
  reopen_reason  VARCHAR
);

-- The findings of a period exactly as signed: every column of recon_exceptions (decision columns included,
-- added here when recon_exceptions gains them), keyed by the sign-off. Never updated.
CREATE TABLE IF NOT EXISTS recon_exceptions_signed (
  signoff_id         VARCHAR NOT NULL,
  period             VARCHAR NOT NULL,
  finding_id         VARCHAR NOT NULL,
  exception_type     VARCHAR NOT NULL,
  family             VARCHAR NOT NULL,
  partner_reference  VARCHAR,
  transaction_id     BIGINT,
  product_id         BIGINT,
  ledger_value       DECIMAL(18,4),
  provider_value     DECIMAL(18,4),
  difference         DECIMAL(18,4),
  currency_code      VARCHAR,
  details            VARCHAR,
  first_detected_at  TIMESTAMPTZ NOT NULL,
  ledger_source      VARCHAR,
  status             VARCHAR,
  status_class       VARCHAR,
  order_status       VARCHAR,
  transaction_at     TIMESTAMPTZ,
  paid_at            TIMESTAMPTZ,
  key_last4          VARCHAR,
  age_days           INTEGER,
  aging_bucket       VARCHAR,
  amount             DECIMAL(18,4),
  as_of              DATE NOT NULL,
  built_at           TIMESTAMPTZ NOT NULL,
  run_id             VARCHAR NOT NULL
);

-- One row per finding that differs between a signed period's active sign-off and its latest reconciliation
-- (see sql/marts/recon_signoff_changes.sql for the columns).
CREATE TABLE IF NOT EXISTS recon_signoff_changes (
  period          VARCHAR NOT NULL,
  signoff_id      VARCHAR NOT NULL,
  finding_id      VARCHAR NOT NULL,
  change          VARCHAR NOT NULL,       -- new | cleared | changed
  exception_type  VARCHAR NOT NULL,
  partner_reference VARCHAR,
  transaction_id  BIGINT,
  currency_code   VARCHAR,
  signed_amount   DECIMAL(18,4),          -- the finding's bridge amount as signed (NULL when new)
  current_amount  DECIMAL(18,4),          -- now (NULL when cleared)
  amount_delta    DECIMAL(18,4) NOT NULL, -- current_amount - signed_amount, a missing side counting 0
  signed_details  VARCHAR,
  current_details VARCHAR,
  as_of           DATE NOT NULL,
  built_at        TIMESTAMPTZ NOT NULL,
  run_id          VARCHAR NOT NULL
);
