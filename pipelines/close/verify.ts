/**
 * `pinrecon verify --period P`: proves nothing moved since it was recorded and signed, or names the first thing
 * that did (issue 28): both hash chains and every signature (pipelines/close/verify-chains.ts), each sign-off's
 * content hash, seal and seal signature, the manifest's files (a file under the database's folder when signed is
 * read under its folder now, so a copied database checks the copy's files), and with `--seal` that the database
 * still holds the sign-off a seal kept outside states. A period with nothing recorded has nothing to verify.
 */
import path from 'node:path';
import { JobError } from '../../core/errors.js';
import { recordRun } from '../../core/run-trace.js';
import { sameName, unattestedNotice, verifyCanonical } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';
import { reopenCanonical, signoffCanonical } from './attest.js';
import { policiesUsed, type PolicyUsed } from '../people/policy.js';
import { signedContentMatches } from './close.js';
import { fileSha256, type Manifest } from './manifest.js';
import { sealedMateriality, type MaterialityThresholds } from './materiality-rule.js';
import { parseSeal, sealSha256, sealText, type SealStatement } from './seal.js';
import {
  walkActionEventChain,
  walkDecisionChain,
  type ChainFacts,
  type DecisionRow,
  type KnownKey,
} from './verify-chains.js';

export type { KnownKey } from './verify-chains.js';

/** One thing that does not match: what (a decision row, an action event, a sign-off, its seal, a file) and why. */
export interface VerifyMismatch {
  kind: 'decision' | 'action_event' | 'signoff' | 'seal' | 'file';
  /** Names it: the row's position and finding or action, the sign-off id, the file path. */
  subject: string;
  reason: string;
}

/** A file of a manifest as read now: where it was when signed, where it was read, and what was found. */
export interface VerifiedFile {
  recorded: string;
  read: string;
  /** The path read, relative to the database's folder when the file is under it. */
  shown: string;
  status: 'ok' | 'changed' | 'missing' | 'gone when signed';
}

export interface VerifyOptions {
  /** The database file verified: files signed under its folder are read under its folder now. */
  database?: string;
  /** The public keys signatures are checked with; null or empty: unattested (names typed). */
  keys?: KnownKey[] | null;
  /** A seal statement kept outside the database (`--seal FILE`). */
  seal?: { file: string; text: string };
  /** The config's reconciliation.materiality: what an unsigned rule:materiality acceptance is held to (issue 30). */
  materiality?: MaterialityThresholds;
}

export interface VerifyReport {
  period: string;
  ok: boolean;
  /** False when no keys were given: names were typed, not attested. */
  attested: boolean;
  notice: string | null;
  decisions: number;
  chainHead: { position: number; sha256: string } | null;
  actionEvents: number;
  actionEventHead: { position: number; sha256: string } | null;
  /** Rows carrying a signature (decisions, action events). */
  signedRows: number;
  signoffs: {
    signoffId: string;
    signedBy: string;
    reopened: boolean;
    contentSha256: string;
    sealSha256: string | null;
  }[];
  filesChecked: number;
  files: VerifiedFile[];
  mismatches: VerifyMismatch[];
  /** The approval policies the period's approvals recorded (issue 34 item 4), most used first. */
  policies: PolicyUsed[];
}

type SignoffRow = {
  signoff_id: string;
  signed_by: string;
  content_sha256: string;
  manifest: string;
  reopened: boolean;
  seal: string | null;
  seal_signature: string | null;
  signer_key_sha256: string | null;
  signature: string | null;
  reopen_signature: string | null;
  reopen_signer_key_sha256: string | null;
  reopened_by: string | null;
};

export async function verifyPeriod(
  warehouse: Warehouse,
  period: string,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const keys = options.keys && options.keys.length > 0 ? options.keys : null;
  return recordRun(warehouse, 'verify', { period, attested: keys !== null }, async (run) => {
    const mismatches: VerifyMismatch[] = [];
    // A signed period's rule acceptances are held to the thresholds its seal covers (the manifest), as the audit
    // pack's verify.mjs holds them; an open period's to the config's.
    const sealed = await sealedMateriality(warehouse, period);
    const materiality = sealed ?? options.materiality ?? {};
    const decisions = await walkDecisionChain(warehouse, period, keys, mismatches, materiality);
    checkSuperseded(decisions.rows, mismatches, period);
    const events = await walkActionEventChain(warehouse, period, keys, mismatches);
    const signoffs = await warehouse.all<SignoffRow>(
      `SELECT signoff_id, signed_by, content_sha256, manifest, reopened_at IS NOT NULL AS reopened, seal,
              seal_signature,
              signer_key_sha256, signature, reopen_signature, reopen_signer_key_sha256, reopened_by
       FROM period_signoffs WHERE period = $1 ORDER BY signed_at, signoff_id`,
      [period],
    );
    await nothingToVerify(warehouse, period, decisions.rows.length + events.rows.length + signoffs.length);
    const files = new Map<string, VerifiedFile>();
    for (const signoff of signoffs) {
      const subject = `sign-off ${signoff.signoff_id} (by ${signoff.signed_by})`;
      const signed = signoff.content_sha256;
      if (!(await signedContentMatches(warehouse, signoff.signoff_id, signed))) {
        mismatches.push({
          kind: 'signoff',
          subject,
          reason: `its signed rows (recon_exceptions_signed) no longer hash to its content_sha256 ${signed}`,
        });
      }
      const manifest = JSON.parse(signoff.manifest) as Manifest;
      checkChainHead(manifest, signoff, decisions, mismatches);
      checkSeal(signoff, period, decisions, events, keys, mismatches);
      if (keys !== null) await checkSignoffSignatures(warehouse, signoff, keys, mismatches);
      await checkFiles(manifest, signoff.signoff_id, options.database, files, mismatches);
    }
    if (options.seal) checkKeptSeal(options.seal, period, signoffs, mismatches);
    const report: VerifyReport = {
      period,
      ok: mismatches.length === 0,
      attested: keys !== null,
      notice: keys === null ? unattestedNotice : null,
      decisions: decisions.rows.length,
      chainHead: decisions.head,
      actionEvents: events.rows.length,
      actionEventHead: events.head,
      signedRows: decisions.signed + events.signed,
      signoffs: signoffs.map((s) => ({
        signoffId: s.signoff_id,
        signedBy: s.signed_by,
        reopened: s.reopened,
        contentSha256: s.content_sha256,
        sealSha256: s.seal === null ? null : sealSha256(s.seal),
      })),
      filesChecked: files.size,
      files: [...files.values()],
      mismatches,
      policies: await policiesUsed(warehouse, period),
    };
    run.details = {
      ok: report.ok,
      attested: report.attested,
      decisions: report.decisions,
      actionEvents: report.actionEvents,
      signoffs: signoffs.length,
      filesChecked: report.filesChecked,
      mismatches: mismatches.slice(0, 20),
    };
    return report;
  });
}

/** A period never reconciled, with no decision, action or sign-off: exit 1, never "verified" (issue 28). */
async function nothingToVerify(warehouse: Warehouse, period: string, recorded: number): Promise<void> {
  if (recorded > 0) return;
  const runs = await warehouse.one<{ n: string }>(`SELECT count(*)::VARCHAR AS n FROM recon_runs WHERE period = $1`, [
    period,
  ]);
  if (Number(runs?.n ?? 0) > 0) return;
  throw new JobError(
    `Nothing to verify for ${period}: it was never reconciled, and it has no decision, action or sign-off.`,
    `Check the period; reconcile it first: pinrecon reconcile --period ${period}`,
  );
}

/** superseded_at is left out of the hash (it is filled later): it must be the finding's next decision's decided_at. */
function checkSuperseded(rows: DecisionRow[], mismatches: VerifyMismatch[], period: string): void {
  const next = new Map<string, string>();
  for (let index = rows.length - 1; index >= 0; index--) {
    const row = rows[index]!;
    const expected = next.get(row.finding_id) ?? null;
    if (row.superseded_at !== expected) {
      mismatches.push({
        kind: 'decision',
        subject:
          `recon_decisions row ${row.chain_position ?? `#${index + 1}`} of ${period}: ` +
          `finding ${row.finding_id}, ${row.decision} by ${row.decided_by}`,
        reason:
          expected === null
            ? `superseded_at is ${row.superseded_at}, but no later decision of the finding exists`
            : `superseded_at is ${row.superseded_at ?? 'empty'}, ` +
              `the next decision of the finding was recorded at ${expected}`,
      });
    }
    next.set(row.finding_id, row.decided_at);
  }
}

/** The manifest's chain head must still be in the chain; while the sign-off is active, nothing may follow it. */
function checkChainHead(
  manifest: Manifest,
  signoff: SignoffRow,
  chain: ChainFacts<DecisionRow>,
  mismatches: VerifyMismatch[],
): void {
  const signed = manifest.decisionChainHead;
  if (!signed) return; // a sign-off from before the chain
  const subject = `sign-off ${signoff.signoff_id} (by ${signoff.signed_by})`;
  if (signed.position > 0) {
    const row = chain.rows.find((r) => Number(r.chain_position) === signed.position);
    if (!row || row.row_sha256 !== signed.sha256) {
      const reason =
        `its manifest's decision chain head (position ${signed.position}, ${signed.sha256}) ` +
        'is no longer in the chain';
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

/**
 * The seal must state the sign-off row as it stands (period, id, signer, time, content hash, manifest's sha256),
 * its chain heads must still be in both chains, and its signature must verify with a known key.
 */
function checkSeal(
  signoff: SignoffRow,
  period: string,
  decisions: ChainFacts<DecisionRow>,
  events: ChainFacts<{ chain_position: string | null; row_sha256: string | null }>,
  keys: KnownKey[] | null,
  mismatches: VerifyMismatch[],
): void {
  const subject = `seal of sign-off ${signoff.signoff_id} (by ${signoff.signed_by})`;
  const fail = (reason: string) => mismatches.push({ kind: 'seal', subject, reason });
  if (signoff.seal === null) {
    // A manifest without databaseDir was written before seals existed (issue 28): nothing to check.
    const sealedVersion = (JSON.parse(signoff.manifest) as Manifest).databaseDir !== undefined;
    if (sealedVersion || keys !== null) fail('the sign-off has no seal: its seal was removed');
    return;
  }
  let seal: SealStatement;
  try {
    seal = parseSeal(signoff.seal);
  } catch (error) {
    fail(`period_signoffs.seal cannot be read: ${(error as Error).message}`);
    return;
  }
  const stated: [string, string, string][] = [
    ['period', seal.period, period],
    ['signoff_id', seal.signoff_id, signoff.signoff_id],
    ['signed_by', seal.signed_by, signoff.signed_by],
    ['content_sha256', seal.content_sha256, signoff.content_sha256],
    ['manifest_sha256', seal.manifest_sha256, sealSha256(signoff.manifest)],
  ];
  for (const [field, sealed, now] of stated)
    if (sealed !== now) fail(`it states ${field} ${sealed}, the sign-off row now holds ${now}`);
  if (sealText(seal) !== signoff.seal) fail('its bytes are not in the canonical form: it was written outside pinrecon');
  const inChain = (head: SealStatement['decision_chain_head'], rows: typeof events.rows) =>
    head.position === 0 || rows.some((r) => Number(r.chain_position) === head.position && r.row_sha256 === head.sha256);
  if (!inChain(seal.decision_chain_head, decisions.rows))
    fail(`its decision chain head (position ${seal.decision_chain_head.position}) is no longer in the chain`);
  if (!inChain(seal.action_event_chain_head, events.rows))
    fail(`its action event chain head (position ${seal.action_event_chain_head.position}) is no longer in the chain`);
  if (signoff.seal_signature === null) {
    if (keys !== null) fail('it is not signed: people are configured, so its signature was removed or never made');
    return;
  }
  if (keys === null) return;
  const key = keys.find((k) => k.fingerprint === signoff.signer_key_sha256);
  if (!key)
    fail(`it is signed by a key that is not registered (fingerprint ${signoff.signer_key_sha256 ?? 'missing'})`);
  else if (!verifyCanonical(key.publicKeyPem, signoff.seal, signoff.seal_signature))
    fail(`its signature does not verify with the key of ${key.name ?? key.fingerprint}: the seal was rewritten`);
  else if (key.name !== null && !sameName(key.name, seal.signed_by))
    fail(`it names ${seal.signed_by} as the signer, but it is signed with the key of ${key.name}`);
}

/** The sign-off row's signature and, when reopened, the reopen's (pipelines/close/attest.ts's canonical forms). */
async function checkSignoffSignatures(
  warehouse: Warehouse,
  signoff: SignoffRow,
  keys: KnownKey[],
  mismatches: VerifyMismatch[],
): Promise<void> {
  const subject = `sign-off ${signoff.signoff_id} (by ${signoff.signed_by})`;
  const check = (what: string, canonical: string, signature: string | null, fingerprint: string | null, by: string) => {
    const fail = (reason: string) => mismatches.push({ kind: 'signoff', subject, reason: `${what}: ${reason}` });
    if (signature === null) return fail('it is not signed: people are configured, so its signature was removed');
    const key = keys.find((k) => k.fingerprint === fingerprint);
    if (!key) return fail(`signed by a key that is not registered (fingerprint ${fingerprint ?? 'missing'})`);
    if (!verifyCanonical(key.publicKeyPem, canonical, signature))
      return fail('its signature does not match the row: it was changed after it was signed');
    if (key.name !== null && !sameName(key.name, by))
      fail(`it names ${by}, but it is signed with the key of ${key.name}`);
  };
  const row = await signoffCanonical(warehouse, signoff.signoff_id);
  check('the sign-off row', row, signoff.signature, signoff.signer_key_sha256, signoff.signed_by);
  if (signoff.reopened) {
    const reopen = await reopenCanonical(warehouse, signoff.signoff_id);
    check('its reopen', reopen, signoff.reopen_signature, signoff.reopen_signer_key_sha256, signoff.reopened_by ?? '');
  }
}

/** `--seal FILE`: the sign-off it states must still be in the database, its seal byte for byte the same. */
function checkKeptSeal(
  kept: { file: string; text: string },
  period: string,
  signoffs: SignoffRow[],
  mismatches: VerifyMismatch[],
): void {
  const subject = `the seal in ${kept.file}`;
  let seal: SealStatement;
  try {
    seal = parseSeal(kept.text.trim());
  } catch (error) {
    mismatches.push({ kind: 'seal', subject, reason: `it cannot be read: ${(error as Error).message}` });
    return;
  }
  const row = signoffs.find((s) => s.signoff_id === seal.signoff_id);
  if (seal.period !== period) {
    mismatches.push({ kind: 'seal', subject, reason: `it seals ${seal.period}, not ${period}` });
  } else if (!row) {
    mismatches.push({
      kind: 'seal',
      subject,
      reason:
        `sign-off ${seal.signoff_id} (by ${seal.signed_by}) it seals is no longer in period_signoffs: ` +
        'it was deleted',
    });
  } else if (row.seal !== kept.text.trim()) {
    mismatches.push({
      kind: 'seal',
      subject,
      reason:
        `sign-off ${seal.signoff_id} in the database holds another seal ` +
        `(sha256 ${row.seal ? sealSha256(row.seal) : 'none'}, kept ${sealSha256(kept.text.trim())}): it was rewritten`,
    });
  }
}

/** Reads every file of a manifest (once per path), under the database's folder now when it was under it then. */
async function checkFiles(
  manifest: Manifest,
  signoffId: string,
  database: string | undefined,
  files: Map<string, VerifiedFile>,
  mismatches: VerifyMismatch[],
): Promise<void> {
  const nowDir = database ? path.dirname(path.resolve(database)) : undefined;
  for (const file of [...manifest.landingFiles, ...manifest.ledgerFiles]) {
    const relative = manifest.databaseDir ? path.relative(manifest.databaseDir, file.path) : null;
    const under = relative !== null && !relative.startsWith('..') && !path.isAbsolute(relative);
    const read = under && nowDir ? path.join(nowDir, relative) : file.path;
    const shown = under ? relative : file.path;
    if (file.sha256 === null) {
      if (!files.has(read)) files.set(read, { recorded: file.path, read, shown, status: 'gone when signed' });
      continue;
    }
    const seen = files.get(read);
    const now = seen?.status === 'missing' ? null : await fileSha256(read);
    const status = now === null ? 'missing' : now === file.sha256 ? 'ok' : 'changed';
    if (!seen || seen.status === 'ok') files.set(read, { recorded: file.path, read, shown, status });
    if (status === 'ok') continue;
    mismatches.push({
      kind: 'file',
      subject: read,
      reason:
        status === 'missing'
          ? `it is missing (sign-off ${signoffId} recorded sha256 ${file.sha256}` +
            `${read !== file.path ? ` for ${file.path}` : ''})`
          : `its sha256 is ${now}, sign-off ${signoffId} recorded ${file.sha256}`,
    });
  }
}
