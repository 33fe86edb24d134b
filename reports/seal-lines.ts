/**
 * The seal's lines in the email of a signed period (issue 28): `Seal sha256: <hex>` and the signer's key
 * fingerprint, so a copy of the seal's hash lives outside the database it protects; an unsigned seal says the
 * names are typed, not attested.
 */
import { unattestedNotice } from '../core/signatures.js';
import type { CloseFacts } from './close-facts.js';

export function sealEmailLines(close: CloseFacts): string[] {
  if (!close.seal) return [];
  const key = close.seal.signerKeySha256
    ? `Signer's key sha256: ${close.seal.signerKeySha256} (compare it with the signer's, out of band)`
    : `Signer's key: none — ${unattestedNotice}`;
  return [`Seal sha256: ${close.seal.sha256}`, key, 'Check it: pinrecon verify --period P --seal SEAL.json', ''];
}
