/**
 * Decisions on findings (interface.md "Decisions on findings" and "Decisions after sign-off, stale workbooks,
 * audit"): `findings import` (the decisions typed into a workbook), `findings decide` (from the command line,
 * by finding id or in bulk by period and filters), `findings list` and `findings history`.
 *
 * A decision is recorded only when it differs from the finding's current one: a row is appended to
 * `recon_decisions`, linked into its period's hash chain (core/decision-chain.ts), the one before it gets
 * `superseded_at`, and the current decision is written onto the finding's `recon_exceptions` row, in one
 * transaction; reconcile joins the current decisions back in on every rebuild. Nothing is recorded in a
 * signed-off period (its decisions are part of what was signed: reopen first). A workbook row carries the
 * decision it was written with (`Decision ref`, the row_sha256 of that decision): a row left as written is
 * `unchanged`, and a row edited over a decision recorded after the workbook was written is refused unless
 * `--overwrite`. Anything that cannot be recorded (an unknown finding, another period, an invalid decision
 * or date) is refused with its sheet, row and why, and changes nothing.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { canonicalTimestamp, chainHead, decisionSha256, type ChainedDecision } from '../core/decision-chain.js';
import { decisions, isDecision } from '../core/decisions.js';
import { JobError, UsageError } from '../core/errors.js';
import { sqlString } from '../core/sql.js';
import type { Output } from '../core/output.js';
import type { Warehouse } from '../core/warehouse.js';
import { readDecisionsWorkbook, type TypedDecision } from '../reports/decisions-reader.js';
import { findingStateSql } from '../reports/finding-state.js';
import { activeSignoff } from './close.js';
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
  /** Its place in the period's chain and its hash, once recorded. */
  chainPosition?: number;
  rowSha256?: string;
}

/** A row equal to the finding's current decision, or left as the workbook was written: nothing to record. */
export interface UnchangedRow {
  sheet?: string;
  row?: number;
  findingId: string;
  decision: string | null;
  /** Why nothing was recorded when the database holds another decision (a row left as written). */
  reason?: string;
}

/** Every row an import or decide looked at, with what became of it (`--json`). */
export interface RowOutcome {
  sheet?: string;
  row?: number;
  findingId: string | null;
  outcome: 'recorded' | 'unchanged' | 'refused';
  decision: string | null;
  reason?: string;
}

export interface DecisionsResult {
  runId: string;
  source: string;
  decidedBy: string;
  period: string | null;
  recorded: RecordedDecision[];
  /** Rows equal to the current decision, or left as written: nothing to record. */
  unchanged: number;
  unchangedRows: UnchangedRow[];
  refused: Refusal[];
  rows: RowOutcome[];
  /** Bulk decide: the findings chosen, per currency (count and amount), and whether nothing was recorded on purpose. */
  selected?: SelectedTotals[];
  dryRun?: boolean;
}

/** Findings chosen by a bulk decide, per currency. */
export interface SelectedTotals {
  currencyCode: string | null;
  findings: number;
  /** Exact decimal sum of recon_exceptions.amount. */
  amount: string;
}

/** The finding as the database has it now. */
type CurrentFinding = {
  finding_id: string;
  period: string;
  decision: string | null;
  decision_note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decided_by: string | null;
  decided_at: string | null;
  decision_sha256: string | null;
};

/** A decision as a workbook was written with it (the recon_decisions row its Decision ref names). */
type WrittenDecision = {
  finding_id: string;
  decision: string;
  note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
};

/** A row to check: where it came from and what it asks. */
type Candidate = Omit<TypedDecision, 'sheet' | 'row'> & { sheet?: string; row?: number };

/** How rows are checked: the workbook's period, `--overwrite`, the zone times are shown in. */
interface CheckContext {
  period: string | null;
  overwrite: boolean;
  timezone: string;
  written: Map<string, WrittenDecision>;
}

/** The OS user name, for `--by` left out. */
export function defaultDecidedBy(): string {
  try {
    return userInfo().username || process.env.USER || 'unknown';
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

export interface ImportOptions {
  by?: string;
  /** Record rows edited over a decision taken after the workbook was written (else refused). */
  overwrite?: boolean;
  /** The configured zone, for the times in messages. */
  timezone?: string;
}

/** `findings import WORKBOOK`: records the decisions typed into a workbook that differ from the current ones. */
export async function importDecisions(
  warehouse: Warehouse,
  file: string,
  options: ImportOptions,
  output: Output,
): Promise<DecisionsResult> {
  if (!existsSync(file)) throw new UsageError(`${file}: no such file (give the path of a pinrecon workbook saved as .xlsx).`);
  const by = options.by ?? defaultDecidedBy();
  const timezone = options.timezone ?? 'UTC';
  return recordRun(warehouse, 'findings import', { file, by, overwrite: Boolean(options.overwrite) }, async (run) => {
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
    const ids = workbook.rows.map((r) => r.findingId).filter((id): id is string => id !== null);
    const current = await currentFindings(warehouse, ids, workbook.period, timezone);
    const period = workbook.period ?? onlyPeriod(current);
    if (period === null && workbook.rows.some((r) => r.findingId !== null && current.has(r.findingId))) {
      throw new JobError(
        `${file}: cannot tell which period the workbook is of (its Summary sheet with the "Period" line is gone, and its findings belong to several periods).`,
        'Import the workbook as `pinrecon report` wrote it (keep its Summary sheet), or copy the decisions into that workbook.',
      );
    }
    const periods = period !== null ? [period] : [...new Set([...current.values()].map((f) => f.period))];
    await refuseSignedPeriods(warehouse, periods, timezone, 'findings import');
    const refs = workbook.rows.map((r) => r.decisionRef).filter((ref): ref is string => typeof ref === 'string' && ref !== '');
    const written = await writtenDecisions(warehouse, refs);
    const context = { period, overwrite: Boolean(options.overwrite), timezone, written };
    const result = await checkAndRecord(warehouse, workbook.rows, current, context, { by, source, runId: run.runId });
    run.counters.rowsLoaded = result.recorded.length;
    run.details = { source, period, recorded: result.recorded.length, unchanged: result.unchanged, refused: result.refused.length };
    return result;
  });
}

export interface DecideOptions {
  decision: string;
  note?: string;
  owner?: string;
  expectedClearBy?: string;
  by?: string;
  timezone?: string;
}

/** `findings decide ID…`: records one decision for each finding; options left out keep the finding's current value. */
export async function decideFindings(warehouse: Warehouse, findingIds: string[], options: DecideOptions): Promise<DecisionsResult> {
  if (findingIds.length === 0) {
    throw new UsageError('Name at least one finding id (see `pinrecon findings list --period P`), or choose findings with --period.');
  }
  const by = options.by ?? defaultDecidedBy();
  const timezone = options.timezone ?? 'UTC';
  return recordRun(warehouse, 'findings decide', { findingIds, ...options, by }, async (run) => {
    const current = await currentFindings(warehouse, findingIds, null, timezone);
    await refuseSignedPeriods(warehouse, [...new Set([...current.values()].map((f) => f.period))], timezone, 'findings decide');
    const check = { period: null, overwrite: false, timezone, written: new Map() };
    const rows = commandLineRows(findingIds, current, options);
    const result = await checkAndRecord(warehouse, rows, current, check, { by, source: 'cli', runId: run.runId });
    run.counters.rowsLoaded = result.recorded.length;
    run.details = { source: 'cli', recorded: result.recorded.length, unchanged: result.unchanged, refused: result.refused.length };
    return result;
  });
}

/** Which findings of a period a bulk decide takes. */
export interface FindingFilter {
  period: string;
  /** Exception types (any of them). */
  types?: string[];
  family?: string;
  undecided?: boolean;
  /** Only findings whose amount is at most this in absolute value (exact decimal text). */
  maxAmount?: string;
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
  const by = options.by ?? defaultDecidedBy();
  const timezone = options.timezone ?? 'UTC';
  const work = async (runId: string): Promise<DecisionsResult> => {
    await refuseSignedPeriods(warehouse, [filter.period], timezone, 'findings decide');
    const chosen = await selectFindings(warehouse, filter);
    const selected = await selectedTotals(warehouse);
    await warehouse.run('DROP TABLE decision_bulk_selection');
    if (options.dryRun) return { ...emptyResult(runId, 'cli', by, filter.period), selected, dryRun: true };
    const current = await currentFindings(warehouse, chosen, filter.period, timezone);
    const check = { period: filter.period, overwrite: false, timezone, written: new Map() };
    const result = await checkAndRecord(warehouse, commandLineRows(chosen, current, options), current, check, { by, source: 'cli', runId });
    return { ...result, selected, dryRun: false };
  };
  // A dry run changes nothing, so it leaves no trace either.
  if (options.dryRun) return work('dry-run');
  return recordRun(warehouse, 'findings decide', { ...filter, ...options, by }, async (run) => {
    const result = await work(run.runId);
    run.counters.rowsLoaded = result.recorded.length;
    const counts = { recorded: result.recorded.length, unchanged: result.unchanged, refused: result.refused.length };
    run.details = { source: 'cli', bulk: filter, ...counts };
    return result;
  });
}

/** The ids of the findings a bulk decide chooses, in the order findings list shows them; leaves them in decision_bulk_selection. */
async function selectFindings(warehouse: Warehouse, filter: FindingFilter): Promise<string[]> {
  const conditions = ['period = $period'];
  const params: Record<string, string> = { period: filter.period };
  if (filter.types && filter.types.length > 0) {
    conditions.push(`exception_type IN (${filter.types.map((_, i) => `$type${i}`).join(', ')})`);
    filter.types.forEach((type, i) => (params[`type${i}`] = type));
  }
  if (filter.family) {
    conditions.push('family = $family');
    params.family = filter.family;
  }
  if (filter.undecided) conditions.push('decision IS NULL');
  if (filter.maxAmount !== undefined) {
    conditions.push('abs(coalesce(amount, 0)) <= $maxAmount::DECIMAL(18,4)');
    params.maxAmount = filter.maxAmount;
  }
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE decision_bulk_selection AS
     SELECT finding_id, currency_code, amount FROM recon_exceptions WHERE ${conditions.join(' AND ')}
     ORDER BY exception_type, partner_reference NULLS LAST, transaction_id NULLS LAST, finding_id`,
    params,
  );
  return (await warehouse.all<{ finding_id: string }>('SELECT finding_id FROM decision_bulk_selection')).map((r) => r.finding_id);
}

async function selectedTotals(warehouse: Warehouse): Promise<SelectedTotals[]> {
  const rows = await warehouse.all<{ currency_code: string | null; n: string; amount: string }>(
    `SELECT currency_code, count(*)::VARCHAR AS n, coalesce(sum(amount), 0)::DECIMAL(18,4)::VARCHAR AS amount
     FROM decision_bulk_selection GROUP BY 1 ORDER BY 1 NULLS LAST`,
  );
  return rows.map((r) => ({ currencyCode: r.currency_code, findings: Number(r.n), amount: r.amount }));
}

/** The rows the command line asks for: its decision on each finding, options left out keeping the current values. */
function commandLineRows(findingIds: string[], current: Map<string, CurrentFinding>, options: DecideOptions): Candidate[] {
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
 * A signed-off period's decisions are part of what was signed: nothing is recorded in one (issue 14 item 2).
 * Throws, naming who signed it, when, and that it must be reopened first.
 */
async function refuseSignedPeriods(warehouse: Warehouse, periods: string[], timezone: string, command: string): Promise<void> {
  for (const period of [...periods].sort()) {
    const signoff = await activeSignoff(warehouse, period, timezone);
    if (!signoff) continue;
    throw new JobError(
      `${command} changed nothing: ${period} is signed off by ${signoff.signedBy} at ${signoff.signedAt} (${timezone}): ` +
        `run \`pinrecon reopen --period ${period} --by NAME --reason TEXT\` first.`,
      `The decisions of a signed-off period are part of what was signed. Reopen it (the sign-off stays in period_signoffs), ` +
        `decide, and close it again; the changes since the sign-off are then listed like any other.`,
    );
  }
}

function emptyResult(runId: string, source: string, by: string, period: string | null): DecisionsResult {
  return { runId, source, decidedBy: by, period, recorded: [], unchanged: 0, unchangedRows: [], refused: [], rows: [] };
}

/** Checks every row against the database, then records the changes in one transaction. */
async function checkAndRecord(
  warehouse: Warehouse,
  rows: Candidate[],
  current: Map<string, CurrentFinding>,
  check: CheckContext,
  context: { by: string; source: string; runId: string },
): Promise<DecisionsResult> {
  const result = emptyResult(context.runId, context.source, context.by, check.period);
  const seen = new Map<string, Candidate>();
  for (const row of rows) {
    const place = row.sheet !== undefined ? { sheet: row.sheet, row: row.row } : {};
    const verdict = checkRow(row, current, check, seen);
    if (verdict.kind === 'skip') continue;
    if (verdict.kind === 'refuse') {
      result.refused.push({ ...place, findingId: row.findingId, reason: verdict.reason });
      result.rows.push({ ...place, findingId: row.findingId, outcome: 'refused', decision: row.decision, reason: verdict.reason });
      continue;
    }
    seen.set(row.findingId!, row);
    if (verdict.kind === 'unchanged') {
      result.unchanged++;
      const why = verdict.reason ? { reason: verdict.reason } : {};
      result.unchangedRows.push({ ...place, findingId: row.findingId!, decision: verdict.decision, ...why });
      result.rows.push({ ...place, findingId: row.findingId, outcome: 'unchanged', decision: verdict.decision, ...why });
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
      ...place,
    });
    result.rows.push({ ...place, findingId: row.findingId, outcome: 'recorded', decision: verdict.decision });
  }
  if (result.recorded.length > 0) await recordDecisions(warehouse, result.recorded, context);
  return result;
}

type RowVerdict =
  | { kind: 'skip' }
  | { kind: 'refuse'; reason: string }
  | { kind: 'unchanged'; decision: string | null; reason?: string }
  | { kind: 'record'; decision: string };

const normalized = (decision: string | null) => (decision === null ? null : decision.toLowerCase().replace(/[\s-]+/g, '_'));

function checkRow(row: Candidate, current: Map<string, CurrentFinding>, check: CheckContext, seen: Map<string, Candidate>): RowVerdict {
  if (row.problem) return { kind: 'refuse', reason: row.problem };
  if (row.findingId === null) return { kind: 'refuse', reason: 'no Finding ID on this row (decisions are matched to findings by it)' };
  const finding = current.get(row.findingId);
  // A workbook written undecided, left undecided, while the database has decided since: left as written.
  const leftUndecided =
    row.decisionRef === null && row.decision === null && row.note === null && row.owner === null && row.expectedClearBy === null;
  if (row.decision === null) {
    if (row.note !== null || row.owner !== null || row.expectedClearBy !== null) return { kind: 'refuse', reason: 'Note, Owner or Expected clear by without a Decision' };
    if (finding?.decision && leftUndecided) {
      return { kind: 'unchanged', decision: null, reason: `left as written; the finding is decided "${finding.decision}" since` };
    }
    if (finding?.decision) return { kind: 'refuse', reason: `Decision is empty, but the finding is decided "${finding.decision}" (a decision can be changed, not removed)` };
    return { kind: 'skip' };
  }
  const decision = normalized(row.decision)!;
  if (!isDecision(decision)) return { kind: 'refuse', reason: `"${row.decision}" is not a decision: one of ${decisions.join(', ')}` };
  if (decision === 'timing' && row.expectedClearBy === null) return { kind: 'refuse', reason: 'timing needs Expected clear by (the date it should clear by itself)' };
  if (!finding) return { kind: 'refuse', reason: `no finding ${row.findingId} in the database (cleared or never reconciled here)` };
  if (check.period !== null && finding.period !== check.period) {
    return { kind: 'refuse', reason: `the finding belongs to ${finding.period}, not to ${check.period}, the period of this workbook` };
  }
  const earlier = seen.get(row.findingId);
  if (earlier) {
    const same = sameDecision(row, decision, {
      decision: normalized(earlier.decision),
      note: earlier.note,
      owner: earlier.owner,
      expected_clear_by: earlier.expectedClearBy,
    });
    if (same) return { kind: 'skip' };
    return { kind: 'refuse', reason: `the finding is also on ${earlier.sheet ?? ''} row ${earlier.row ?? ''} with another decision: keep one` };
  }
  const asNow = {
    decision: finding.decision,
    note: finding.decision_note,
    owner: finding.owner,
    expected_clear_by: finding.expected_clear_by,
  };
  if (sameDecision(row, decision, asNow)) return { kind: 'unchanged', decision };
  // A workbook with Decision refs: was the row edited, and did the database move since the workbook was written?
  // A row left as written never overwrites a newer decision; --overwrite only lets edited rows through.
  if (row.decisionRef !== undefined) {
    const ref = row.decisionRef;
    const written = ref === null ? null : check.written.get(ref);
    if (written && written.finding_id === row.findingId && sameDecision(row, decision, written)) {
      const reason = `left as written (${written.decision}); the finding is decided "${finding.decision}" since`;
      return { kind: 'unchanged', decision, reason };
    }
    if (check.overwrite) return { kind: 'record', decision };
    if (ref !== null && (!written || written.finding_id !== row.findingId)) {
      const reason = `its Decision ref ${ref.slice(0, 12)}… is no decision of this finding here: ${freshWorkbook}`;
      return { kind: 'refuse', reason };
    }
    if ((finding.decision_sha256 ?? null) !== ref) {
      const since = finding.decided_by ? `changed by ${finding.decided_by} at ${finding.decided_at} (${check.timezone})` : 'changed';
      return {
        kind: 'refuse',
        reason: `${since} after this workbook was written (now "${finding.decision ?? 'undecided'}"): ${freshWorkbook}`,
      };
    }
  }
  return { kind: 'record', decision };
}

const freshWorkbook = 'run `pinrecon report` for a fresh workbook, or --overwrite';

function sameDecision(
  row: Candidate,
  decision: string,
  other: { decision: string | null; note: string | null; owner: string | null; expected_clear_by: string | null },
): boolean {
  return (
    other.decision === decision && other.note === row.note && other.owner === row.owner && other.expected_clear_by === row.expectedClearBy
  );
}

/**
 * Appends the decisions to recon_decisions, each linked into its period's chain after the period's head, and
 * sets them on the findings, in one transaction.
 */
async function recordDecisions(warehouse: Warehouse, recorded: RecordedDecision[], context: { by: string; source: string }): Promise<void> {
  const decidedAt = canonicalTimestamp(new Date());
  await warehouse.transaction(async () => {
    const heads = new Map<string, { position: number; sha256: string | null }>();
    for (const period of new Set(recorded.map((r) => r.period))) heads.set(period, await chainHead(warehouse, period));
    const prevSha256: (string | null)[] = [];
    for (const r of recorded) {
      const head = heads.get(r.period)!;
      const chained: ChainedDecision = {
        period: r.period,
        chainPosition: head.position + 1,
        findingId: r.findingId,
        decision: r.decision,
        note: r.note,
        owner: r.owner,
        expectedClearBy: r.expectedClearBy,
        decidedBy: context.by,
        decidedAt,
        source: context.source,
        prevSha256: head.sha256,
      };
      prevSha256.push(chained.prevSha256);
      r.chainPosition = chained.chainPosition;
      r.rowSha256 = decisionSha256(chained);
      heads.set(r.period, { position: chained.chainPosition, sha256: r.rowSha256 });
    }
    await textTable(
      warehouse,
      'decision_changes',
      ['finding_id', 'period', 'decision', 'note', 'owner', 'expected_clear_by', 'chain_position', 'prev_sha256', 'row_sha256'],
      recorded.map((r, i) => {
        const chain = [String(r.chainPosition), prevSha256[i]!, r.rowSha256!];
        return [r.findingId, r.period, r.decision, r.note, r.owner, r.expectedClearBy, ...chain];
      }),
    );
    await warehouse.run(
      `UPDATE recon_decisions SET superseded_at = $1::TIMESTAMPTZ
       WHERE superseded_at IS NULL AND finding_id IN (SELECT finding_id FROM decision_changes)`,
      [decidedAt],
    );
    await warehouse.run(
      `INSERT INTO recon_decisions (finding_id, period, decision, note, owner, expected_clear_by, decided_by, decided_at, source,
                                    superseded_at, chain_position, prev_sha256, row_sha256)
       SELECT finding_id, period, decision, note, owner, expected_clear_by::DATE, $1, $2::TIMESTAMPTZ, $3, NULL,
              chain_position::BIGINT, prev_sha256, row_sha256
       FROM decision_changes`,
      [context.by, decidedAt, context.source],
    );
    await warehouse.run(
      `UPDATE recon_exceptions SET decision = c.decision, decision_note = c.note, owner = c.owner,
              expected_clear_by = c.expected_clear_by::DATE, decided_by = $1, decided_at = $2::TIMESTAMPTZ, decision_sha256 = c.row_sha256
       FROM decision_changes c WHERE recon_exceptions.finding_id = c.finding_id AND recon_exceptions.period = c.period`,
      [context.by, decidedAt],
    );
    await warehouse.run('DROP TABLE decision_changes');
  });
}

/**
 * The current findings among `ids`, with their current decision. With the workbook's period known, that
 * period's findings are read whole (one scan), and only the ids not among them are looked up elsewhere.
 */
async function currentFindings(
  warehouse: Warehouse,
  ids: string[],
  period: string | null,
  timezone: string,
): Promise<Map<string, CurrentFinding>> {
  const columns = `finding_id, period, decision, decision_note, owner, expected_clear_by::VARCHAR AS expected_clear_by, decided_by,
    strftime(timezone(${sqlString(timezone)}, decided_at), '%Y-%m-%d %H:%M') AS decided_at, decision_sha256`;
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

/** The decisions named by a workbook's Decision refs (recon_decisions rows by row_sha256). */
async function writtenDecisions(warehouse: Warehouse, refs: string[]): Promise<Map<string, WrittenDecision>> {
  const found = new Map<string, WrittenDecision & { row_sha256: string }>();
  if (refs.length === 0) return found;
  await textTable(warehouse, 'decision_refs', ['row_sha256'], [...new Set(refs)].map((ref) => [ref]));
  const rows = await warehouse.all<WrittenDecision & { row_sha256: string }>(
    `SELECT row_sha256, finding_id, decision, note, owner, expected_clear_by::VARCHAR AS expected_clear_by
     FROM recon_decisions WHERE row_sha256 IN (SELECT row_sha256 FROM decision_refs)`,
  );
  await warehouse.run('DROP TABLE decision_refs');
  for (const row of rows) found.set(row.row_sha256, row);
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

/**
 * What an import or decide did, for the console: the counts, then up to `shown` lines of each outcome
 * (recorded, unchanged, refused); `--json` carries every row. A bulk decide starts with what it chose.
 */
export function describeDecisions(result: DecisionsResult, shown = 50): string {
  const place = (r: { sheet?: string; row?: number }) => (r.sheet !== undefined ? `${r.sheet} row ${r.row}` : 'command line');
  const lines: string[] = [];
  if (result.selected) {
    const verb = result.dryRun ? 'would decide' : 'chose';
    const findings = result.selected.reduce((sum, s) => sum + s.findings, 0);
    lines.push(`${verb} ${findings} finding(s) of ${result.period}${findings > 0 ? ':' : ''}`);
    for (const s of result.selected) lines.push(`  ${s.currencyCode ?? '(no currency)'}: ${s.findings} finding(s), amount ${s.amount}`);
    if (result.dryRun) return [...lines, 'dry run: nothing recorded'].join('\n');
  }
  lines.push(
    `recorded ${result.recorded.length} decision(s)${result.period ? ` for ${result.period}` : ''} by ${result.decidedBy} (source ${result.source}); ` +
      `${result.unchanged} unchanged; refused ${result.refused.length}`,
  );
  const more = (total: number, what: string) => {
    if (total > shown) lines.push(`  … and ${total - shown} more ${what} (--json lists every row)`);
  };
  for (const r of result.recorded.slice(0, shown)) {
    lines.push(`  recorded  ${place(r)}: ${r.findingId} ${r.previous ?? '(undecided)'} → ${r.decision}${r.expectedClearBy ? ` by ${r.expectedClearBy}` : ''}${r.owner ? ` (owner ${r.owner})` : ''}`);
  }
  more(result.recorded.length, 'recorded');
  for (const r of result.unchangedRows.slice(0, shown)) {
    lines.push(`  unchanged ${place(r)}: ${r.findingId} ${r.decision ?? '(undecided)'}${r.reason ? `: ${r.reason}` : ''}`);
  }
  more(result.unchangedRows.length, 'unchanged');
  for (const r of result.refused.slice(0, shown)) lines.push(`  refused   ${place(r)}: ${r.findingId ?? '(no finding id)'}: ${r.reason}`);
  more(result.refused.length, 'refused');
  return lines.join('\n');
}

/** A recorded decision as `findings history` shows it. */
export type DecisionHistoryRow = {
  period: string;
  chain_position: string | null;
  finding_id: string;
  exception_type: string | null;
  partner_reference: string | null;
  decision: string;
  note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decided_by: string;
  /** In the configured zone, with the zone named. */
  decided_at: string;
  source: string;
  superseded_at: string | null;
  row_sha256: string | null;
};

/** `findings history (ID | --period P)`: who decided what, when and from which source, in the order recorded. */
export async function decisionHistory(
  warehouse: Warehouse,
  selector: { findingId?: string; period?: string },
  timezone: string,
): Promise<DecisionHistoryRow[]> {
  const zone = sqlString(timezone);
  const local = (column: string) => `strftime(timezone(${zone}, ${column}), '%Y-%m-%d %H:%M:%S') || ' (' || ${zone} || ')'`;
  const where = selector.findingId !== undefined ? 'd.finding_id = $1' : 'd.period = $1';
  const rows = await warehouse.all<DecisionHistoryRow>(
    `SELECT d.period, d.chain_position::VARCHAR AS chain_position, d.finding_id, e.exception_type, e.partner_reference,
            d.decision, d.note, d.owner, d.expected_clear_by::VARCHAR AS expected_clear_by, d.decided_by,
            ${local('d.decided_at')} AS decided_at, d.source, ${local('d.superseded_at')} AS superseded_at, d.row_sha256
     FROM recon_decisions d
     LEFT JOIN (SELECT DISTINCT ON (finding_id) finding_id, exception_type, partner_reference FROM recon_exceptions) e
       ON e.finding_id = d.finding_id
     WHERE ${where}
     ORDER BY d.period, d.chain_position NULLS LAST, d.decided_at, d.finding_id`,
    [selector.findingId ?? selector.period!],
  );
  if (rows.length === 0 && selector.findingId !== undefined) {
    const known = await warehouse.one<{ n: string }>('SELECT count(*)::VARCHAR AS n FROM recon_exceptions WHERE finding_id = $1', [
      selector.findingId,
    ]);
    if (Number(known?.n ?? 0) === 0) {
      throw new JobError(
        `No finding ${selector.findingId} and no decision on it in the database.`,
        'Find the finding ids with pinrecon findings list --period P.',
      );
    }
  }
  return rows;
}
