/**
 * Sign-off and restatement (README "The monthly routine"; docs/DATA.md `period_signoffs`). `close` signs a
 * reconciled, complete period off: it copies the period's findings (with their decisions) into
 * `recon_exceptions_signed`, hashes them, and writes a `period_signoffs` row with a manifest of what produced the
 * figures (pinrecon version, the SQL models, every landing and ledger file behind them), attested and signed
 * (attest.ts) and sealed (seal.ts). `reopen` marks the sign-off reopened, never deletes it. Sign-offs are read in
 * signoffs.ts.
 */

import type { Config } from '../../config/schema.js';
import { periodEnd, periodStart } from '../../core/calendar.js';
import { JobError, UsageError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import { sqlIdentifier, sqlString } from '../../core/sql.js';
import type { Warehouse } from '../../core/warehouse.js';
import { activeSignoff, signoffsOf, type Signoff } from './signoffs.js';
import { buildManifest, type Manifest } from './manifest.js';
import { attestationOf, attestReopen, attestSignoff, investigatingFindings } from './attest.js';
import { sha256Hex, type Identity } from '../../core/signatures.js';
import { canonicalTimestamp } from '../../core/decision-chain.js';
import { sealSha256, sealSignoff, type SealSigner } from './seal.js';
import { checkCompleteness, incompleteError } from '../extract/completeness.js';
import { newRunId, recordRun } from '../../core/run-trace.js';

export interface CloseOptions {
  period: string;
  by: string;
  note?: string;
  allowUndecided?: boolean;
  /** Sign off although findings are `investigating`; the sign-off lists them (issue 28 gate). */
  allowOpen?: boolean;
  /** The signer's key (people configured): signs the sign-off row (issue 28, pipelines/close/attest.ts). */
  signer?: Identity | null;
  /** The signer's key (people configured): signs the seal (issue 28). */
  sealSigner?: SealSigner | null;
}

export interface CloseSummary extends Signoff {
  manifest: Manifest;
  /** The seal statement (period_signoffs.seal) and the hex sha256 of its bytes, which the email carries. */
  seal: string;
  sealSha256: string;
}

export interface ReopenOptions {
  period: string;
  by: string;
  reason: string;
  /** The key of the person reopening (people configured): signs the reopen (issue 28). */
  signer?: Identity | null;
}

/** Reconcile's input `signed_recon_exceptions`: the rows of the active sign-off (none when unsigned). */
export async function createSignedInput(
  warehouse: Warehouse,
  database: string,
  signoffId: string | null,
): Promise<void> {
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE signed_recon_exceptions AS
     SELECT * FROM ${sqlIdentifier(database)}.main.recon_exceptions_signed WHERE signoff_id = $1`,
    [signoffId],
  );
}

/**
 * sha256 of a sign-off's rows as signed (every column but signoff_id, as JSON lines in finding order).
 * Timestamps are written in UTC, so any session (any configured time zone) gets the same hash.
 */
export async function signedContentSha256(
  warehouse: Warehouse,
  signoffId: string,
  columns?: string[],
): Promise<string> {
  const zone = await warehouse.one<{ zone: string }>(`SELECT current_setting('TimeZone') AS zone`);
  await warehouse.run(`SET TimeZone = 'UTC'`);
  try {
    const selected = columns ? columns.map(sqlIdentifier).join(', ') : '* EXCLUDE (signoff_id)';
    const row = await warehouse.one<{ sha: string }>(
      `SELECT sha256(coalesce(string_agg(to_json(r)::VARCHAR, chr(10) ORDER BY r.finding_id), '')) AS sha
       FROM (SELECT ${selected} FROM recon_exceptions_signed WHERE signoff_id = $1) AS r`,
      [signoffId],
    );
    return row!.sha;
  } finally {
    await warehouse.run(`SET TimeZone = ${sqlString(zone!.zone)}`);
  }
}

/**
 * The columns a sign-off's rows still hash to `expected` over, or null when none do. Columns that recon_exceptions
 * gained after the sign-off were added to recon_exceptions_signed at the end, empty for its rows; so the rows as
 * signed are hashed over a prefix of today's columns: every prefix whose left-out columns are empty for this
 * sign-off is tried (verify checks the rows by it; the audit pack writes them over it).
 */
export async function signedColumns(
  warehouse: Warehouse,
  signoffId: string,
  expected: string,
): Promise<string[] | null> {
  const columns = await signedTableColumns(warehouse);
  for (let count = columns.length; count > 0; count--) {
    const prefix = columns.slice(0, count);
    if ((await signedContentSha256(warehouse, signoffId, prefix)) === expected) return prefix;
    const dropped = columns[count - 1]!;
    const filled = await warehouse.one<{ n: string }>(
      `SELECT count(${sqlIdentifier(dropped)})::VARCHAR AS n FROM recon_exceptions_signed WHERE signoff_id = $1`,
      [signoffId],
    );
    if (Number(filled?.n ?? 0) > 0) return null;
  }
  return null;
}

/** Today's columns of recon_exceptions_signed but signoff_id, in table order. */
export async function signedTableColumns(warehouse: Warehouse): Promise<string[]> {
  const rows = await warehouse.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'recon_exceptions_signed'
       AND column_name <> 'signoff_id' ORDER BY column_index`,
  );
  return rows.map((c) => c.column_name);
}

/** Whether a sign-off's rows still hash to `expected` (signedColumns). */
export async function signedContentMatches(
  warehouse: Warehouse,
  signoffId: string,
  expected: string,
): Promise<boolean> {
  return (await signedColumns(warehouse, signoffId, expected)) !== null;
}

export async function closePeriod(
  warehouse: Warehouse,
  config: Config,
  options: CloseOptions,
  output: Output,
): Promise<CloseSummary> {
  const { period } = options;
  const by = options.by.trim();
  if (by === '') throw new UsageError('--by must name who signs the period off.');
  return recordRun(
    warehouse,
    'close',
    { period, by, note: options.note ?? null, allowUndecided: Boolean(options.allowUndecided) },
    async (run) => {
      const active = await activeSignoff(warehouse, period, config.timezone);
      if (active) {
        throw new JobError(
          `The period ${period} is already signed off by ${active.signedBy} at ${active.signedAtZoned} (sign-off ` +
            `${active.signoffId}).`,
          `To sign it again, reopen it first: pinrecon reopen --period ${period} --by NAME --reason TEXT`,
        );
      }
      const completeness = await checkCompleteness(warehouse, config, period);
      if (!completeness.complete) throw incompleteError(completeness, 'it cannot be signed off');
      const reconciled = await latestReconciliation(warehouse, period);
      const undecided = await undecidedFindings(warehouse, period);
      if (undecided > 0 && !options.allowUndecided) {
        throw new JobError(
          `The period ${period} has ${undecided} of ${reconciled.findings} findings without a decision, so it is not ` +
            `signed off.`,
          `Decide them (in the workbook, then pinrecon findings import; or pinrecon findings decide), ` +
            `list them with pinrecon findings list --period ${period} --undecided, ` +
            `or pass --allow-undecided to sign off with them open.`,
        );
      }
      // Issue 28: `investigating` is not decided; signed only with --allow-open, and then listed in the sign-off.
      const investigating = await investigatingFindings(warehouse, period);
      if (investigating.length > 0 && !options.allowOpen) {
        throw new JobError(
          `The period ${period} has ${investigating.length} finding(s) still investigating, so it is not signed off.`,
          `Decide them, or pass --allow-open to sign off with them open (the sign-off lists them). ` +
            `See them: pinrecon findings list --period ${period}`,
        );
      }
      const openFindings = investigating.length > 0 ? JSON.stringify(investigating) : null;
      const manifest = await buildManifest(warehouse, config, period, reconciled.runId);
      const signoffId = newRunId();
      const { sha: contentSha256, seal } = await warehouse.transaction(async () => {
        await addMissingSignedColumns(warehouse);
        await warehouse.run(
          `INSERT INTO recon_exceptions_signed BY NAME SELECT $1::VARCHAR AS signoff_id, * FROM recon_exceptions ` +
            `WHERE period = $2`,
          [signoffId, period],
        );
        const sha = await signedContentSha256(warehouse, signoffId);
        // Issue 28: the row is signed over its canonical form (pipelines/close/attest.ts), with its time fixed here.
        const signedAt = canonicalTimestamp(new Date());
        const manifestText = JSON.stringify(manifest);
        const { findings } = reconciled;
        const row = { signoffId, period, signedBy: by, signedAt, note: options.note ?? null, runId: reconciled.runId };
        const canonical = { ...row, asOf: reconciled.asOf, findings, undecided, contentSha256: sha, openFindings };
        const signed = attestSignoff({ ...canonical, manifestSha256: sha256Hex(manifestText) }, options.signer);
        await warehouse.run(
          `INSERT INTO period_signoffs (signoff_id, period, signed_by, signed_at, note, run_id, as_of, findings,
             undecided, content_sha256, manifest, open_findings, attestation, signature, signer_key_sha256)
         VALUES ($1, $2, $3, $14::TIMESTAMPTZ, $4, $5, $6::DATE, $7, $8, $9, $10, $11, $12, $13, $15)`,
          [
            signoffId,
            period,
            by,
            options.note ?? null,
            reconciled.runId,
            reconciled.asOf,
            reconciled.findings,
            undecided,
            sha,
            manifestText,
            openFindings,
            signed.attestation,
            signed.signature,
            signedAt,
            signed.signerKeySha256,
          ],
        );
        // Issue 28: sealed in the same transaction, over the row just written and the chains' heads now.
        return { sha, seal: await sealSignoff(warehouse, signoffId, options.sealSigner ?? options.signer) };
      });
      const signoff = (await activeSignoff(warehouse, period, config.timezone))!;
      run.counters.rowsLoaded = reconciled.findings;
      run.details = { signoffId, contentSha256, findings: reconciled.findings, undecided };
      output.info(
        `signed off ${period}: ${reconciled.findings} findings (${undecided} undecided), content sha256 ` +
          `${contentSha256}`,
      );
      output.info(attestationOf(by, options.signer));
      if (investigating.length > 0) {
        output.info(`signed off with ${investigating.length} finding(s) investigating: ${investigating.join(', ')}`);
      }
      return { ...signoff, manifest, seal, sealSha256: sealSha256(seal) };
    },
  );
}

export async function reopenPeriod(
  warehouse: Warehouse,
  config: Config,
  options: ReopenOptions,
  output: Output,
): Promise<Signoff> {
  const { period } = options;
  const by = options.by.trim();
  const reason = options.reason.trim();
  if (by === '') throw new UsageError('--by must name who reopens the period.');
  if (reason === '') throw new UsageError('--reason must say why the period is reopened.');
  return recordRun(warehouse, 'reopen', { period, by, reason }, async () => {
    const active = await activeSignoff(warehouse, period, config.timezone);
    if (!active)
      throw new JobError(
        `The period ${period} is not signed off, so there is nothing to reopen.`,
        `See its sign-offs: pinrecon query "SELECT * FROM period_signoffs WHERE period = '${period}'"`,
      );
    await warehouse.run(
      `UPDATE period_signoffs SET reopened_at = now(), reopened_by = $1, reopen_reason = $2 WHERE signoff_id = $3`,
      [by, reason, active.signoffId],
    );
    await attestReopen(warehouse, active.signoffId, options.signer);
    output.info(
      `reopened ${period}: the sign-off of ${active.signedBy} at ${active.signedAtZoned} stays in period_signoffs`,
    );
    return (await signoffsOf(warehouse, period, config.timezone)).find((s) => s.signoffId === active.signoffId)!;
  });
}

/** The period's latest reconciliation, which must be complete and newer than the extraction it rests on. */
async function latestReconciliation(
  warehouse: Warehouse,
  period: string,
): Promise<{ runId: string; asOf: string; findings: number }> {
  const latest = await warehouse.one<{ run_id: string; as_of: string; built_at_ms: string }>(
    `SELECT run_id, strftime(as_of, '%Y-%m-%d') AS as_of, epoch_ms(built_at)::VARCHAR AS built_at_ms FROM recon_runs ` +
      `WHERE period = $1 ORDER BY built_at DESC LIMIT 1`,
    [period],
  );
  const reconcileHint = `Run pinrecon reconcile --period ${period} first.`;
  if (!latest)
    throw new JobError(`The period ${period} has not been reconciled, so there is nothing to sign off.`, reconcileHint);
  const verdict = await warehouse.one<{ verdict: string | null }>(
    `SELECT any_value(verdict) AS verdict FROM recon_summary WHERE period = $1`,
    [period],
  );
  if (verdict && verdict.verdict !== null && verdict.verdict === 'incomplete') {
    throw new JobError(
      `The period ${period} was last reconciled while incomplete (--allow-incomplete), so its figures cannot be ` +
        `signed off.`,
      reconcileHint,
    );
  }
  const extracted = await warehouse.one<{ ms: string | null }>(
    `SELECT epoch_ms(max(completed_at))::VARCHAR AS ms FROM extract_windows WHERE window_start <= $2::DATE AND ` +
      `window_end >= $1::DATE`,
    [periodStart(period), periodEnd(period)],
  );
  if (extracted?.ms && Number(extracted.ms) > Number(latest.built_at_ms)) {
    throw new JobError(
      `Sales of ${period} were extracted after its latest reconciliation (run ${latest.run_id}), so its findings are ` +
        `out of date.`,
      reconcileHint,
    );
  }
  const findings = await warehouse.one<{ n: string }>('SELECT count(*) AS n FROM recon_exceptions WHERE period = $1', [
    period,
  ]);
  return { runId: latest.run_id, asOf: latest.as_of, findings: Number(findings?.n ?? 0) };
}

/** Findings without a decision: `decision IS NULL` once recon_exceptions has decisions, else every finding. */
async function undecidedFindings(warehouse: Warehouse, period: string): Promise<number> {
  const hasDecision = await warehouse.one<{ n: string }>(
    `SELECT count(*) AS n FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'recon_exceptions' AND ` +
      `column_name = 'decision'`,
  );
  const where = Number(hasDecision?.n ?? 0) > 0 ? 'AND decision IS NULL' : '';
  const row = await warehouse.one<{ n: string }>(
    `SELECT count(*) AS n FROM recon_exceptions WHERE period = $1 ${where}`,
    [period],
  );
  return Number(row?.n ?? 0);
}

/** recon_exceptions_signed keeps every column recon_exceptions has (decisions, when they arrive). */
async function addMissingSignedColumns(warehouse: Warehouse): Promise<void> {
  const missing = await warehouse.all<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM duckdb_columns() c
     WHERE schema_name = 'main' AND table_name = 'recon_exceptions'
       AND column_name NOT IN (SELECT column_name FROM duckdb_columns()
                               WHERE schema_name = 'main' AND table_name = 'recon_exceptions_signed')
     ORDER BY column_index`,
  );
  for (const column of missing) {
    await warehouse.run(
      `ALTER TABLE recon_exceptions_signed ADD COLUMN ${sqlIdentifier(column.column_name)} ${column.data_type}`,
    );
  }
}
