/**
 * Decisions on findings: `findings import` (typed into a workbook) and `findings decide` (by id, or in bulk by
 * period and filters); `list` and `history` are in findings-list.ts, checking and recording rows in
 * decision-recording.ts. A decision is recorded only when it differs from the current one, in one transaction;
 * nothing is recorded in a signed-off period; stale workbook rows are refused unless `--overwrite`
 * (docs/ARCHITECTURE.md, "Design notes by module").
 */
import { findingExposureSql } from '../../reports/finding-amount.js';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { JobError, UsageError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import { readDecisionsWorkbook } from '../../reports/decisions-reader.js';
import type { Candidate } from './check.js';
import {
  checkAndRecord,
  emptyResult,
  refuseSignedPeriods,
  type DecisionsResult,
  type SelectedTotals,
} from './recording.js';
import { currentFindings, onlyPeriod, writtenDecisions, type CurrentFinding } from './state.js';
import { recordRun } from '../../core/run-trace.js';
import { describeMatchImport, importMatchDecisions, type MatchImportResult } from './match-import.js';
import { todayIn } from '../../core/calendar.js';
import { defaultActorName, typedActor, type Actor } from '../people/actor.js';

/** The OS user name, for `--by` left out (unattested mode; pipelines/people/actor.ts). */
export const defaultDecidedBy = defaultActorName;

export interface ImportOptions {
  /** YYYY-MM-DD: today for the gates (default: today in the configured zone). */
  today?: string;
  by?: string;
  /** Who acts (pipelines/people/actor.ts); default: `by` typed, unattested. */
  actor?: Actor;
  /** Record rows edited over a decision taken after the workbook was written (else refused). */
  overwrite?: boolean;
  /** The configured zone, for the times in messages. */
  timezone?: string;
}

/** What `findings import` did: the finding sheets' rows, and next to them the Suggested matches rows (issue 29). */
export interface ImportResult extends DecisionsResult {
  matches: MatchImportResult;
}

/** `findings import WORKBOOK`: records the decisions typed into a workbook that differ from the current ones. */
export async function importDecisions(
  warehouse: Warehouse,
  file: string,
  options: ImportOptions,
  output: Output,
): Promise<ImportResult> {
  if (!existsSync(file))
    throw new UsageError(`${file}: no such file (give the path of a pinrecon workbook saved as .xlsx).`);
  const actor = options.actor ?? typedActor(options.by);
  const by = actor.name;
  const timezone = options.timezone ?? 'UTC';
  const today = options.today ?? todayIn(timezone);
  const args = { file, by, attested: actor.attested, overwrite: Boolean(options.overwrite) };
  return recordRun(warehouse, 'findings import', args, async (run) => {
    const sha256 = await fileSha256(file);
    const source = `workbook:${path.basename(file)}#${sha256}`;
    output.info(`reading decisions from ${file}`);
    const workbook = await readDecisionsWorkbook(file);
    if (workbook.sheets.length === 0) {
      throw new JobError(
        `${file} has no sheet with a "Finding ID" and a "Decision" column in its first rows.`,
        'Import a workbook written by `pinrecon report` (its finding sheets carry those columns), with the header ' +
          'row kept.',
      );
    }
    output.info(
      `found decision columns on ${workbook.sheets.map((s) => `${s.name} (header on row ${s.headerRow})`).join(', ')}`,
    );
    const ids = workbook.rows.map((r) => r.findingId).filter((id): id is string => id !== null);
    const current = await currentFindings(warehouse, ids, workbook.period, timezone);
    const period = workbook.period ?? onlyPeriod(current);
    if (period === null && workbook.rows.some((r) => r.findingId !== null && current.has(r.findingId))) {
      throw new JobError(
        `${file}: cannot tell which period the workbook is of (its Summary sheet with the "Period" line is gone, and ` +
          `its findings belong to several periods).`,
        'Import the workbook as `pinrecon report` wrote it (keep its Summary sheet), or copy the decisions into that ' +
          'workbook.',
      );
    }
    const periods = period !== null ? [period] : [...new Set([...current.values()].map((f) => f.period))];
    await refuseSignedPeriods(warehouse, periods, timezone, 'findings import');
    const refs = workbook.rows
      .map((r) => r.decisionRef)
      .filter((ref): ref is string => typeof ref === 'string' && ref !== '');
    const written = await writtenDecisions(warehouse, refs);
    const context = { period, overwrite: Boolean(options.overwrite), written, today };
    const recording = { by, source, runId: run.runId, signer: actor.signer };
    const result = await checkAndRecord(warehouse, workbook.rows, current, context, recording);
    // The Suggested matches sheet's confirmations and rejections (issue 29): the same actor, source and chain.
    const matchContext = { by, source, timezone, signer: actor.signer, overwrite: Boolean(options.overwrite) };
    const matches = await importMatchDecisions(warehouse, workbook.matches, matchContext);
    output.info(describeMatchImport(matches));
    run.counters.rowsLoaded = result.recorded.length;
    run.details = {
      source,
      period,
      recorded: result.recorded.length,
      unchanged: result.unchanged,
      refused: result.refused.length,
      matches: { confirmed: matches.confirmed, rejected: matches.rejected, refused: matches.refused.length },
    };
    return { ...result, matches };
  });
}

export interface DecideOptions {
  /** YYYY-MM-DD: today for the gates (default: today in the configured zone). */
  today?: string;
  decision: string;
  note?: string;
  owner?: string;
  expectedClearBy?: string;
  by?: string;
  /** Who acts (pipelines/people/actor.ts); default: `by` typed, unattested. */
  actor?: Actor;
  timezone?: string;
  /** Where the act came from, recorded on each decision row: `cli` (default), or `serve` (the review page). */
  source?: string;
}

/** `findings decide ID…`: records one decision for each finding; options left out keep the finding's current value. */
export async function decideFindings(
  warehouse: Warehouse,
  findingIds: string[],
  options: DecideOptions,
): Promise<DecisionsResult> {
  if (findingIds.length === 0) {
    throw new UsageError(
      'Name at least one finding id (see `pinrecon findings list --period P`), or choose findings with --period.',
    );
  }
  const actor = options.actor ?? typedActor(options.by);
  const by = actor.name;
  const source = options.source ?? 'cli';
  const timezone = options.timezone ?? 'UTC';
  const today = options.today ?? todayIn(timezone);
  // The run's arguments name the actor, never its key (issue 28).
  const { actor: _actor, ...logged } = options;
  const args = { findingIds, ...logged, by, attested: actor.attested };
  return recordRun(warehouse, 'findings decide', args, async (run) => {
    const current = await currentFindings(warehouse, findingIds, null, timezone);
    await refuseSignedPeriods(
      warehouse,
      [...new Set([...current.values()].map((f) => f.period))],
      timezone,
      'findings decide',
    );
    const check = { period: null, overwrite: false, written: new Map(), today };
    const rows = commandLineRows(findingIds, current, options);
    const recording = { by, source, runId: run.runId, signer: actor.signer };
    const result = await checkAndRecord(warehouse, rows, current, check, recording);
    run.counters.rowsLoaded = result.recorded.length;
    run.details = {
      source,
      recorded: result.recorded.length,
      unchanged: result.unchanged,
      refused: result.refused.length,
    };
    return result;
  });
}

/** Which findings of a period a bulk decide takes. */
export interface FindingFilter {
  period: string;
  /** Finding types (any of them). */
  types?: string[];
  family?: string;
  undecided?: boolean;
  /**
   * Only findings whose amount (cost bridge effect) is at most this in absolute value (exact decimal text). A
   * finding with an exposure (an unredeemed key's cost at stake) is chosen only when `maxExposure` is given too:
   * an amount of 0 must not sweep up keys that hold money at stake (issue 30).
   */
  maxAmount?: string;
  /** Only findings whose exposure is at most this (findings without one pass). */
  maxExposure?: string;
}

/**
 * `findings decide --period P [filters] --decision D [--dry-run]`: one decision for every finding of the
 * period the filters choose (a month's 589 unredeemed keys at once); a dry run only says what it would decide.
 */
export async function decideInBulk(
  warehouse: Warehouse,
  filter: FindingFilter,
  options: DecideOptions & { dryRun?: boolean },
): Promise<DecisionsResult> {
  const actor = options.actor ?? typedActor(options.by);
  const by = actor.name;
  const source = options.source ?? 'cli';
  const timezone = options.timezone ?? 'UTC';
  const today = options.today ?? todayIn(timezone);
  const work = async (runId: string): Promise<DecisionsResult> => {
    await refuseSignedPeriods(warehouse, [filter.period], timezone, 'findings decide');
    const chosen = await selectFindings(warehouse, filter);
    const selected = await selectedTotals(warehouse);
    await warehouse.run('DROP TABLE decision_bulk_selection');
    if (options.dryRun) return { ...emptyResult(runId, source, by, filter.period), selected, dryRun: true };
    const current = await currentFindings(warehouse, chosen, filter.period, timezone);
    const check = { period: filter.period, overwrite: false, written: new Map(), today };
    const result = await checkAndRecord(warehouse, commandLineRows(chosen, current, options), current, check, {
      by,
      source,
      runId,
      signer: actor.signer,
    });
    return { ...result, selected, dryRun: false };
  };
  // A dry run changes nothing, so it leaves no trace either.
  if (options.dryRun) return work('dry-run');
  const { actor: _actor, ...logged } = options;
  return recordRun(
    warehouse,
    'findings decide',
    { ...filter, ...logged, by, attested: actor.attested },
    async (run) => {
      const result = await work(run.runId);
      run.counters.rowsLoaded = result.recorded.length;
      const counts = { recorded: result.recorded.length, unchanged: result.unchanged, refused: result.refused.length };
      run.details = { source, bulk: filter, ...counts };
      return result;
    },
  );
}

/**
 * The ids of the findings a bulk decide chooses, in the order findings list shows them; leaves them in
 * decision_bulk_selection.
 */
async function selectFindings(warehouse: Warehouse, filter: FindingFilter): Promise<string[]> {
  const conditions = ['period = $period'];
  const params: Record<string, string> = { period: filter.period };
  if (filter.types && filter.types.length > 0) {
    conditions.push(`exception_type IN (${filter.types.map((_, i) => `$type${i}`).join(', ')})`);
    for (const [i, type] of filter.types.entries()) params[`type${i}`] = type;
  }
  if (filter.family) {
    conditions.push('family = $family');
    params.family = filter.family;
  }
  if (filter.undecided) conditions.push('decision IS NULL');
  const exposure = findingExposureSql('recon_exceptions');
  if (filter.maxAmount !== undefined) {
    conditions.push('abs(coalesce(amount, 0)) <= $maxAmount::DECIMAL(18,4)');
    if (filter.maxExposure === undefined) conditions.push(`${exposure} IS NULL`);
    params.maxAmount = filter.maxAmount;
  }
  if (filter.maxExposure !== undefined) {
    conditions.push(`coalesce(${exposure}, 0) <= $maxExposure::DECIMAL(18,4)`);
    params.maxExposure = filter.maxExposure;
  }
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE decision_bulk_selection AS
     SELECT finding_id, currency_code, amount FROM recon_exceptions WHERE ${conditions.join(' AND ')}
     ORDER BY exception_type, partner_reference NULLS LAST, transaction_id NULLS LAST, finding_id`,
    params,
  );
  return (await warehouse.all<{ finding_id: string }>('SELECT finding_id FROM decision_bulk_selection')).map(
    (r) => r.finding_id,
  );
}

async function selectedTotals(warehouse: Warehouse): Promise<SelectedTotals[]> {
  const rows = await warehouse.all<{ currency_code: string | null; n: string; amount: string }>(
    `SELECT currency_code, count(*)::VARCHAR AS n, coalesce(sum(amount), 0)::DECIMAL(18,4)::VARCHAR AS amount
     FROM decision_bulk_selection GROUP BY 1 ORDER BY 1 NULLS LAST`,
  );
  return rows.map((r) => ({ currencyCode: r.currency_code, findings: Number(r.n), amount: r.amount }));
}

/** The rows the command line asks for: its decision on each finding, options left out keeping the current values. */
function commandLineRows(
  findingIds: string[],
  current: Map<string, CurrentFinding>,
  options: DecideOptions,
): Candidate[] {
  return findingIds.map((findingId) => {
    const now = current.get(findingId);
    return {
      findingId,
      decision: options.decision,
      note: options.note ?? now?.decision_note ?? null,
      owner: options.owner ?? now?.owner ?? null,
      expectedClearBy: options.expectedClearBy ?? now?.expected_clear_by ?? null,
    };
  });
}

/**
 * What an import or decide did, for the console: the counts, then up to `shown` lines of each outcome
 * (recorded, unchanged, refused); `--json` carries every row. A bulk decide starts with what it chose.
 */
export function describeDecisions(result: DecisionsResult, shown = 50): string {
  const place = (r: { sheet?: string; row?: number }) =>
    r.sheet !== undefined ? `${r.sheet} row ${r.row}` : 'command line';
  const lines: string[] = [];
  if (result.selected) {
    const verb = result.dryRun ? 'would decide' : 'chose';
    const findings = result.selected.reduce((sum, s) => sum + s.findings, 0);
    lines.push(`${verb} ${findings} finding(s) of ${result.period}${findings > 0 ? ':' : ''}`);
    for (const s of result.selected)
      lines.push(`  ${s.currencyCode ?? '(no currency)'}: ${s.findings} finding(s), amount ${s.amount}`);
    if (result.dryRun) return [...lines, 'dry run: nothing recorded'].join('\n');
  }
  lines.push(
    `recorded ${result.recorded.length} decision(s)${result.period ? ` for ${result.period}` : ''} ` +
      `by ${result.decidedBy} (source ${result.source}); ` +
      `${result.unchanged} unchanged; refused ${result.refused.length}`,
  );
  const more = (total: number, what: string) => {
    if (total > shown) lines.push(`  … and ${total - shown} more ${what} (--json lists every row)`);
  };
  for (const r of result.recorded.slice(0, shown)) {
    lines.push(
      `  recorded  ${place(r)}: ${r.findingId} ${r.previous ?? '(undecided)'} → ${r.decision}` +
        `${r.expectedClearBy ? ` by ${r.expectedClearBy}` : ''}${r.owner ? ` (owner ${r.owner})` : ''}`,
    );
  }
  more(result.recorded.length, 'recorded');
  for (const r of result.unchangedRows.slice(0, shown)) {
    lines.push(
      `  unchanged ${place(r)}: ${r.findingId} ${r.decision ?? '(undecided)'}${r.reason ? `: ${r.reason}` : ''}`,
    );
  }
  more(result.unchangedRows.length, 'unchanged');
  for (const r of result.refused.slice(0, shown))
    lines.push(`  refused   ${place(r)}: ${r.findingId ?? '(no finding id)'}: ${r.reason}`);
  more(result.refused.length, 'refused');
  return lines.join('\n');
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
