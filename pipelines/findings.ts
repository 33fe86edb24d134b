/**
 * Decisions on findings (interface.md "Decisions on findings"): `findings import` (the decisions typed into a
 * workbook), `findings decide` (from the command line) and `findings list`.
 *
 * A decision is recorded only when it differs from the finding's current one: a row is appended to
 * `recon_decisions` (the one before it gets `superseded_at`) and the current decision is written onto the
 * finding's `recon_exceptions` row, in one transaction; reconcile joins the current decisions back in on
 * every rebuild, so they stay with their finding for as long as it exists. Anything that cannot be recorded
 * (an unknown finding, another period, an invalid decision or date) is refused with its sheet, row and why,
 * and changes nothing.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { decisions, isDecision } from '../core/decisions.js';
import { JobError, UsageError } from '../core/errors.js';
import type { Output } from '../core/output.js';
import type { Warehouse } from '../core/warehouse.js';
import { readDecisionsWorkbook, type TypedDecision } from '../reports/decisions-reader.js';
import { findingStateSql } from '../reports/finding-state.js';
import { findingAmountSql } from '../reports/finding-amount.js';
import { recordRun } from './run-trace.js';

/** A decision as recorded: what, by whom, from where. */
export interface DecisionInput {
  findingId: string;
  decision: string;
  note: string | null;
  owner: string | null;
  /** YYYY-MM-DD. */
  expectedClearBy: string | null;
}

/** A row (or command-line finding id) that was not recorded, and why. */
export interface Refusal {
  sheet?: string;
  row?: number;
  findingId: string | null;
  reason: string;
}

export interface RecordedDecision extends DecisionInput {
  period: string;
  sheet?: string;
  row?: number;
  /** The decision it replaced (null: the finding was undecided). */
  previous: string | null;
}

export interface DecisionsResult {
  runId: string;
  source: string;
  decidedBy: string;
  period: string | null;
  recorded: RecordedDecision[];
  /** Rows equal to the current decision: nothing to record. */
  unchanged: number;
  refused: Refusal[];
}

/** The finding as the database has it now. */
type CurrentFinding = {
  finding_id: string;
  period: string;
  decision: string | null;
  decision_note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
};

/** A row to check: where it came from and what it asks. */
type Candidate = Omit<TypedDecision, 'sheet' | 'row'> & { sheet?: string; row?: number };

/** The OS user name, for `--by` left out. */
export function defaultDecidedBy(): string {
  try {
    return userInfo().username || process.env.USER || 'unknown';
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

/** `findings import WORKBOOK`: records the decisions typed into a workbook that differ from the current ones. */
export async function importDecisions(warehouse: Warehouse, file: string, options: { by?: string }, output: Output): Promise<DecisionsResult> {
  if (!existsSync(file)) throw new UsageError(`${file}: no such file (give the path of a pinrecon workbook saved as .xlsx).`);
  const by = options.by ?? defaultDecidedBy();
  return recordRun(warehouse, 'findings import', { file, by }, async (run) => {
    const sha256 = await fileSha256(file);
    const source = `workbook:${path.basename(file)}#${sha256}`;
    output.info(`reading decisions from ${file}`);
    const workbook = await readDecisionsWorkbook(file);
    if (workbook.sheets.length === 0) {
      throw new JobError(
        `${file} has no sheet with a "Finding ID" and a "Decision" column in its first rows.`,
        'Import a workbook written by `pinrecon report` (its finding sheets carry those columns), with the header row kept.',
      );
    }
    output.info(`found decision columns on ${workbook.sheets.map((s) => `${s.name} (header on row ${s.headerRow})`).join(', ')}`);
    const current = await currentFindings(warehouse, workbook.rows.map((r) => r.findingId).filter((id): id is string => id !== null), workbook.period);
    const period = workbook.period ?? onlyPeriod(current);
    if (period === null && workbook.rows.some((r) => r.findingId !== null && current.has(r.findingId))) {
      throw new JobError(
        `${file}: cannot tell which period the workbook is of (its Summary sheet with the "Period" line is gone, and its findings belong to several periods).`,
        'Import the workbook as `pinrecon report` wrote it (keep its Summary sheet), or copy the decisions into that workbook.',
      );
    }
    const result = await checkAndRecord(warehouse, workbook.rows, current, { period, by, source, runId: run.runId });
    run.counters.rowsLoaded = result.recorded.length;
    run.details = { source, period, recorded: result.recorded.length, unchanged: result.unchanged, refused: result.refused.length };
    return result;
  });
}

/** `findings decide ID…`: records one decision for each finding; options left out keep the finding's current value. */
export async function decideFindings(
  warehouse: Warehouse,
  findingIds: string[],
  options: { decision: string; note?: string; owner?: string; expectedClearBy?: string; by?: string },
): Promise<DecisionsResult> {
  if (findingIds.length === 0) throw new UsageError('Name at least one finding id (see `pinrecon findings list --period P`).');
  const by = options.by ?? defaultDecidedBy();
  return recordRun(warehouse, 'findings decide', { findingIds, ...options, by }, async (run) => {
    const current = await currentFindings(warehouse, findingIds);
    const rows: Candidate[] = findingIds.map((findingId) => {
      const now = current.get(findingId);
      return {
        findingId,
        decision: options.decision,
        note: options.note ?? now?.decision_note ?? null,
        owner: options.owner ?? now?.owner ?? null,
        expectedClearBy: options.expectedClearBy ?? now?.expected_clear_by ?? null,
      };
    });
    const result = await checkAndRecord(warehouse, rows, current, { period: null, by, source: 'cli', runId: run.runId });
    run.counters.rowsLoaded = result.recorded.length;
    run.details = { source: 'cli', recorded: result.recorded.length, unchanged: result.unchanged, refused: result.refused.length };
    return result;
  });
}

/** Checks every row against the database, then records the changes in one transaction. */
async function checkAndRecord(
  warehouse: Warehouse,
  rows: Candidate[],
  current: Map<string, CurrentFinding>,
  context: { period: string | null; by: string; source: string; runId: string },
): Promise<DecisionsResult> {
  const result: DecisionsResult = { runId: context.runId, source: context.source, decidedBy: context.by, period: context.period, recorded: [], unchanged: 0, refused: [] };
  const seen = new Map<string, Candidate>();
  for (const row of rows) {
    const refuse = (reason: string) => result.refused.push({ sheet: row.sheet, row: row.row, findingId: row.findingId, reason });
    const verdict = checkRow(row, current, context.period, seen);
    if (verdict.kind === 'skip') continue;
    if (verdict.kind === 'refuse') {
      refuse(verdict.reason);
      continue;
    }
    seen.set(row.findingId!, row);
    if (verdict.kind === 'unchanged') {
      result.unchanged++;
      continue;
    }
    const finding = current.get(row.findingId!)!;
    result.recorded.push({
      findingId: row.findingId!,
      period: finding.period,
      decision: verdict.decision,
      note: row.note,
      owner: row.owner,
      expectedClearBy: row.expectedClearBy,
      previous: finding.decision,
      ...(row.sheet !== undefined ? { sheet: row.sheet, row: row.row } : {}),
    });
  }
  if (result.recorded.length > 0) await recordDecisions(warehouse, result.recorded, context);
  return result;
}

type RowVerdict = { kind: 'skip' } | { kind: 'refuse'; reason: string } | { kind: 'unchanged' } | { kind: 'record'; decision: string };

function checkRow(row: Candidate, current: Map<string, CurrentFinding>, period: string | null, seen: Map<string, Candidate>): RowVerdict {
  if (row.problem) return { kind: 'refuse', reason: row.problem };
  if (row.findingId === null) return { kind: 'refuse', reason: 'no Finding ID on this row (decisions are matched to findings by it)' };
  const finding = current.get(row.findingId);
  if (row.decision === null) {
    if (row.note !== null || row.owner !== null || row.expectedClearBy !== null) return { kind: 'refuse', reason: 'Note, Owner or Expected clear by without a Decision' };
    if (finding?.decision) return { kind: 'refuse', reason: `Decision is empty, but the finding is decided "${finding.decision}" (a decision can be changed, not removed)` };
    return { kind: 'skip' };
  }
  const decision = row.decision.toLowerCase().replace(/[\s-]+/g, '_');
  if (!isDecision(decision)) return { kind: 'refuse', reason: `"${row.decision}" is not a decision: one of ${decisions.join(', ')}` };
  if (decision === 'timing' && row.expectedClearBy === null) return { kind: 'refuse', reason: 'timing needs Expected clear by (the date it should clear by itself)' };
  if (!finding) return { kind: 'refuse', reason: `no finding ${row.findingId} in the database (cleared or never reconciled here)` };
  if (period !== null && finding.period !== period) return { kind: 'refuse', reason: `the finding belongs to ${finding.period}, not to ${period}, the period of this workbook` };
  const earlier = seen.get(row.findingId);
  if (earlier) {
    const same = earlier.decision?.toLowerCase().replace(/[\s-]+/g, '_') === decision && earlier.note === row.note && earlier.owner === row.owner && earlier.expectedClearBy === row.expectedClearBy;
    if (same) return { kind: 'skip' };
    return { kind: 'refuse', reason: `the finding is also on ${earlier.sheet ?? ''} row ${earlier.row ?? ''} with another decision: keep one` };
  }
  const unchanged =
    finding.decision === decision && finding.decision_note === row.note && finding.owner === row.owner && finding.expected_clear_by === row.expectedClearBy;
  return unchanged ? { kind: 'unchanged' } : { kind: 'record', decision };
}

/** Appends the decisions to recon_decisions and sets them on the findings, in one transaction. */
async function recordDecisions(warehouse: Warehouse, recorded: RecordedDecision[], context: { by: string; source: string }): Promise<void> {
  const decidedAt = new Date().toISOString();
  await warehouse.transaction(async () => {
    await textTable(
      warehouse,
      'decision_changes',
      ['finding_id', 'period', 'decision', 'note', 'owner', 'expected_clear_by'],
      recorded.map((r) => [r.findingId, r.period, r.decision, r.note, r.owner, r.expectedClearBy]),
    );
    await warehouse.run(
      `UPDATE recon_decisions SET superseded_at = $1::TIMESTAMPTZ
       WHERE superseded_at IS NULL AND finding_id IN (SELECT finding_id FROM decision_changes)`,
      [decidedAt],
    );
    await warehouse.run(
      `INSERT INTO recon_decisions (finding_id, period, decision, note, owner, expected_clear_by, decided_by, decided_at, source, superseded_at)
       SELECT finding_id, period, decision, note, owner, expected_clear_by::DATE, $1, $2::TIMESTAMPTZ, $3, NULL FROM decision_changes`,
      [context.by, decidedAt, context.source],
    );
    await warehouse.run(
      `UPDATE recon_exceptions SET decision = c.decision, decision_note = c.note, owner = c.owner, expected_clear_by = c.expected_clear_by::DATE
       FROM decision_changes c WHERE recon_exceptions.finding_id = c.finding_id AND recon_exceptions.period = c.period`,
    );
    await warehouse.run('DROP TABLE decision_changes');
  });
}

/**
 * The current findings among `ids`, with their current decision. With the workbook's period known, that
 * period's findings are read whole (one scan), and only the ids not among them are looked up elsewhere.
 */
async function currentFindings(warehouse: Warehouse, ids: string[], period: string | null = null): Promise<Map<string, CurrentFinding>> {
  const columns = `finding_id, period, decision, decision_note, owner, expected_clear_by::VARCHAR AS expected_clear_by`;
  const found = new Map<string, CurrentFinding>();
  if (period !== null) {
    for (const row of await warehouse.all<CurrentFinding>(`SELECT ${columns} FROM recon_exceptions WHERE period = $1`, [period])) found.set(row.finding_id, row);
  }
  const rest = [...new Set(ids)].filter((id) => !found.has(id));
  if (rest.length > 0) {
    await textTable(warehouse, 'decision_finding_ids', ['finding_id'], rest.map((id) => [id]));
    const rows = await warehouse.all<CurrentFinding>(`SELECT ${columns} FROM recon_exceptions WHERE finding_id IN (SELECT finding_id FROM decision_finding_ids)`);
    await warehouse.run('DROP TABLE decision_finding_ids');
    for (const row of rows) found.set(row.finding_id, row);
  }
  return found;
}

/** A temporary table of text columns filled through DuckDB's appender (fast for 100,000 rows, unlike parameters). */
async function textTable(warehouse: Warehouse, name: string, columns: string[], rows: (string | null)[][]): Promise<void> {
  await warehouse.run(`CREATE OR REPLACE TEMP TABLE ${name} (${columns.map((c) => `${c} VARCHAR`).join(', ')})`);
  const appender = await warehouse.connection.createAppender(name, 'main', 'temp');
  try {
    for (const row of rows) {
      for (const value of row) {
        if (value === null) appender.appendNull();
        else appender.appendVarchar(value);
      }
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

function onlyPeriod(current: Map<string, CurrentFinding>): string | null {
  const periods = new Set([...current.values()].map((f) => f.period));
  return periods.size === 1 ? [...periods][0]! : null;
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A finding as `findings list` shows it. */
export type ListedFinding = {
  finding_id: string;
  exception_type: string;
  partner_reference: string | null;
  transaction_id: string | null;
  currency_code: string | null;
  /** The finding's amount (reports/finding-amount.ts): for an unredeemed key, its cost at stake. */
  amount: string | null;
  difference: string | null;
  state: string;
  decision: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decision_note: string | null;
};

/** `findings list --period P [--undecided]`: the period's findings with their current decision and state. */
export async function listFindings(warehouse: Warehouse, options: { period: string; undecided?: boolean }): Promise<ListedFinding[]> {
  return warehouse.all<ListedFinding>(
    `SELECT * FROM (
       SELECT e.finding_id, e.exception_type, e.partner_reference, e.transaction_id::VARCHAR AS transaction_id, e.currency_code,
              ${findingAmountSql('e')}::VARCHAR AS amount, e.difference::VARCHAR AS difference, ${findingStateSql('e')} AS state,
              e.decision, e.owner, e.expected_clear_by::VARCHAR AS expected_clear_by, e.decision_note
       FROM recon_exceptions e WHERE e.period = $1
     ) ${options.undecided ? `WHERE decision IS NULL` : ''}
     ORDER BY exception_type, partner_reference NULLS LAST, transaction_id NULLS LAST, finding_id`,
    [options.period],
  );
}

/** What an import or decide did, for the console: recorded rows (the first 50), then every refusal with its place. */
export function describeDecisions(result: DecisionsResult, shown = 50): string {
  const place = (r: { sheet?: string; row?: number }) => (r.sheet !== undefined ? `${r.sheet} row ${r.row}` : 'command line');
  const lines = [
    `recorded ${result.recorded.length} decision(s)${result.period ? ` for ${result.period}` : ''} by ${result.decidedBy} (source ${result.source}); ` +
      `${result.unchanged} unchanged; refused ${result.refused.length}`,
  ];
  for (const r of result.recorded.slice(0, shown)) {
    lines.push(`  recorded  ${place(r)}: ${r.findingId} ${r.previous ?? '(undecided)'} → ${r.decision}${r.expectedClearBy ? ` by ${r.expectedClearBy}` : ''}${r.owner ? ` (owner ${r.owner})` : ''}`);
  }
  if (result.recorded.length > shown) lines.push(`  … and ${result.recorded.length - shown} more (query recon_decisions WHERE source = '${result.source}')`);
  for (const r of result.refused) lines.push(`  refused   ${place(r)}: ${r.findingId ?? '(no finding id)'}: ${r.reason}`);
  return lines.join('\n');
}
