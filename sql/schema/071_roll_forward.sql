-- The roll-forward mart (sql/marts/recon_roll_forward.sql): one row per period and currency, replaced by each
-- reconcile of the period. See docs/DATA.md for its columns.
CREATE TABLE IF NOT EXISTS recon_roll_forward (
  period                VARCHAR NOT NULL,
  currency_code         VARCHAR,
  open_at_start         BIGINT NOT NULL,
  open_at_start_amount  DECIMAL(38,4) NOT NULL,
  new                   BIGINT NOT NULL,
  new_amount            DECIMAL(38,4) NOT NULL,
  cleared               BIGINT NOT NULL,
  cleared_amount        DECIMAL(38,4) NOT NULL,
  written_off           BIGINT NOT NULL,
  written_off_amount    DECIMAL(38,4) NOT NULL,
  remeasured_amount     DECIMAL(38,4) NOT NULL,
  open_at_end           BIGINT NOT NULL,
  open_at_end_amount    DECIMAL(38,4) NOT NULL,
  check_count           BIGINT NOT NULL,
  check_amount          DECIMAL(38,4) NOT NULL,
  previous_built_at     TIMESTAMPTZ,
  built_at              TIMESTAMPTZ NOT NULL,
  run_id                VARCHAR NOT NULL
);
