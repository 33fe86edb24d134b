-- People proven by keys (README "Who acts is proven by a key"). With `people` configured each act's row
-- is signed by its person's Ed25519 key over the row's canonical bytes (docs/DATA.md), which include the previous
-- row's hash; without `people` these stay NULL and every report says the names are typed, not attested.
--   signature          base64 Ed25519 signature of the row's canonical bytes
--   signer_key_sha256  hex SHA-256 of the signer's public key (SPKI DER): the fingerprint compared out of band
ALTER TABLE recon_decisions ADD COLUMN IF NOT EXISTS signature VARCHAR;
ALTER TABLE recon_decisions ADD COLUMN IF NOT EXISTS signer_key_sha256 VARCHAR;
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS signature VARCHAR;
ALTER TABLE recon_action_events ADD COLUMN IF NOT EXISTS signer_key_sha256 VARCHAR;
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS signature VARCHAR;
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS signer_key_sha256 VARCHAR;

-- The seal (close): a JSON statement of period, signoff_id, signed_by, signed_at, content_sha256, the decision
-- chain's head, the action events' head and the manifest's sha256, and its signature.
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS seal VARCHAR;
ALTER TABLE period_signoffs ADD COLUMN IF NOT EXISTS seal_signature VARCHAR;

-- An action is bound to the decision it was planned from: recon_decisions.row_sha256 of that decision.
ALTER TABLE recon_actions ADD COLUMN IF NOT EXISTS decision_sha256 VARCHAR;
