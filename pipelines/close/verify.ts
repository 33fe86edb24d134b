/**
 * `pinrecon verify --period P`: proves nothing moved since it was recorded, or names the first thing that did.
 * It recomputes the period's decision chain (core/decision-chain.ts: each row's hash, link, position and
 * superseded_at), each sign-off's `content_sha256` and its manifest's chain head, and the sha256 of every
 * landing and ledger file the manifest lists.
 */
import {
  chainedDecisionColumns,
  decisionSha256,
  toChainedDecision,
  type StoredDecisionRow,
} from '../../core/decision-chain.js';
import type { Warehouse } from '../../core/warehouse.js';
import { signedContentMatches } from './close.js';
import { fileSha256, type Manifest } from './manifest.js';
import { recordRun } from '../../core/run-trace.js';

/** One thing that does not match: what (a decision row, a sign-off, a file) and why. */
export interface VerifyMismatch {
  kind: 'decision' | 'signoff' | 'file';
  /** Names it: the decision's position and finding, the sign-off id, the file path. */
  subject: string;
  reason: string;
}

export interface VerifyReport {
  period: string;
  ok: boolean;
  decisions: number;
  chainHead: { position: number; sha256: string } | null;
  signoffs: { signoffId: string; signedBy: string; reopened: boolean; contentSha256: string }[];
  filesChecked: number;
  mismatches: VerifyMismatch[];
}

type SignoffRow = {
  signoff_id: string;
  signed_by: string;
  content_sha256: string;
  manifest: string;
  reopened: boolean;
};

export async function verifyPeriod(warehouse: Warehouse, period: string): Promise<VerifyReport> {
  return recordRun(warehouse, 'verify', { period }, async (run) => {
    const mismatches: VerifyMismatch[] = [];
    const chain = await verifyChain(warehouse, period, mismatches);
    const signoffs = await warehouse.all<SignoffRow>(
      `SELECT signoff_id, signed_by, content_sha256, manifest, reopened_at IS NOT NULL AS reopened
       FROM period_signoffs WHERE period = $1 ORDER BY signed_at, signoff_id`,
      [period],
    );
    const fileHashes = new Map<string, string | null>();
    for (const signoff of signoffs) {
      if (!(await signedContentMatches(warehouse, signoff.signoff_id, signoff.content_sha256))) {
        mismatches.push({
          kind: 'signoff',
          subject: `sign-off ${signoff.signoff_id} (by ${signoff.signed_by})`,
          reason: `its signed rows (recon_exceptions_signed) no longer hash to its content_sha256 ${signoff.content_sha256}`,
        });
      }
      const manifest = JSON.parse(signoff.manifest) as Manifest;
      checkChainHead(manifest, signoff, chain, mismatches);
      for (const file of [...manifest.landingFiles, ...manifest.ledgerFiles]) {
        if (file.sha256 === null) continue; // already gone when signed: nothing to compare with
        if (!fileHashes.has(file.path)) fileHashes.set(file.path, await fileSha256(file.path));
        const now = fileHashes.get(file.path)!;
        if (now !== file.sha256) {
          mismatches.push({
            kind: 'file',
            subject: file.path,
            reason:
              now === null
                ? `it is gone (sign-off ${signoff.signoff_id} recorded sha256 ${file.sha256})`
                : `its sha256 is ${now}, sign-off ${signoff.signoff_id} recorded ${file.sha256}`,
          });
        }
      }
    }
    const report: VerifyReport = {
      period,
      ok: mismatches.length === 0,
      decisions: chain.rows.length,
      chainHead: chain.head,
      signoffs: signoffs.map((s) => ({
        signoffId: s.signoff_id,
        signedBy: s.signed_by,
        reopened: s.reopened,
        contentSha256: s.content_sha256,
      })),
      filesChecked: fileHashes.size,
      mismatches,
    };
    run.details = {
      ok: report.ok,
      decisions: report.decisions,
      signoffs: signoffs.length,
      filesChecked: report.filesChecked,
      mismatches: mismatches.slice(0, 20),
    };
    return report;
  });
}

type ChainFacts = {
  rows: (StoredDecisionRow & { row_id: string })[];
  head: { position: number; sha256: string } | null;
};

/** Walks the period's chain in order, recomputing every hash and link; the first break is reported at its row. */
async function verifyChain(warehouse: Warehouse, period: string, mismatches: VerifyMismatch[]): Promise<ChainFacts> {
  const rows = await warehouse.all<StoredDecisionRow & { row_id: string }>(
    `SELECT rowid::VARCHAR AS row_id, ${chainedDecisionColumns} FROM recon_decisions WHERE period = $1
     ORDER BY chain_position NULLS LAST, rowid`,
    [period],
  );
  const name = (row: StoredDecisionRow, index: number) =>
    `recon_decisions row ${row.chain_position ?? `#${index + 1} (no chain position)`} of ${period}: ` +
    `finding ${row.finding_id}, ${row.decision} by ${row.decided_by}`;
  let previous: string | null = null;
  rows.forEach((row, index) => {
    const subject = name(row, index);
    const fail = (reason: string) => mismatches.push({ kind: 'decision', subject, reason });
    if (row.row_sha256 === null || row.chain_position === null)
      fail('it is not chained (no row_sha256): it was written outside pinrecon');
    else if (Number(row.chain_position) !== index + 1) {
      fail(
        `it is at chain position ${row.chain_position}, expected ${index + 1}: a row before it was removed or reordered`,
      );
    } else if (decisionSha256(toChainedDecision(row)) !== row.row_sha256) {
      fail('its content does not hash to its row_sha256: it was changed after it was recorded');
    } else if (row.prev_sha256 !== previous)
      fail('its prev_sha256 is not the row_sha256 of the row before it: the chain was rewritten');
    previous = row.row_sha256;
  });
  // superseded_at is left out of the hash (it is filled later): it must be the decided_at of the finding's next decision.
  const next = new Map<string, string>();
  for (let index = rows.length - 1; index >= 0; index--) {
    const row = rows[index]!;
    const expected = next.get(row.finding_id) ?? null;
    if (row.superseded_at !== expected) {
      mismatches.push({
        kind: 'decision',
        subject: name(row, index),
        reason:
          expected === null
            ? `superseded_at is ${row.superseded_at}, but no later decision of the finding exists`
            : `superseded_at is ${row.superseded_at ?? 'empty'}, the next decision of the finding was recorded at ${expected}`,
      });
    }
    next.set(row.finding_id, row.decided_at);
  }
  const last = rows.at(-1);
  const chained = last && last.row_sha256 !== null && last.chain_position !== null;
  const head = chained ? { position: Number(last.chain_position), sha256: last.row_sha256! } : null;
  return { rows, head };
}

/** The manifest's chain head must still be in the chain; while the sign-off is active, nothing may follow it. */
function checkChainHead(
  manifest: Manifest,
  signoff: SignoffRow,
  chain: ChainFacts,
  mismatches: VerifyMismatch[],
): void {
  const signed = manifest.decisionChainHead;
  if (!signed) return; // a sign-off from before the chain
  const subject = `sign-off ${signoff.signoff_id} (by ${signoff.signed_by})`;
  if (signed.position > 0) {
    const row = chain.rows.find((r) => Number(r.chain_position) === signed.position);
    if (!row || row.row_sha256 !== signed.sha256) {
      const reason = `its manifest's decision chain head (position ${signed.position}, ${signed.sha256}) is no longer in the chain`;
      mismatches.push({ kind: 'signoff', subject, reason });
      return;
    }
  }
  if (!signoff.reopened) {
    const after = chain.rows.find((r) => r.chain_position === null || Number(r.chain_position) > signed.position);
    if (after) {
      mismatches.push({
        kind: 'decision',
        subject:
          `recon_decisions row ${after.chain_position ?? '(no chain position)'}: ` +
          `finding ${after.finding_id}, ${after.decision} by ${after.decided_by}`,
        reason: `it was recorded after sign-off ${signoff.signoff_id}, while the period is signed off`,
      });
    }
  }
}
