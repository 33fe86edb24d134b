/**
 * `findings import`'s Suggested matches rows (issue 29): each row typed on the workbook's Suggested matches sheet is
 * checked — its Suggestion ID known, its Decision confirm or reject, its period not signed off, its sides not held by
 * another confirmed match, not typed over a newer decision — and the good rows are recorded through
 * decideMatches (matches.ts); a bad row is refused with its reason and row number and the others still recorded,
 * as a finding sheet's rows are. What became of every row is told on the console and in `--json`.
 */
import { JobError } from '../../core/errors.js';
import type { Warehouse } from '../../core/warehouse.js';
import type { TypedMatchDecision } from '../../reports/match-sheet-reader.js';
import {
  confirmedPairs,
  currentMatchDecisions,
  decideMatches,
  describeMatchDecisions,
  matchVerbs,
  suggestions,
  type MatchContext,
  type MatchDecisionsResult,
  type MatchRequest,
  type MatchVerb,
} from './matches.js';
import { refuseSignedPeriods } from './recording.js';

/** A Suggested matches row of a workbook that was not recorded, and why (issue 29). */
export interface MatchRefusal {
  sheet: string;
  row: number;
  suggestionId: string | null;
  decision: string;
  reason: string;
}

/** What became of each Suggested matches row `findings import` read (`--json`). */
export interface MatchRowOutcome {
  sheet: string;
  row: number;
  suggestionId: string | null;
  decision: string;
  outcome: 'confirmed' | 'rejected' | 'unchanged' | 'refused';
  reason?: string;
}

/** `findings import`'s match part: the decisions recorded, the rows refused, every row's outcome. */
export interface MatchImportResult extends MatchDecisionsResult {
  confirmed: number;
  rejected: number;
  refused: MatchRefusal[];
  rows: MatchRowOutcome[];
}

/**
 * `findings import`: the Suggested matches sheet's rows with a Decision typed (confirm | reject; a reject needs its
 * Note), recorded like `matches confirm|reject` with the workbook as their source. A row that cannot be recorded —
 * no or an unknown Suggestion ID, another word than confirm or reject, a signed-off period, a side already in
 * another confirmed match, typed over a newer decision — is refused with its reason and row; the other rows are
 * recorded (as a finding sheet's rows are).
 */
export async function importMatchDecisions(
  warehouse: Warehouse,
  typed: TypedMatchDecision[],
  context: MatchContext & { overwrite?: boolean },
): Promise<MatchImportResult> {
  const refused: MatchRefusal[] = [];
  const refuse = (row: TypedMatchDecision, reason: string) =>
    refused.push({ sheet: row.sheet, row: row.row, suggestionId: row.suggestionId, decision: row.decision, reason });
  const wellFormed: { row: TypedMatchDecision; request: MatchRequest }[] = [];
  const refs = await decisionRefs(warehouse, typed);
  for (const row of typed) {
    const stale = row.suggestionId !== null ? staleness(row, refs) : 'current';
    // left as the workbook was written, over a decision taken since: nothing to record (as for findings)
    if (stale === 'left as written') continue;
    if (stale !== 'current' && !context.overwrite) refuse(row, stale);
    else if (row.suggestionId === null) refuse(row, 'no Suggestion ID');
    else if (row.decision !== 'confirm' && row.decision !== 'reject')
      refuse(row, `Decision must be confirm or reject, got "${row.decision}"`);
    else if (row.decision === 'reject' && !row.note) refuse(row, 'a reject needs a Note saying why');
    else {
      const verb: MatchVerb = row.decision;
      const request = { suggestionId: row.suggestionId, verb, note: row.note, sheet: row.sheet, row: row.row };
      wellFormed.push({ row, request });
    }
  }
  const accepted = await checkImportedRows(warehouse, wellFormed, context.timezone, refuse);
  const decided = await decideMatches(
    warehouse,
    accepted.map((a) => a.request),
    { ...context, command: 'findings import' },
  );
  const recorded = new Map(decided.recorded.map((r) => [r.findingId, r.decision]));
  const rows: MatchRowOutcome[] = [
    ...accepted.map(({ row }): MatchRowOutcome => {
      const decision = recorded.get(row.suggestionId!);
      const outcome = decision === undefined ? 'unchanged' : decision === 'match_confirmed' ? 'confirmed' : 'rejected';
      return { sheet: row.sheet, row: row.row, suggestionId: row.suggestionId, decision: row.decision, outcome };
    }),
    ...refused.map((r): MatchRowOutcome => ({ ...r, outcome: 'refused' })),
  ].sort((a, b) => a.sheet.localeCompare(b.sheet) || a.row - b.row);
  refused.sort((a, b) => a.sheet.localeCompare(b.sheet) || a.row - b.row);
  return {
    ...decided,
    confirmed: decided.recorded.filter((r) => r.decision === 'match_confirmed').length,
    rejected: decided.recorded.filter((r) => r.decision === 'match_rejected').length,
    refused,
    rows,
  };
}

/**
 * The well-formed rows that may be recorded, in sheet order; the others handed to `refuse` with their reason: an
 * unknown suggestion, a signed-off period, a second row deciding a suggestion otherwise, or a confirmation of a side
 * that another confirmed match (recorded, or confirmed by an earlier row) already holds.
 */
async function checkImportedRows(
  warehouse: Warehouse,
  rows: { row: TypedMatchDecision; request: MatchRequest }[],
  timezone: string,
  refuse: (row: TypedMatchDecision, reason: string) => void,
): Promise<{ row: TypedMatchDecision; request: MatchRequest }[]> {
  const found = await suggestions(warehouse, [...new Set(rows.map((r) => r.request.suggestionId))]);
  const signed = new Map<string, string>();
  for (const period of new Set([...found.values()].map((s) => s.period))) {
    try {
      await refuseSignedPeriods(warehouse, [period], timezone, 'findings import');
    } catch (error) {
      if (!(error instanceof JobError)) throw error;
      signed.set(period, error.message.replace(/^findings import changed nothing: /, ''));
    }
  }
  const known: { row: TypedMatchDecision; request: MatchRequest }[] = [];
  const first = new Map<string, { row: TypedMatchDecision; request: MatchRequest }>();
  for (const r of rows) {
    const suggestion = found.get(r.request.suggestionId);
    const earlier = first.get(r.request.suggestionId);
    if (!suggestion) refuse(r.row, `no suggested match ${r.request.suggestionId} (see pinrecon matches list)`);
    else if (signed.has(suggestion.period)) refuse(r.row, signed.get(suggestion.period)!);
    else if (earlier && earlier.request.verb !== r.request.verb)
      refuse(r.row, `row ${earlier.row.row} already decides this suggestion otherwise (${earlier.row.decision})`);
    else if (!earlier) {
      first.set(r.request.suggestionId, r);
      known.push(r);
    }
  }
  // The sides each confirmed match holds, less those this workbook rejects; then each confirmation in row order.
  const rejecting = new Set(known.filter((r) => r.request.verb === 'reject').map((r) => r.request.suggestionId));
  const holders = (await confirmedPairs(warehouse)).filter((c) => !rejecting.has(c.suggestion_id));
  const accepted: { row: TypedMatchDecision; request: MatchRequest }[] = [];
  for (const r of known) {
    const s = found.get(r.request.suggestionId)!;
    const other =
      r.request.verb === 'confirm'
        ? holders.find(
            (h) =>
              h.suggestion_id !== s.suggestion_id &&
              (h.ledger_reference === s.ledger_reference || h.transaction_id === s.transaction_id),
          )
        : undefined;
    if (other) {
      const side =
        other.ledger_reference === s.ledger_reference
          ? `the ledger order ${s.ledger_reference}`
          : `the sale ${s.transaction_id}`;
      refuse(
        r.row,
        `${side} is already part of the confirmed match ${other.suggestion_id} ` +
          `(${other.ledger_reference} ↔ sale ${other.transaction_id}); reject that one first if it was wrong`,
      );
      continue;
    }
    if (r.request.verb === 'confirm') holders.push(s);
    accepted.push(r);
  }
  return accepted;
}

interface DecisionRefs {
  /** The current match decision's row_sha256 and decision, by suggestion id. */
  current: Map<string, { sha256: string; decision: string }>;
  /** The decision each Decision ref of the workbook names. */
  written: Map<string, string>;
}

async function decisionRefs(warehouse: Warehouse, typed: TypedMatchDecision[]): Promise<DecisionRefs> {
  const ids = typed.flatMap((r) => (r.suggestionId !== null ? [r.suggestionId] : []));
  const refs = typed.flatMap((r) => (r.decisionRef ? [r.decisionRef] : []));
  const current = await warehouse.all<{ finding_id: string; row_sha256: string; decision: string }>(
    `SELECT finding_id, row_sha256, decision FROM (${currentMatchDecisions.replace('SELECT ', 'SELECT row_sha256, ')})
     WHERE finding_id IN (SELECT unnest(from_json($1::VARCHAR, '["VARCHAR"]')))`,
    [JSON.stringify(ids)],
  );
  const written = await warehouse.all<{ row_sha256: string; decision: string }>(
    `SELECT row_sha256, decision FROM recon_decisions
     WHERE row_sha256 IN (SELECT unnest(from_json($1::VARCHAR, '["VARCHAR"]')))`,
    [JSON.stringify(refs)],
  );
  return {
    current: new Map(current.map((r) => [r.finding_id, { sha256: r.row_sha256, decision: r.decision }])),
    written: new Map(written.map((r) => [r.row_sha256, r.decision])),
  };
}

/**
 * Whether a typed row may be recorded: `current` when the workbook was written with the suggestion's current
 * decision (or has no Decision ref column), `left as written` when its Decision is still what the workbook showed
 * though a newer decision was taken since, else why it is refused (a decision typed over a newer one).
 */
function staleness(row: TypedMatchDecision, refs: DecisionRefs): string {
  if (row.decisionRef === undefined) return 'current';
  const now = refs.current.get(row.suggestionId!);
  if ((row.decisionRef ?? null) === (now?.sha256 ?? null)) return 'current';
  const shown = row.decisionRef ? refs.written.get(row.decisionRef) : undefined;
  const typed = matchVerbs[row.decision as MatchVerb];
  if (typed !== undefined && typed === shown) return 'left as written';
  if (typed !== undefined && typed === now?.decision) return 'current'; // the same decision: unchanged
  return (
    `edited over a newer decision (${now ? `${now.decision}` : 'none'} recorded after the workbook was written): ` +
    'run pinrecon report for a fresh workbook, or import with --overwrite'
  );
}

/** What the import did with the Suggested matches rows, for the console: the decisions, then each refused row. */
export function describeMatchImport(result: MatchImportResult, shown = 50): string {
  const lines = [describeMatchDecisions(result)];
  if (result.refused.length > 0) lines.push(`refused ${result.refused.length} Suggested matches row(s):`);
  for (const r of result.refused.slice(0, shown))
    lines.push(`  refused   ${r.sheet} row ${r.row}: ${r.suggestionId ?? '(no id)'}: ${r.reason}`);
  if (result.refused.length > shown)
    lines.push(`  … and ${result.refused.length - shown} more refused (--json lists every row)`);
  return lines.join('\n');
}
