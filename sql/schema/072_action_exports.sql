-- What each `pinrecon actions export` wrote (README "Acting on findings"):
-- one row per line of a file, so the next export of the same kind writes only lines not exported before (unless
-- --all, which writes them again, marked, and records them with repeated = true). Append-only, like
-- recon_action_events: a line once sent to the provider or posted to the ledger stays on record.
CREATE TABLE IF NOT EXISTS recon_action_exports (
  export_id       VARCHAR NOT NULL,          -- X-<period>-<kind>-<2 digits>, in the order of the exports
  period          VARCHAR NOT NULL,
  kind            VARCHAR NOT NULL,          -- claim | undercharge | journal
  line_id         VARCHAR NOT NULL,          -- stable: a claim line is its action; a journal line <action>-<n>
  action_id       VARCHAR NOT NULL,
  finding_id      VARCHAR NOT NULL,
  account         VARCHAR,                   -- journal: the line's account
  debit           DECIMAL(18,4),             -- journal
  credit          DECIMAL(18,4),             -- journal
  amount          DECIMAL(18,4),             -- claim | undercharge: the difference (charged − agreed)
  currency_code   VARCHAR,
  repeated        BOOLEAN NOT NULL,          -- the line had been exported before (written again by --all)
  file            VARCHAR NOT NULL,
  exported_at     TIMESTAMPTZ NOT NULL,
  exported_by     VARCHAR NOT NULL,
  run_id          VARCHAR NOT NULL
);
