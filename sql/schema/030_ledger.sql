-- Each ledger file imported: identified by the hash of its content. Re-importing a content replaces its rows;
-- a new content from the same source_file supersedes (removes) the earlier one.
CREATE TABLE IF NOT EXISTS ledger_files (
  file_hash   VARCHAR PRIMARY KEY,          -- sha256 of the file's bytes
  source_file VARCHAR NOT NULL,             -- absolute path at import
  format      VARCHAR NOT NULL,             -- csv | xlsx | json | ndjson | parquet
  lines       BIGINT NOT NULL,              -- records after the header, each accepted or rejected (accepted + rejected)
  accepted    BIGINT NOT NULL,
  rejected    BIGINT NOT NULL,
  imported_at TIMESTAMPTZ NOT NULL,
  run_id      VARCHAR NOT NULL
);

-- One row per accepted ledger line, in canonical columns.
CREATE TABLE IF NOT EXISTS ledger (
  partner_reference VARCHAR NOT NULL,       -- as in the file (staging trims)
  product_id        BIGINT NOT NULL,
  paid_at           TIMESTAMPTZ NOT NULL,   -- a date without time is midnight in the configured zone
  paid_at_raw       VARCHAR NOT NULL,
  sales_price       DECIMAL(18,4) NOT NULL,
  expected_cost     DECIMAL(18,4) NOT NULL,
  currency_code     VARCHAR NOT NULL,
  country_code      VARCHAR,
  order_status      VARCHAR NOT NULL,       -- paid | refunded | canceled
  source_file       VARCHAR NOT NULL,
  source_line       BIGINT NOT NULL,        -- 1-based location: CSV/NDJSON the physical line where the record
                                            -- starts; XLSX the sheet row; Parquet the file row; JSON array the
                                            -- element's ordinal (record N: arrays are often one line)
  file_hash         VARCHAR NOT NULL,
  run_id            VARCHAR NOT NULL
);

-- One row per ledger line that was not accepted: never dropped.
CREATE TABLE IF NOT EXISTS ledger_rejects (
  source_file VARCHAR NOT NULL,
  source_line BIGINT NOT NULL,             -- as in ledger.source_line (a JSON array: the element's ordinal)
  reason      VARCHAR NOT NULL,
  raw         VARCHAR NOT NULL,             -- the line as read (decoded text)
  file_hash   VARCHAR NOT NULL,
  run_id      VARCHAR NOT NULL
);

-- Accepted ledger lines an import removed (a newer export of the same path, or --replace): kept, never
-- deleted for good. The columns of `ledger`, then when and by which run they were superseded.
CREATE TABLE IF NOT EXISTS ledger_history (
  partner_reference VARCHAR NOT NULL,
  product_id        BIGINT NOT NULL,
  paid_at           TIMESTAMPTZ NOT NULL,
  paid_at_raw       VARCHAR NOT NULL,
  sales_price       DECIMAL(18,4) NOT NULL,
  expected_cost     DECIMAL(18,4) NOT NULL,
  currency_code     VARCHAR NOT NULL,
  country_code      VARCHAR,
  order_status      VARCHAR NOT NULL,
  source_file       VARCHAR NOT NULL,
  source_line       BIGINT NOT NULL,
  file_hash         VARCHAR NOT NULL,
  run_id            VARCHAR NOT NULL,           -- the import that loaded the line
  superseded_at     TIMESTAMPTZ NOT NULL,
  superseded_by_run VARCHAR NOT NULL            -- the import that removed it
);
