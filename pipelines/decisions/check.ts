/**
 * Judging one row of decisions (workbook, command line or bulk) against the finding's current decision: recorded,
 * unchanged (equal, or left as the workbook was written) or refused with why. A row edited over a decision taken
 * after the workbook was written is refused unless `--overwrite`. Pure: the database was read before.
 */
import { decisions, isDecision } from '../../core/decisions.js';
import type { TypedDecision } from '../../reports/decisions-reader.js';
import type { CurrentFinding, WrittenDecision } from './state.js';

/** A row to check: where it came from and what it asks. */
export type Candidate = Omit<TypedDecision, 'sheet' | 'row'> & { sheet?: string; row?: number };

/** How rows are checked: the workbook's period, `--overwrite`, today in the configured zone (the gates). */
export interface CheckContext {
  period: string | null;
  overwrite: boolean;
  written: Map<string, WrittenDecision>;
  /** YYYY-MM-DD in the configured zone: a timing's Expected clear by may not be before it. */
  today: string;
}

/** Decisions that close a finding with no action: each needs a note saying why (issue 28 gates). */
const needNote = ['write_off', 'accepted'];

/**
 * The gates every recorded decision passes (issue 28), whatever brought it (command line, workbook, bulk, a
 * page): write_off and accepted need a note; timing needs an Expected clear by that is not in the past.
 */
export function gateProblem(
  decision: string,
  row: { note: string | null; expectedClearBy: string | null },
  today: string,
): string | undefined {
  if (needNote.includes(decision) && (row.note ?? '').trim() === '')
    return `${decision} needs a Note saying why (who reviewed it and on what grounds)`;
  if (decision === 'timing' && row.expectedClearBy === null)
    return 'timing needs Expected clear by (the date it should clear by itself)';
  if (decision === 'timing' && row.expectedClearBy !== null && row.expectedClearBy < today)
    return (
      `timing needs an Expected clear by that is not in the past ` +
      `(${row.expectedClearBy} is before today, ${today})`
    );
  return undefined;
}

export type RowVerdict =
  | { kind: 'skip' }
  | { kind: 'refuse'; reason: string }
  | { kind: 'unchanged'; decision: string | null; reason?: string }
  | { kind: 'record'; decision: string };

const normalized = (decision: string | null) =>
  decision === null ? null : decision.toLowerCase().replace(/[\s-]+/g, '_');

/** Judges a row; a row to record must also pass the gates (`gateProblem`). */
export function checkRow(
  row: Candidate,
  current: Map<string, CurrentFinding>,
  check: CheckContext,
  seen: Map<string, Candidate>,
): RowVerdict {
  const verdict = judgeRow(row, current, check, seen);
  if (verdict.kind !== 'record') return verdict;
  const problem = gateProblem(verdict.decision, row, check.today);
  return problem ? { kind: 'refuse', reason: problem } : verdict;
}

function judgeRow(
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
        reason:
          `Decision is empty, but the finding is decided "${finding.decision}" ` +
          `(a decision can be changed, not removed)`,
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
