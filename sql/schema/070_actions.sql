-- Actions on findings (README "Acting on findings"): written by `pinrecon actions plan|approve|execute|export`, never
-- by reconcile, so they outlive every rebuild of the marts (like recon_decisions).

-- One row per action: a reversal at the provider, a claim line for the provider, or a journal entry.
CREATE TABLE IF NOT EXISTS recon_actions (
  action_id          VARCHAR PRIMARY KEY,    -- A-<period>-<4 digits>, in the order they were planned
  period             VARCHAR NOT NULL,       -- YYYY-MM of the finding
  finding_id         VARCHAR NOT NULL,       -- recon_exceptions.finding_id
  kind               VARCHAR NOT NULL,       -- reversal | claim | journal
  transaction_id     BIGINT,                 -- the provider sale (reversal; claim when the finding has one)
  partner_reference  VARCHAR,
  amount             DECIMAL(18,4),          -- reversal: the sale's cost; claim: the difference;
                                             -- journal: its absolute value
  currency_code      VARCHAR,
  status             VARCHAR NOT NULL,       -- proposed | approved | in_flight | executed | verified | failed
                                             -- | canceled
  proposed_by        VARCHAR NOT NULL,
  proposed_at        TIMESTAMPTZ NOT NULL,
  approved_by        VARCHAR,
  approved_at        TIMESTAMPTZ,
  executed_at        TIMESTAMPTZ,            -- reversal: the provider answered; claim/journal: exported
  provider_status    VARCHAR,                -- the sale's status as last read, or the reversal's answer
  provider_message   VARCHAR,                -- the provider's message (a refusal's body)
  verified_at        TIMESTAMPTZ,            -- the sale was read back canceled
  error              VARCHAR
);

-- What each action carries out, fixed when it was planned (maker-checker compares decided_by with the approver).
-- decision: the finding's decision (reverse | claim | fix_ledger | write_off)
ALTER TABLE recon_actions ADD COLUMN IF NOT EXISTS decision VARCHAR;
ALTER TABLE recon_actions ADD COLUMN IF NOT EXISTS decided_by VARCHAR;      -- who took that decision
                                                                            -- (recon_decisions.decided_by)
ALTER TABLE recon_actions ADD COLUMN IF NOT EXISTS decided_at TIMESTAMPTZ;  -- when (identifies the decision row)
ALTER TABLE recon_actions ADD COLUMN IF NOT EXISTS exception_type VARCHAR;
ALTER TABLE recon_actions ADD COLUMN IF NOT EXISTS note VARCHAR;            -- the decision's note

-- Append-only: every change of an action's status, who made it and why. Never updated, never deleted.
CREATE TABLE IF NOT EXISTS recon_action_events (
  action_id    VARCHAR NOT NULL,
  "at"         TIMESTAMPTZ NOT NULL,         -- quoted: AT and BY are SQL keywords
  "by"         VARCHAR NOT NULL,             -- a person (--by) or 'pinrecon' for what execute settles by itself
  from_status  VARCHAR,                      -- NULL when the action was proposed
  to_status    VARCHAR NOT NULL,
  detail       VARCHAR
);
