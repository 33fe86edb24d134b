/**
 * The seal of a sign-off (issue 28): one JSON statement of what was signed — period, sign-off, signer, time,
 * content hash, the heads of the decision and action-event chains, the manifest's sha256 — kept in
 * `period_signoffs.seal` and signed with the signer's key (`seal_signature`) when people are configured. Its
 * sha256 leaves the database in the email, so a copy lives outside what it protects; `verify --seal` and the
 * audit pack check it. The statement's form is documented at `sealText` (and in docs/DATA.md).
 */
import type { KeyObject } from 'node:crypto';
import { actionEventChainHead } from '../../core/action-event-chain.js';
import { canonicalTimestampSql, chainHead } from '../../core/decision-chain.js';
import { sha256Hex, signCanonical } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';

export const sealVersion = 'pinrecon.seal.v1';

/** A chain's last row when sealed: position 0 and null when the chain is empty. */
export interface ChainHead {
  position: number;
  sha256: string | null;
}

export interface SealStatement {
  version: string;
  period: string;
  signoff_id: string;
  signed_by: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ`, as period_signoffs.signed_at. */
  signed_at: string;
  content_sha256: string;
  decision_chain_head: ChainHead;
  action_event_chain_head: ChainHead;
  /** Lowercase hex SHA-256 of the UTF-8 bytes of period_signoffs.manifest as stored. */
  manifest_sha256: string;
}

/** The key a seal is signed with (the signer's, when people are configured). */
export interface SealSigner {
  privateKey: KeyObject;
  fingerprint: string;
}

/**
 * The statement's bytes: JSON.stringify of an object with exactly these keys in this order — version
 * ("pinrecon.seal.v1"), period, signoff_id, signed_by, signed_at, content_sha256, decision_chain_head {position,
 * sha256}, action_event_chain_head {position, sha256}, manifest_sha256 — no white space, UTF-8. `seal_signature`
 * is the base64 Ed25519 signature of these bytes; the email's `Seal sha256` is their lowercase hex SHA-256.
 */
export function sealText(seal: SealStatement): string {
  const head = (h: ChainHead) => ({ position: h.position, sha256: h.sha256 });
  return JSON.stringify({
    version: seal.version,
    period: seal.period,
    signoff_id: seal.signoff_id,
    signed_by: seal.signed_by,
    signed_at: seal.signed_at,
    content_sha256: seal.content_sha256,
    decision_chain_head: head(seal.decision_chain_head),
    action_event_chain_head: head(seal.action_event_chain_head),
    manifest_sha256: seal.manifest_sha256,
  });
}

/** What the email and `verify` print: the hex SHA-256 of the statement's bytes. */
export function sealSha256(text: string): string {
  return sha256Hex(Buffer.from(text, 'utf8'));
}

/** Reads a statement back; throws a plain Error saying what is wrong with it. */
export function parseSeal(text: string): SealStatement {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`it is not JSON (${(error as Error).message})`);
  }
  const seal = value as SealStatement;
  if (typeof seal !== 'object' || seal === null || seal.version !== sealVersion)
    throw new Error(`it is not a ${sealVersion} statement`);
  for (const key of ['period', 'signoff_id', 'signed_by', 'signed_at', 'content_sha256', 'manifest_sha256'] as const)
    if (typeof seal[key] !== 'string') throw new Error(`its ${key} is missing`);
  if (
    typeof seal.decision_chain_head?.position !== 'number' ||
    typeof seal.action_event_chain_head?.position !== 'number'
  )
    throw new Error('its chain heads are missing');
  return seal;
}

/** The seal of a sign-off row as it stands in the database now (what close seals; what verify compares). */
export async function sealOfSignoff(warehouse: Warehouse, signoffId: string): Promise<SealStatement | undefined> {
  const row = await warehouse.one<{
    period: string;
    signed_by: string;
    signed_at: string;
    content_sha256: string;
    manifest: string;
  }>(
    `SELECT period, signed_by, ${canonicalTimestampSql('signed_at')} AS signed_at, content_sha256, manifest
     FROM period_signoffs WHERE signoff_id = $1`,
    [signoffId],
  );
  if (!row) return undefined;
  return {
    version: sealVersion,
    period: row.period,
    signoff_id: signoffId,
    signed_by: row.signed_by,
    signed_at: row.signed_at,
    content_sha256: row.content_sha256,
    decision_chain_head: await chainHead(warehouse, row.period),
    action_event_chain_head: await actionEventChainHead(warehouse, row.period),
    manifest_sha256: sealSha256(row.manifest),
  };
}

/**
 * Seals a sign-off just written (inside close's transaction): the statement of the row and the chains' heads now,
 * signed when a signer is given. Returns the statement's text.
 */
export async function sealSignoff(
  warehouse: Warehouse,
  signoffId: string,
  signer: SealSigner | null | undefined,
): Promise<string> {
  const seal = await sealOfSignoff(warehouse, signoffId);
  if (!seal) throw new Error(`sign-off ${signoffId} is not in period_signoffs`);
  const text = sealText(seal);
  const signature = signer ? signCanonical(signer.privateKey, text) : null;
  await warehouse.run(
    `UPDATE period_signoffs SET seal = $2, seal_signature = $3,
       signer_key_sha256 = coalesce(signer_key_sha256, $4) WHERE signoff_id = $1`,
    [signoffId, text, signature, signer ? signer.fingerprint : null],
  );
  return text;
}
