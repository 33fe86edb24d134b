-- The audit chain over each period's action events (issue 28; core/action-event-chain.ts defines the row's
-- canonical form, docs/DATA.md says it for an auditor), as recon_decisions has one:
--   period          the action's period (the chain is per period)
--   chain_position  1, 2, … in the order events were recorded
--   prev_sha256     the row before (NULL for the first); row_sha256 the sha256 of this row's canonical form
--   policy_sha256   an approval: the sha256 of the approval policy in force (approval_policies); else NULL
-- A database from before the chain is chained once, when these columns are added (Warehouse.applySchema).
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS period VARCHAR;
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS chain_position BIGINT;
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS prev_sha256 VARCHAR;
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS row_sha256 VARCHAR;
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS policy_sha256 VARCHAR;

-- Each approval policy used (issue 34 item 4): the approvers, the limits per currency and the people with their
-- keys' fingerprints and roles, as the canonical JSON whose sha256 an approval event records. Never updated.
CREATE TABLE IF NOT EXISTS approval_policies (
  policy_sha256  VARCHAR PRIMARY KEY,
  policy         VARCHAR NOT NULL,
  first_used_at  TIMESTAMPTZ NOT NULL
);

-- A sign-off with `investigating` findings (close --allow-open) lists them: a JSON array of finding ids.
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS open_findings VARCHAR;

-- Who signed, as the sign-off says it in plain words (issue 28): "signed with the key of <name> (<fingerprint>)",
-- or, with no people configured, that the names are typed, not attested. A reopen is signed like the close:
-- reopen_signature over core/signoff-canonical.ts's reopen form, by the key of reopen_signer_key_sha256.
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS attestation VARCHAR;
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS reopen_signature VARCHAR;
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS reopen_signer_key_sha256 VARCHAR;
