-- Decisions on findings (README "Acting on findings"): written by `pinrecon findings import|decide`,
-- never by reconcile, so they outlive every rebuild of the marts.

-- Append-only: one row per decision recorded; the row with superseded_at NULL is a finding's current decision.
CREATE TABLE IF NOT EXISTS recon_decisions (
  finding_id         VARCHAR NOT NULL,       -- recon_exceptions.finding_id
                                             -- (md5 of period|type|reference|transaction_id)
  period             VARCHAR NOT NULL,       -- YYYY-MM of the finding
  decision           VARCHAR NOT NULL,       -- investigating | timing | claim | fix_ledger | reverse | write_off
                                             -- | accepted
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

-- The audit chain over each period's decisions (core/decision-chain.ts defines the row's canonical form):
-- chain_position 1, 2, … in the order rows were recorded; prev_sha256 the row before (NULL for the first);
-- row_sha256 the sha256 of this row's canonical form. A database from before the chain is chained once, when
-- these columns are added (Warehouse.applySchema).
ALTER TABLE recon_decisions ADD COLUMN IF NOT EXISTS chain_position BIGINT;
ALTER TABLE recon_decisions ADD COLUMN IF NOT EXISTS prev_sha256 VARCHAR;
ALTER TABLE recon_decisions ADD COLUMN IF NOT EXISTS row_sha256 VARCHAR;

-- Who took the current decision, when, and which recon_decisions row it is (its row_sha256): the workbook shows
-- them (Decided by, Decided at) and writes the hash as each row's Decision ref, so an import can tell a row left
-- as written from one edited over a newer decision.
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS decided_by VARCHAR;
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS decided_at TIMESTAMPTZ;
ALTER TABLE recon_exceptions ADD COLUMN IF NOT EXISTS decision_sha256 VARCHAR;

-- A sign-off keeps the decisions as signed (close copies every recon_exceptions column), and the comparison with
-- it shows a decision changed since (the period reopened) like any other change.
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS decision VARCHAR;
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS decision_note VARCHAR;
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS owner VARCHAR;
ALTER TABLE recon_exceptions_signed ADD COLUMN IF NOT EXISTS expected_clear_by DATE;
ALTER TABLE recon_signoff_changes ADD COLUMN IF NOT EXISTS signed_decision VARCHAR;
ALTER TABLE recon_signoff_changes ADD COLUMN IF NOT EXISTS current_decision VARCHAR;
