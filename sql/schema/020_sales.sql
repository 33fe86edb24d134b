-- Provider sales as extracted: one row per transactionId, upserted by each window that returns it. Stored once by
-- the load (pipelines/extract/load.ts: one row per transaction_id inserted, a changed sale's stored row deleted
-- first) and proven so by the data test sql/tests/sales_stored_once.sql; not by a primary key, whose index grows
-- with the history and cannot spill (a database made with one is rebuilt without it once: core/sales-rebuild.ts).
CREATE TABLE IF NOT EXISTS sales (
  transaction_id        BIGINT NOT NULL,
  partner_reference     VARCHAR,            -- as sent by the provider (untrimmed; staging trims)
  product_id            BIGINT,
  product_name          VARCHAR,
  sales_price           DECIMAL(18,4),
  partner_cost_price    DECIMAL(18,4),
  status                VARCHAR,            -- the provider's status text
  status_class          VARCHAR,            -- redeemed | canceled | booked | unknown, through reconciliation.statusMap
                                            -- at load time
  transaction_at        TIMESTAMPTZ,        -- NULL when transactionDate could not be parsed (see sales_quarantine)
  transaction_date_raw  VARCHAR,            -- transactionDate exactly as received
  country_code          VARCHAR,
  sales_currency_code   VARCHAR,
  sales_currency_symbol VARCHAR,
  key                   VARCHAR,            -- the PIN whole (security.keys "store"), else masked:
                                            -- **** + last 4 characters
  key_sent_to_customer  BOOLEAN,
  first_seen_at         TIMESTAMPTZ NOT NULL, -- fetch time of the first response that held it
  last_seen_at          TIMESTAMPTZ NOT NULL, -- fetch time of the latest response that held it
  seen_by_paid          BOOLEAN NOT NULL DEFAULT false,  -- returned by a paid-date window
  paid_window_start     DATE,               -- that window
  seen_by_created       BOOLEAN NOT NULL DEFAULT false,  -- returned by a creation-date window
  created_window_start  DATE,
  last_run_id           VARCHAR
);

-- Every status a sale was seen in, in order: the first observation and each change after it.
CREATE TABLE IF NOT EXISTS sales_status_history (
  transaction_id  BIGINT NOT NULL,
  status          VARCHAR,
  previous_status VARCHAR,                  -- NULL for the first observation
  observed_at     TIMESTAMPTZ NOT NULL,
  run_id          VARCHAR NOT NULL
);

-- Each response body kept as received (gzip), so reloads and disputes never need the API again.
CREATE TABLE IF NOT EXISTS landing_files (
  path          VARCHAR PRIMARY KEY,        -- the .json.gz file
  run_id        VARCHAR NOT NULL,
  endpoint      VARCHAR NOT NULL,           -- salesByPeriod, salesByPartnerReference, ...
  window_start  DATE,
  window_end    DATE,
  by_flag       VARCHAR,                    -- paid | created
  fetched_at    TIMESTAMPTZ NOT NULL,
  bytes         BIGINT NOT NULL,
  records       BIGINT,
  quarantined   BIGINT
);

-- The completed-window state of extraction: committed in the same transaction as the window's rows.
CREATE TABLE IF NOT EXISTS extract_windows (
  window_start DATE NOT NULL,
  window_end   DATE NOT NULL,
  by_flag      VARCHAR NOT NULL,            -- paid | created
  run_id       VARCHAR NOT NULL,
  completed_at TIMESTAMPTZ NOT NULL,
  records      BIGINT NOT NULL,
  quarantined  BIGINT NOT NULL,
  landing_path VARCHAR NOT NULL,
  PRIMARY KEY (window_start, window_end, by_flag)
);

-- API records that could not be loaded as they are: kept whole with the reason, never dropped.
CREATE TABLE IF NOT EXISTS sales_quarantine (
  landing_path   VARCHAR NOT NULL,          -- where the record was received
  record_index   BIGINT NOT NULL,           -- its position in that response (0-based)
  window_start   DATE,                      -- the period search that returned it (NULL for other lookups)
  window_end     DATE,
  by_flag        VARCHAR,
  transaction_id BIGINT,                    -- when it could be read
  reason         VARCHAR NOT NULL,
  raw            VARCHAR NOT NULL,          -- the record's JSON as received (holds the PIN: stays in the database)
  run_id         VARCHAR NOT NULL,
  quarantined_at TIMESTAMPTZ NOT NULL
);

-- security.keys "hash": HMAC-SHA256 of the key (hex) under the database's key secret (NULL in store and drop modes).
ALTER TABLE sales ADD COLUMN IF NOT EXISTS key_hmac VARCHAR;

-- A hash of the record's JSON as last received (with the time zone and status map that typed it): a window that
-- brings the same record of the same transaction id again is not parsed again (pipelines/extract/load.ts). NULL
-- for sales loaded before; an md5 for sales loaded before 2026-11-28 (typed once more when next received).
ALTER TABLE sales ADD COLUMN IF NOT EXISTS record_hash UHUGEINT;

-- How this database keeps keys (security.keys), decided when it first held sales: store | hash | drop.
CREATE TABLE IF NOT EXISTS key_protection (
  mode               VARCHAR NOT NULL,
  secret_fingerprint VARCHAR,                -- hash mode: identifies the HMAC secret (never the secret itself)
  decided_at         TIMESTAMPTZ NOT NULL
);

-- One row per individual look-up of a partner reference (salesByPartnerReference) before reconcile concludes
-- missing_at_provider: when it was asked and whether the provider held anything for it. A finding proven by
-- `lookup` is the row of its reconcile run (recon_exceptions.run_id) that found nothing: kept, so a controller
-- can show when the provider was asked.
CREATE TABLE IF NOT EXISTS provider_lookups (
  partner_reference VARCHAR NOT NULL,         -- trimmed, as asked
  run_id            VARCHAR NOT NULL,         -- the reconcile run that asked
  asked_at          TIMESTAMPTZ NOT NULL,     -- when the answer came
  found             BOOLEAN NOT NULL,         -- the provider returned at least one record
  records           BIGINT NOT NULL           -- records returned (loaded into sales, or quarantined)
);
