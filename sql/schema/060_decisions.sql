-- Decisions on findings (interface.md "Decisions on findings"): written by `pinrecon findings import|decide`,
-- never by reconcile, so they outlive every rebuild of the marts.

-- Append-only: one row per decision recorded; the row with superseded_at NULL is a finding's current decision.
CREATE TABLE IF NOT EXISTS recon_decisions (
  finding_id         VARCHAR NOT NULL,       -- recon_exceptions.finding_id (md5 of period|type|reference|transaction_id)
  period             VARCHAR NOT NULL,       -- YYYY-MM of the finding
  decision           VARCHAR NOT NULL,       -- investigating | timing | claim | fix_ledger | reverse | write_off | accepted
  note               VARCHAR,
  owner              VARCHAR,
  expected_clear_by  DATE,                   -- timing: the date the finding should clear by itself
  decided_by         VARCHAR NOT NULL,       -- --by, default the OS user name
  decided_at         TIMESTAMPTZ NOT NULL,
  source             VARCHAR NOT NULL,       -- 'cli' or 'workbook:<file name>#<sha256 of the file>'
  superseded_at      TIMESTAMPTZ             -- when a later decision replaced this one
);

-- The current decision, on every finding row (reconcile joins it back in on each rebuild).
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS decision VARCHAR;
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS decision_note VARCHAR;
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS owner VARCHAR;
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS expected_clear_by DATE;
