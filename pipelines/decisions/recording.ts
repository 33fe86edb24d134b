/**
 * Checking and recording decisions on findings, for every way one arrives (workbook, command line, bulk): each row
 * is checked against the finding's current decision (decision-check.ts), then the changes are recorded in one
 * transaction (decision-append.ts), and what became of every row is told. A signed-off period refuses them all.
 * The commands are in findings.ts.
 */
import { JobError } from '../../core/errors.js';
import type { Identity } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';
import { activeSignoff } from '../close/signoffs.js';
import { recordDecisions, type RecordedDecision } from './append.js';
import { checkRow, type Candidate, type CheckContext } from './check.js';
import type { CurrentFinding } from './state.js';

/** A row (or command-line finding id) that was not recorded, and why. */
export interface Refusal {
  sheet?: string;
  row?: number;
  findingId: string | null;
  reason: string;
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
      `The decisions of a signed-off period are part of what was signed. Reopen it (the sign-off stays in ` +
        `period_signoffs), ` +
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
  context: { by: string; source: string; runId: string; signer?: Identity | null },
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
