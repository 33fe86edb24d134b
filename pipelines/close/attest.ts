/**
 * Who signed a period off, proven (issue 28): the sign-off row's and the reopen's signatures over their canonical
 * forms (core/signoff-canonical.ts), the plain-words attestation every sign-off carries, and the gate on findings
 * still `investigating` (close refuses them unless --allow-open, and then the sign-off lists them).
 */
import { canonicalTimestampSql } from '../../core/decision-chain.js';
import { canonicalReopen, canonicalSignoff, type CanonicalSignoff } from '../../core/signoff-canonical.js';
import { sha256Hex, signCanonical, unattestedNotice, type Identity } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';

/** What a sign-off says of its signer: the key that signed it, or that the names are typed. */
export function attestationOf(by: string, signer: Identity | null | undefined): string {
  return signer ? `signed with the key of ${by} (fingerprint ${signer.fingerprint})` : unattestedNotice;
}

/** The ids of the period's findings still `investigating` (sorted): a sign-off over them lists them. */
export async function investigatingFindings(warehouse: Warehouse, period: string): Promise<string[]> {
  const rows = await warehouse.all<{ finding_id: string }>(
    `SELECT finding_id FROM recon_exceptions WHERE period = $1 AND decision = 'investigating' ORDER BY finding_id`,
    [period],
  );
  return rows.map((r) => r.finding_id);
}

type StoredSignoff = {
  period: string;
  signed_by: string;
  signed_at: string;
  note: string | null;
  run_id: string;
  as_of: string;
  findings: string;
  undecided: string;
  content_sha256: string;
  manifest: string;
  open_findings: string | null;
  reopened_by: string | null;
  reopened_at: string | null;
  reopen_reason: string | null;
};

async function storedSignoff(warehouse: Warehouse, signoffId: string): Promise<StoredSignoff> {
  const row = await warehouse.one<StoredSignoff>(
    `SELECT period, signed_by, ${canonicalTimestampSql('signed_at')} AS signed_at, note, run_id,
            strftime(as_of, '%Y-%m-%d') AS as_of, findings::VARCHAR AS findings, undecided::VARCHAR AS undecided,
            content_sha256, manifest, open_findings, reopened_by,
            ${canonicalTimestampSql('reopened_at')} AS reopened_at, reopen_reason
     FROM period_signoffs WHERE signoff_id = $1`,
    [signoffId],
  );
  if (!row) throw new Error(`sign-off ${signoffId} is not in period_signoffs`);
  return row;
}

/** The canonical bytes of a sign-off row as stored (what `signature` signs; what verify recomputes). */
export async function signoffCanonical(warehouse: Warehouse, signoffId: string): Promise<string> {
  const r = await storedSignoff(warehouse, signoffId);
  return canonicalSignoff({
    signoffId,
    period: r.period,
    signedBy: r.signed_by,
    signedAt: r.signed_at,
    note: r.note,
    runId: r.run_id,
    asOf: r.as_of,
    findings: Number(r.findings),
    undecided: Number(r.undecided),
    contentSha256: r.content_sha256,
    manifestSha256: sha256Hex(Buffer.from(r.manifest, 'utf8')),
    openFindings: r.open_findings,
  });
}

/** The canonical bytes of a reopen as stored (what `reopen_signature` signs). */
export async function reopenCanonical(warehouse: Warehouse, signoffId: string): Promise<string> {
  const r = await storedSignoff(warehouse, signoffId);
  return canonicalReopen({
    signoffId,
    period: r.period,
    reopenedBy: r.reopened_by ?? '',
    reopenedAt: r.reopened_at ?? '',
    reason: r.reopen_reason ?? '',
    contentSha256: r.content_sha256,
  });
}

/** What a sign-off row carries of its signer: the plain-words attestation and, with a key, the signature. */
export interface SignoffAttestation {
  attestation: string;
  signature: string | null;
  signerKeySha256: string | null;
}

/** Attests a sign-off about to be written: the signature of its canonical form when a key is given. */
export function attestSignoff(row: CanonicalSignoff, signer: Identity | null | undefined): SignoffAttestation {
  return {
    attestation: attestationOf(row.signedBy, signer),
    signature: signer ? signCanonical(signer.privateKey, canonicalSignoff(row)) : null,
    signerKeySha256: signer ? signer.fingerprint : null,
  };
}

/** Signs a reopen just recorded (inside reopen's transaction), when a key is given. */
export async function attestReopen(
  warehouse: Warehouse,
  signoffId: string,
  signer: Identity | null | undefined,
): Promise<void> {
  if (!signer) return;
  const signature = signCanonical(signer.privateKey, await reopenCanonical(warehouse, signoffId));
  await warehouse.run(
    'UPDATE period_signoffs SET reopen_signature = $2, reopen_signer_key_sha256 = $3 WHERE signoff_id = $1',
    [signoffId, signature, signer.fingerprint],
  );
}
