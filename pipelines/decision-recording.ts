/**
 * Checking and recording decisions on findings, for every way one arrives (workbook, command line, bulk): each row
 * is checked against the finding's current decision, then the changes are recorded in one transaction, chained
 * (core/decision-chain.ts). A signed-off period refuses them all. The commands are in findings.ts.
 */
import { canonicalTimestamp, chainHead, decisionSha256, type ChainedDecision } from '../core/decision-chain.js';
import { decisions, isDecision } from '../core/decisions.js';
import { JobError } from '../core/errors.js';
import { localTimeSql } from '../core/zoned-time.js';
import type { Warehouse } from '../core/warehouse.js';
import type { TypedDecision } from '../reports/decisions-reader.js';
import { activeSignoff } from '../reports/signoffs.js';

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
export type CurrentFinding = {
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
export type Candidate = Omit<TypedDecision, 'sheet' | 'row'> & { sheet?: string; row?: number };

/** How rows are checked: the workbook's period, `--overwrite`. */
interface CheckContext {
  period: string | null;
  overwrite: boolean;
  written: Map<string, WrittenDecision>;
}

/**
 * A signed-off period's decisions are part of what was signed: nothing is recorded in one (issue 14 item 2).
 * Throws, naming who signed it, when, and that it must be reopened first.
 */
export async function refuseSignedPeriods(
  warehouse: Warehouse,
  periods: string[],
  timezone: string,
  command: string,
): Promise<void> {
  for (const period of [...periods].sort()) {
    const signoff = await activeSignoff(warehouse, period, timezone);
    if (!signoff) continue;
    throw new JobError(
      `${command} changed nothing: ${period} is signed off by ${signoff.signedBy} at ${signoff.signedAtZoned}: ` +
        `run \`pinrecon reopen --period ${period} --by NAME --reason TEXT\` first.`,
      `The decisions of a signed-off period are part of what was signed. Reopen it (the sign-off stays in period_signoffs), ` +
        `decide, and close it again; the changes since the sign-off are then listed like any other.`,
    );
  }
}

export function emptyResult(runId: string, source: string, by: string, period: string | null): DecisionsResult {
  return { runId, source, decidedBy: by, period, recorded: [], unchanged: 0, unchangedRows: [], refused: [], rows: [] };
}

/** Checks every row against the database, then records the changes in one transaction. */
export async function checkAndRecord(
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
      result.rows.push({
        ...place,
        findingId: row.findingId,
        outcome: 'refused',
        decision: row.decision,
        reason: verdict.reason,
      });
      continue;
    }
    seen.set(row.findingId!, row);
    if (verdict.kind === 'unchanged') {
      result.unchanged++;
      const why = verdict.reason ? { reason: verdict.reason } : {};
      result.unchangedRows.push({ ...place, findingId: row.findingId!, decision: verdict.decision, ...why });
      result.rows.push({
        ...place,
        findingId: row.findingId,
        outcome: 'unchanged',
        decision: verdict.decision,
        ...why,
      });
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

const normalized = (decision: string | null) =>
  decision === null ? null : decision.toLowerCase().replace(/[\s-]+/g, '_');

function checkRow(
  row: Candidate,
  current: Map<string, CurrentFinding>,
  check: CheckContext,
  seen: Map<string, Candidate>,
): RowVerdict {
  if (row.problem) return { kind: 'refuse', reason: row.problem };
  if (row.findingId === null)
    return { kind: 'refuse', reason: 'no Finding ID on this row (decisions are matched to findings by it)' };
  const finding = current.get(row.findingId);
  // A workbook written undecided, left undecided, while the database has decided since: left as written.
  const leftUndecided =
    row.decisionRef === null &&
    row.decision === null &&
    row.note === null &&
    row.owner === null &&
    row.expectedClearBy === null;
  if (row.decision === null) {
    if (row.note !== null || row.owner !== null || row.expectedClearBy !== null)
      return { kind: 'refuse', reason: 'Note, Owner or Expected clear by without a Decision' };
    if (finding?.decision && leftUndecided) {
      return {
        kind: 'unchanged',
        decision: null,
        reason: `left as written; the finding is decided "${finding.decision}" since`,
      };
    }
    if (finding?.decision)
      return {
        kind: 'refuse',
        reason: `Decision is empty, but the finding is decided "${finding.decision}" (a decision can be changed, not removed)`,
      };
    return { kind: 'skip' };
  }
  const decision = normalized(row.decision)!;
  if (!isDecision(decision))
    return { kind: 'refuse', reason: `"${row.decision}" is not a decision: one of ${decisions.join(', ')}` };
  if (decision === 'timing' && row.expectedClearBy === null)
    return { kind: 'refuse', reason: 'timing needs Expected clear by (the date it should clear by itself)' };
  if (!finding)
    return { kind: 'refuse', reason: `no finding ${row.findingId} in the database (cleared or never reconciled here)` };
  if (check.period !== null && finding.period !== check.period) {
    return {
      kind: 'refuse',
      reason: `the finding belongs to ${finding.period}, not to ${check.period}, the period of this workbook`,
    };
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
    return {
      kind: 'refuse',
      reason: `the finding is also on ${earlier.sheet ?? ''} row ${earlier.row ?? ''} with another decision: keep one`,
    };
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
      const since = finding.decided_by ? `changed by ${finding.decided_by} at ${finding.decided_at}` : 'changed';
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
    other.decision === decision &&
    other.note === row.note &&
    other.owner === row.owner &&
    other.expected_clear_by === row.expectedClearBy
  );
}

/**
 * Appends the decisions to recon_decisions, each linked into its period's chain after the period's head, and
 * sets them on the findings, in one transaction.
 */
async function recordDecisions(
  warehouse: Warehouse,
  recorded: RecordedDecision[],
  context: { by: string; source: string },
): Promise<void> {
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
      [
        'finding_id',
        'period',
        'decision',
        'note',
        'owner',
        'expected_clear_by',
        'chain_position',
        'prev_sha256',
        'row_sha256',
      ],
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
export async function currentFindings(
  warehouse: Warehouse,
  ids: string[],
  period: string | null,
  timezone: string,
): Promise<Map<string, CurrentFinding>> {
  const columns = `finding_id, period, decision, decision_note, owner, expected_clear_by::VARCHAR AS expected_clear_by, decided_by,
    ${localTimeSql('decided_at', timezone, { zoned: true })} AS decided_at, decision_sha256`;
  const found = new Map<string, CurrentFinding>();
  if (period !== null) {
    for (const row of await warehouse.all<CurrentFinding>(`SELECT ${columns} FROM recon_exceptions WHERE period = $1`, [
      period,
    ]))
      found.set(row.finding_id, row);
  }
  const rest = [...new Set(ids)].filter((id) => !found.has(id));
  if (rest.length > 0) {
    await textTable(
      warehouse,
      'decision_finding_ids',
      ['finding_id'],
      rest.map((id) => [id]),
    );
    const rows = await warehouse.all<CurrentFinding>(
      `SELECT ${columns} FROM recon_exceptions WHERE finding_id IN (SELECT finding_id FROM decision_finding_ids)`,
    );
    await warehouse.run('DROP TABLE decision_finding_ids');
    for (const row of rows) found.set(row.finding_id, row);
  }
  return found;
}

/** The decisions named by a workbook's Decision refs (recon_decisions rows by row_sha256). */
export async function writtenDecisions(warehouse: Warehouse, refs: string[]): Promise<Map<string, WrittenDecision>> {
  const found = new Map<string, WrittenDecision & { row_sha256: string }>();
  if (refs.length === 0) return found;
  await textTable(
    warehouse,
    'decision_refs',
    ['row_sha256'],
    [...new Set(refs)].map((ref) => [ref]),
  );
  const rows = await warehouse.all<WrittenDecision & { row_sha256: string }>(
    `SELECT row_sha256, finding_id, decision, note, owner, expected_clear_by::VARCHAR AS expected_clear_by
     FROM recon_decisions WHERE row_sha256 IN (SELECT row_sha256 FROM decision_refs)`,
  );
  await warehouse.run('DROP TABLE decision_refs');
  for (const row of rows) found.set(row.row_sha256, row);
  return found;
}

/** A temporary table of text columns filled through DuckDB's appender (fast for 100,000 rows, unlike parameters). */
async function textTable(
  warehouse: Warehouse,
  name: string,
  columns: string[],
  rows: (string | null)[][],
): Promise<void> {
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

export function onlyPeriod(current: Map<string, CurrentFinding>): string | null {
  const periods = new Set([...current.values()].map((f) => f.period));
  return periods.size === 1 ? [...periods][0]! : null;
}
