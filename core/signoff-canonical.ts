/**
 * The canonical forms a sign-off's and a reopen's signatures are over (issue 28), so an auditor can check
 * `period_signoffs.signature` and `reopen_signature` with any Ed25519 tool (docs/DATA.md). The heads of the
 * period's decision and action-event chains are in the seal, which the same key signs (pipelines/close/seal.ts).
 */

export const signoffVersion = 'pinrecon.signoff.v1';
export const reopenVersion = 'pinrecon.reopen.v1';

export interface CanonicalSignoff {
  signoffId: string;
  period: string;
  signedBy: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  signedAt: string;
  note: string | null;
  runId: string;
  /** YYYY-MM-DD. */
  asOf: string;
  findings: number;
  undecided: number;
  contentSha256: string;
  /** Lowercase hex SHA-256 of the UTF-8 bytes of period_signoffs.manifest as stored. */
  manifestSha256: string;
  /** period_signoffs.open_findings as stored (a JSON array of finding ids), or null. */
  openFindings: string | null;
}

/**
 * The UTF-8 bytes of the JSON array ["pinrecon.signoff.v1", signoff_id, period, signed_by, signed_at, note,
 * run_id, as_of, findings, undecided, content_sha256, manifest_sha256, open_findings] as JSON.stringify writes it
 * (findings and undecided numbers, the rest strings or null).
 */
export function canonicalSignoff(s: CanonicalSignoff): string {
  return JSON.stringify([
    signoffVersion,
    s.signoffId,
    s.period,
    s.signedBy,
    s.signedAt,
    s.note,
    s.runId,
    s.asOf,
    s.findings,
    s.undecided,
    s.contentSha256,
    s.manifestSha256,
    s.openFindings,
  ]);
}

export interface CanonicalReopen {
  signoffId: string;
  period: string;
  reopenedBy: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  reopenedAt: string;
  reason: string;
  /** The sign-off's content_sha256: what is reopened. */
  contentSha256: string;
}

/**
 * The UTF-8 bytes of the JSON array ["pinrecon.reopen.v1", signoff_id, period, reopened_by, reopened_at,
 * reopen_reason, content_sha256] as JSON.stringify writes it.
 */
export function canonicalReopen(r: CanonicalReopen): string {
  return JSON.stringify([reopenVersion, r.signoffId, r.period, r.reopenedBy, r.reopenedAt, r.reason, r.contentSha256]);
}
