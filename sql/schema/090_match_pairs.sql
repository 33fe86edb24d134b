-- Suggested matches (README "Suggested matches", issue 29).
-- The pair a match decision is about: `matches confirm|reject` (or a workbook's Suggested matches sheet) writes the
-- suggestion as it was decided, once, beside its recon_decisions row (finding_id = suggestion_id, decision
-- match_confirmed | match_rejected). The decision rows say its status; this table only says which two sides the
-- suggestion id names, so a confirmed pair stays matched however the marts are rebuilt.
CREATE TABLE IF NOT EXISTS recon_match_pairs (
  suggestion_id       VARCHAR PRIMARY KEY,  -- md5(period|ledger_reference|transaction_id)
  period              VARCHAR NOT NULL,     -- YYYY-MM of the ledger order
  ledger_reference    VARCHAR NOT NULL,     -- the ledger order's trimmed reference
  transaction_id      BIGINT NOT NULL,      -- the provider sale
  provider_reference  VARCHAR NOT NULL,     -- the sale's trimmed reference
  score               INTEGER NOT NULL,     -- as proposed
  reasons             VARCHAR NOT NULL,     -- as proposed
  recorded_at         TIMESTAMPTZ NOT NULL
);

-- Every field in which a finding's two sides differ (reference, product, cost, price, currency, status class, period),
-- e.g. `cost 10.00 → 10.50; product 1501 → 1502`; NULL when the finding has one side or they agree.
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS differences VARCHAR;
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS differences VARCHAR;

-- The two sides' values of a finding whose values are text, not money: a reference_mismatch's two references.
-- ledger_value and provider_value stay DECIMAL (money findings' amounts, summed and compared by analysts' queries).
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS ledger_value_text VARCHAR;
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS provider_value_text VARCHAR;
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS ledger_value_text VARCHAR;
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS provider_value_text VARCHAR;

-- The mart (sql/marts/recon_match_suggestions.yml documents every column): a period's rebuild replaces its rows.
CREATE TABLE IF NOT EXISTS recon_match_suggestions (
  period               VARCHAR NOT NULL,
  suggestion_id        VARCHAR NOT NULL,
  ledger_reference     VARCHAR NOT NULL,
  transaction_id       BIGINT NOT NULL,
  provider_reference   VARCHAR NOT NULL,
  ledger_product_id    BIGINT,
  provider_product_id  BIGINT,
  ledger_cost          DECIMAL(18,4),
  provider_cost        DECIMAL(18,4),
  ledger_price         DECIMAL(18,4),
  provider_price       DECIMAL(18,4),
  currency_code        VARCHAR,
  paid_at              TIMESTAMPTZ,
  transaction_at       TIMESTAMPTZ,
  days_apart           BIGINT,
  score                INTEGER NOT NULL,
  rank                 BIGINT,
  reasons              VARCHAR NOT NULL,
  status               VARCHAR NOT NULL,
  decided_by           VARCHAR,
  decided_at           TIMESTAMPTZ,
  note                 VARCHAR,
  built_at             TIMESTAMPTZ NOT NULL,
  run_id               VARCHAR NOT NULL
);
