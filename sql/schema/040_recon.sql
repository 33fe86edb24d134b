-- The reconciliation marts: written by `pinrecon reconcile` (sql/marts/ builds them, the runner publishes them),
-- read by the report, `pinrecon query` and analysts. Every mart keeps many periods; a rebuild of period P
-- replaces P's rows in one transaction with the history update.

-- One row per finding of a period: what differs between the ledger and the provider, about which reference.
CREATE TABLE IF NOT EXISTS recon_exceptions (
  period             VARCHAR NOT NULL,       -- YYYY-MM
  finding_id         VARCHAR NOT NULL,       -- md5(period|type|reference|transaction_id): stable across runs
  exception_type     VARCHAR NOT NULL,       -- core/finding-types.ts
  family             VARCHAR NOT NULL,       -- missing | amounts | status | duplicates | cutoff | unredeemed
  partner_reference  VARCHAR,                -- trimmed
  transaction_id     BIGINT,                 -- the provider sale, when the finding is about one
  product_id         BIGINT,
  ledger_value       DECIMAL(18,4),          -- money findings: the ledger's amount, else NULL (values in details)
  provider_value     DECIMAL(18,4),          -- money findings: the provider's amount
  difference         DECIMAL(18,4),          -- provider_value - ledger_value
  currency_code      VARCHAR,
  details            VARCHAR,                -- the finding in words, with the values compared
  first_detected_at  TIMESTAMPTZ NOT NULL,   -- the run that first found it (kept across rebuilds)
  ledger_source      VARCHAR,                -- 'file:line' of the ledger line(s)
  status             VARCHAR,                -- provider status text
  status_class       VARCHAR,                -- redeemed | canceled | booked | unknown
  order_status       VARCHAR,                -- ledger order status (paid | refunded | canceled)
  transaction_at     TIMESTAMPTZ,
  paid_at            TIMESTAMPTZ,
  key_last4          VARCHAR,                -- the PIN's last 4 characters only
  age_days           INTEGER,                -- unredeemed_key: days from the sale's local date to as_of
  aging_bucket       VARCHAR,                -- unredeemed_key: '0-7' | '8-30' | '31-90' | '90+'
  amount             DECIMAL(18,4),          -- this finding's effect on the cost bridge of currency_code
  as_of              DATE NOT NULL,
  built_at           TIMESTAMPTZ NOT NULL,
  run_id             VARCHAR NOT NULL
);

-- One row per period and currency: the two sides' totals.
CREATE TABLE IF NOT EXISTS recon_summary (
  period                  VARCHAR NOT NULL,
  as_of                   DATE NOT NULL,
  currency_code           VARCHAR,
  ledger_orders           BIGINT NOT NULL,   -- ledger lines paid in the period (every order_status)
  ledger_active_orders    BIGINT NOT NULL,   -- of which order_status = paid
  ledger_sales_total      DECIMAL(18,4) NOT NULL,  -- sales_price of the active (paid) orders
  ledger_cost_total       DECIMAL(18,4) NOT NULL,  -- expected_cost of the active (paid) orders = bridge opening
  provider_sales          BIGINT NOT NULL,   -- provider sales dated in the period (every status)
  provider_billable_sales BIGINT NOT NULL,   -- of which not canceled
  provider_sales_total    DECIMAL(18,4) NOT NULL,  -- sales_price of the billable sales
  provider_cost_total     DECIMAL(18,4) NOT NULL,  -- partner_cost_price of the billable sales = bridge closing
  provider_margin         DECIMAL(18,4) NOT NULL,  -- provider_sales_total - provider_cost_total
  matched                 BIGINT NOT NULL,   -- one-to-one pairs in the period's scope
  exceptions              BIGINT NOT NULL,   -- findings in this currency
  built_at                TIMESTAMPTZ NOT NULL,
  run_id                  VARCHAR NOT NULL
);

-- One row per step of the cost bridge of a period and currency: ledger expected cost → provider cost.
CREATE TABLE IF NOT EXISTS recon_bridge (
  period         VARCHAR NOT NULL,
  currency_code  VARCHAR,
  step           INTEGER NOT NULL,           -- 0 = opening (ledger), last = closing (provider)
  label          VARCHAR NOT NULL,
  exception_type VARCHAR,                    -- NULL for opening, closing and differences within tolerance
  amount         DECIMAL(18,4) NOT NULL,     -- opening and closing: the totals; other steps: the change
  items          BIGINT NOT NULL,            -- findings (or pairs) behind the step
  as_of          DATE NOT NULL,
  built_at       TIMESTAMPTZ NOT NULL,
  run_id         VARCHAR NOT NULL
);

-- One row per period, currency and aging bucket: the unredeemed keys (unredeemed_key findings) at as_of.
CREATE TABLE IF NOT EXISTS recon_aging (
  period        VARCHAR NOT NULL,
  as_of         DATE NOT NULL,
  currency_code VARCHAR,
  aging_bucket  VARCHAR NOT NULL,            -- '0-7' | '8-30' | '31-90' | '90+'
  keys          BIGINT NOT NULL,
  cost_total    DECIMAL(18,4) NOT NULL,
  built_at      TIMESTAMPTZ NOT NULL,
  run_id        VARCHAR NOT NULL
);

-- One row per finding per reconcile run: whether that run found it new, still open, or cleared.
CREATE TABLE IF NOT EXISTS recon_exception_history (
  run_id            VARCHAR NOT NULL,
  period            VARCHAR NOT NULL,
  finding_id        VARCHAR NOT NULL,
  exception_type    VARCHAR NOT NULL,
  partner_reference VARCHAR,
  transaction_id    BIGINT,
  change            VARCHAR NOT NULL,        -- new | still_open | cleared
  first_detected_at TIMESTAMPTZ,
  recorded_at       TIMESTAMPTZ NOT NULL
);

-- One row per reconcile run; the latest row of a period is its current state.
CREATE TABLE IF NOT EXISTS recon_runs (
  run_id          VARCHAR NOT NULL,
  period          VARCHAR NOT NULL,
  as_of           DATE NOT NULL,
  built_at        TIMESTAMPTZ NOT NULL,
  exceptions      BIGINT NOT NULL,
  new             BIGINT NOT NULL,
  still_open      BIGINT NOT NULL,
  cleared         BIGINT NOT NULL,
  ledger_lines    BIGINT,                    -- ledger lines in the period's scope
  provider_sales  BIGINT,                    -- provider sales in the period's scope
  lookups         BIGINT,                    -- references looked up individually before concluding missing_at_provider
  lookups_found   BIGINT,
  stage_seconds   VARCHAR                    -- JSON: seconds per stage
);

-- missing_at_provider only: how the provider's having no sale was proven (README "Proof of absence"):
-- windows (the stored by-creation windows cover every day from extract.historyStart to the day before as_of),
-- lookup (an individual look-up in this run found nothing: provider_lookups) or unproven. NULL for other types.
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS proof VARCHAR;
