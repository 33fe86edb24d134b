/**
 * `pinrecon audit-pack --period P --out FILE.zip` (issue 28): what an auditor needs to check a signed period
 * without pinrecon or its database — the seal and its signature, the public keys of everyone who signed, the
 * decision and action-event chains, the actions, the findings as signed, the approval policies the approvals were
 * made under (issue 34 item 4), the manifest, a README and verify.mjs
 * (pipelines/close/audit-verify.mjs, whose CSV writer and README this module uses, so the two always agree).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import JSZip from 'jszip';
import { chainedActionEventColumns } from '../../core/action-event-chain.js';
import { chainedDecisionColumns } from '../../core/decision-chain.js';
import { JobError } from '../../core/errors.js';
import { packageRoot } from '../../core/paths.js';
import { recordRun } from '../../core/run-trace.js';
import { sqlIdentifier, sqlString } from '../../core/sql.js';
import type { Warehouse } from '../../core/warehouse.js';
import { policiesUsed, type PolicyUsed } from '../people/policy.js';
import { signedColumns, signedTableColumns } from './close.js';
import { parseSeal, sealSha256 } from './seal.js';
import type { KnownKey } from './verify-chains.js';

type Row = Record<string, string | null>;

/** What audit-verify.mjs exports for the pack's writer. */
interface PackVerifier {
  members: string[];
  decisionColumns: string[];
  eventColumns: string[];
  actionColumns: string[];
  findingColumns: string[];
  csvText(header: string[], rows: (string | null)[][]): string;
  policiesText(policies: { policy_sha256: string; approvals: number; policy: unknown }[]): string;
  actionChecksum(row: Row): string;
  pemWithLabels(keys: { name: string; fingerprint: string; publicKeyPem: string }[]): string;
  readmeText(facts: {
    seal: unknown;
    sealSha256: string;
    keys: { name: string; fingerprint: string }[];
    verifySha256: string;
    version: string;
  }): string;
  sha256(data: string | Buffer): string;
}

/** The standalone verifier shipped in the pack (package.json "files" lists it). */
export function auditVerifierPath(): string {
  return path.join(packageRoot(), 'pipelines', 'close', 'audit-verify.mjs');
}

export interface AuditPackSummary {
  period: string;
  file: string;
  signoffId: string;
  sealSha256: string;
  /** Whether the seal is signed (people configured when closed); an unattested pack's verify.mjs exits 1. */
  attested: boolean;
  members: { name: string; bytes: number }[];
  keys: { name: string; fingerprint: string }[];
  /** The approval policies the period's approvals recorded (approval-policies.json), most used first. */
  policies: PolicyUsed[];
}

export async function writeAuditPack(
  warehouse: Warehouse,
  options: { period: string; out: string; keys: KnownKey[] },
): Promise<AuditPackSummary> {
  const { period } = options;
  return recordRun(warehouse, 'audit-pack', { period, out: options.out }, async (run) => {
    const verifier = (await import(pathToFileURL(auditVerifierPath()).href)) as PackVerifier;
    const signoff = await warehouse.one<Row>(
      `SELECT signoff_id, seal, seal_signature, manifest, content_sha256, signer_key_sha256,
              reopen_signer_key_sha256 FROM period_signoffs WHERE period = $1
       ORDER BY reopened_at IS NULL DESC, signed_at DESC LIMIT 1`,
      [period],
    );
    if (!signoff)
      throw new JobError(
        `The period ${period} was never signed off, so there is no seal to pack.`,
        `Sign it off first: pinrecon close --period ${period}`,
      );
    if (!signoff.seal)
      throw new JobError(
        `Sign-off ${signoff.signoff_id} of ${period} has no seal (it was signed before seals existed).`,
        `Reopen and close the period again to seal it: pinrecon reopen --period ${period} …, then pinrecon close`,
      );
    const seal = parseSeal(signoff.seal);
    const decisions = await warehouse.all<Row>(
      `SELECT ${chainedDecisionColumns}, signature, signer_key_sha256 FROM recon_decisions WHERE period = $1
       ORDER BY chain_position NULLS LAST, rowid`,
      [period],
    );
    const events = await warehouse.all<Row>(
      `SELECT ${chainedActionEventColumns} FROM recon_action_events WHERE period = $1
       ORDER BY chain_position NULLS LAST, rowid`,
      [period],
    );
    const actions = (
      await warehouse.all<Row>(
        `SELECT action_id, period, finding_id, kind, transaction_id::VARCHAR AS transaction_id, partner_reference,
                amount::VARCHAR AS amount, currency_code, status, decision, decided_by, decision_sha256, proposed_by,
                approved_by
         FROM recon_actions WHERE period = $1 ORDER BY action_id`,
        [period],
      )
    ).map((a) => ({ ...a, row_sha256: verifier.actionChecksum(a) }));
    const findings = await signedFindings(warehouse, signoff.signoff_id!, signoff.content_sha256!, verifier);
    const reopen = { signer_key_sha256: signoff.reopen_signer_key_sha256 ?? null };
    const policies = await policiesUsed(warehouse, period);
    const keys = signersOf([...decisions, ...events, signoff, reopen], options.keys, period);

    const csv = (columns: string[], rows: Row[]) =>
      verifier.csvText(
        columns,
        rows.map((r) => columns.map((c) => (r[c] === undefined || r[c] === null ? null : String(r[c])))),
      );
    const verifySource = readFileSync(auditVerifierPath());
    const manifest = JSON.parse(signoff.manifest!) as { pinreconVersion: string };
    const files: [string, string | Buffer][] = [
      ['seal.json', signoff.seal],
      ['seal.sig', signoff.seal_signature ? `${signoff.seal_signature}\n` : ''],
      ['public-keys.pem', verifier.pemWithLabels(keys)],
      ['decisions.csv', csv(verifier.decisionColumns, decisions)],
      ['actions.csv', csv(verifier.actionColumns, actions)],
      ['action-events.csv', csv(verifier.eventColumns, events)],
      ['findings.csv', csv(verifier.findingColumns, findings)],
      [
        'approval-policies.json',
        verifier.policiesText(
          policies.map((p) => ({
            policy_sha256: p.policySha256,
            approvals: p.approvals,
            policy: p.policy === null ? null : JSON.parse(p.policy),
          })),
        ),
      ],
      ['manifest.json', signoff.manifest!],
      [
        'README.txt',
        verifier.readmeText({
          seal,
          sealSha256: sealSha256(signoff.seal),
          keys,
          verifySha256: verifier.sha256(verifySource),
          version: manifest.pinreconVersion,
        }),
      ],
      ['verify.mjs', verifySource],
    ];
    const zip = new JSZip();
    const date = new Date();
    for (const [name, data] of files) zip.file(name, data, { date, createFolders: false });
    const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', platform: 'UNIX' });
    mkdirSync(path.dirname(path.resolve(options.out)), { recursive: true });
    const temporary = `${options.out}.tmp-${process.pid}`;
    try {
      writeFileSync(temporary, bytes, { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, options.out);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    run.details = {
      file: options.out,
      signoffId: signoff.signoff_id,
      decisions: decisions.length,
      events: events.length,
    };
    return {
      period,
      file: options.out,
      signoffId: signoff.signoff_id!,
      sealSha256: sealSha256(signoff.seal),
      attested: signoff.seal_signature !== null,
      members: files.map(([name, data]) => ({ name, bytes: Buffer.byteLength(data) })),
      keys: keys.map((k) => ({ name: k.name, fingerprint: k.fingerprint })),
      policies,
    };
  });
}

/**
 * The sign-off's rows as signed: each as the JSON line its content hash was computed over (timestamps in UTC),
 * over the columns verify finds the signed hash over (close.ts signedColumns); over all of today's columns when
 * the rows no longer hash to it, so that verify.mjs names the findings as the member that does not hold.
 */
async function signedFindings(
  warehouse: Warehouse,
  signoffId: string,
  contentSha256: string,
  verifier: PackVerifier,
): Promise<Row[]> {
  const columns = (await signedColumns(warehouse, signoffId, contentSha256)) ?? (await signedTableColumns(warehouse));
  const selected = columns.map(sqlIdentifier).join(', ');
  const zone = await warehouse.one<{ zone: string }>(`SELECT current_setting('TimeZone') AS zone`);
  await warehouse.run(`SET TimeZone = 'UTC'`);
  try {
    const lines = await warehouse.all<{ line: string }>(
      `SELECT to_json(r)::VARCHAR AS line
       FROM (SELECT ${selected} FROM recon_exceptions_signed WHERE signoff_id = $1) AS r
       ORDER BY r.finding_id`,
      [signoffId],
    );
    return lines.map(({ line }) => {
      const signed = JSON.parse(line) as Record<string, unknown>;
      const row: Row = { signed_json: line };
      for (const column of verifier.findingColumns.slice(0, -1))
        row[column] = signed[column] === undefined || signed[column] === null ? null : String(signed[column]);
      return row;
    });
  } finally {
    await warehouse.run(`SET TimeZone = ${sqlString(zone!.zone)}`);
  }
}

/** The public key of everyone who signed a row of the period (a key neither configured nor given is an error). */
function signersOf(
  rows: Row[],
  known: KnownKey[],
  period: string,
): { name: string; fingerprint: string; publicKeyPem: string }[] {
  const fingerprints = [...new Set(rows.map((r) => r.signer_key_sha256).filter((f): f is string => Boolean(f)))].sort();
  return fingerprints.map((fingerprint) => {
    const key = known.find((k) => k.fingerprint === fingerprint);
    if (!key)
      throw new JobError(
        `A row of ${period} is signed with the key ${fingerprint}, ` +
          "which neither the config's people nor --public-keys holds.",
        'Pass --public-keys FILE with that key (PEM), so the pack carries it.',
      );
    return { name: key.name ?? `(key ${fingerprint.slice(0, 16)}…)`, fingerprint, publicKeyPem: key.publicKeyPem };
  });
}
