/**
 * Suggested matches (README "Suggested matches", issue 29): `matches list`, and confirming or rejecting a
 * suggestion — from the command line or a workbook's Suggested matches sheet — as a row of the period's decision
 * chain (recon_decisions, finding_id = suggestion id), recorded by the same path as a finding's decision
 * (append.ts), with the pair it names kept in recon_match_pairs. The next reconcile matches a confirmed pair. The
 * workbook's rows are checked one by one in match-import.ts.
 */
import { JobError } from '../../core/errors.js';
import type { Identity } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';
import { recordDecisions, type RecordedDecision } from './append.js';
import { refuseSignedPeriods } from './recording.js';

export const matchStatuses = ['proposed', 'confirmed', 'rejected'] as const;
export type MatchStatus = (typeof matchStatuses)[number];

/** What a person decides on a suggestion, and the decision row it becomes. */
export const matchVerbs = { confirm: 'match_confirmed', reject: 'match_rejected' } as const;
export type MatchVerb = keyof typeof matchVerbs;

/** One suggestion as `matches list` prints it: the mart's row with its status from the decision rows. */
export type MatchRow = {
  suggestion_id: string;
  period: string;
  ledger_reference: string;
  transaction_id: string;
  provider_reference: string;
  score: number;
  rank: number | null;
  status: MatchStatus;
  reasons: string;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
};

/** The current match decision of each suggestion, as SQL over recon_decisions (the mart's own status may be older). */
export const currentMatchDecisions = `SELECT finding_id, decision, note, decided_by, decided_at FROM recon_decisions
  WHERE superseded_at IS NULL AND decision IN ('match_confirmed', 'match_rejected')`;

/** `matches list --period P [--status S]`: by score (best first), then reference. */
export async function listMatches(
  warehouse: Warehouse,
  filter: { period: string; status?: MatchStatus },
): Promise<MatchRow[]> {
  const rows = await warehouse.all<Omit<MatchRow, 'score' | 'rank'> & { score: string; rank: string | null }>(
    `WITH d AS (${currentMatchDecisions})
     SELECT s.suggestion_id, s.period, s.ledger_reference, s.transaction_id::VARCHAR AS transaction_id,
            s.provider_reference, s.score, s.rank,
            CASE d.decision WHEN 'match_confirmed' THEN 'confirmed' WHEN 'match_rejected' THEN 'rejected'
                 ELSE 'proposed' END AS status,
            s.reasons, d.decided_by, strftime(d.decided_at, '%Y-%m-%dT%H:%M:%S%z') AS decided_at, d.note
     FROM recon_match_suggestions s LEFT JOIN d ON d.finding_id = s.suggestion_id
     WHERE s.period = $1
     ORDER BY s.score DESC, s.ledger_reference, s.transaction_id`,
    [filter.period],
  );
  return rows
    .map((r) => ({ ...r, score: Number(r.score), rank: r.rank === null ? null : Number(r.rank) }))
    .filter((r) => filter.status === undefined || r.status === filter.status);
}

/** A confirmation or rejection asked for: from the command line, or a Suggested matches row of a workbook. */
export interface MatchRequest {
  suggestionId: string;
  verb: MatchVerb;
  note: string | null;
  sheet?: string;
  row?: number;
}

export interface MatchDecisionsResult {
  decidedBy: string;
  source: string;
  recorded: RecordedDecision[];
  /** Suggestions whose current decision is already the one asked for. */
  unchanged: string[];
}

/** Who decides (the actor's name and, with people configured, the key that signs the rows) and from where. */
export interface MatchContext {
  by: string;
  signer?: Identity | null;
  source: string;
  timezone: string;
}

type Suggestion = {
  suggestion_id: string;
  period: string;
  ledger_reference: string;
  transaction_id: string;
  provider_reference: string;
  score: number;
  reasons: string;
  decision: string | null;
  note: string | null;
};

/**
 * Records the confirmations and rejections asked for, all or nothing: an unknown suggestion, a signed-off period or
 * a side that already belongs to another confirmed match refuses the whole request (JobError, exit 1).
 */
export async function decideMatches(
  warehouse: Warehouse,
  requests: MatchRequest[],
  context: MatchContext & { command: string },
): Promise<MatchDecisionsResult> {
  const result: MatchDecisionsResult = { decidedBy: context.by, source: context.source, recorded: [], unchanged: [] };
  if (requests.length === 0) return result;
  const ids = [...new Set(requests.map((r) => r.suggestionId))];
  const found = await suggestions(warehouse, ids);
  const unknown = ids.filter((id) => !found.has(id));
  if (unknown.length > 0) {
    throw new JobError(
      `${context.command} changed nothing: no suggested match ${unknown.join(', ')}.`,
      'See the ids with `pinrecon matches list --period P` (a reconcile of the period proposes them).',
    );
  }
  await refuseSignedPeriods(
    warehouse,
    [...new Set([...found.values()].map((s) => s.period))],
    context.timezone,
    context.command,
  );
  const wanted = new Map<string, MatchRequest>();
  for (const request of requests) wanted.set(request.suggestionId, request);
  await refuseTakenSides(warehouse, [...wanted.values()], found, context.command);
  for (const request of wanted.values()) {
    const suggestion = found.get(request.suggestionId)!;
    const decision = matchVerbs[request.verb];
    if (suggestion.decision === decision && (request.note ?? suggestion.note) === suggestion.note) {
      result.unchanged.push(request.suggestionId);
      continue;
    }
    result.recorded.push({
      findingId: request.suggestionId,
      period: suggestion.period,
      decision,
      note: request.note ?? suggestion.note,
      owner: null,
      expectedClearBy: null,
      previous: suggestion.decision,
      ...(request.sheet !== undefined ? { sheet: request.sheet, row: request.row } : {}),
    });
  }
  if (result.recorded.length === 0) return result;
  // The pair each id names, kept once (its first decision): the decision rows alone then say what it is.
  for (const r of result.recorded) {
    const s = found.get(r.findingId)!;
    await warehouse.run(
      `INSERT INTO recon_match_pairs VALUES ($1, $2, $3, $4::BIGINT, $5, $6, $7, now()) ON CONFLICT DO NOTHING`,
      [s.suggestion_id, s.period, s.ledger_reference, s.transaction_id, s.provider_reference, s.score, s.reasons],
    );
  }
  await recordDecisions(warehouse, result.recorded, { by: context.by, source: context.source, signer: context.signer });
  return result;
}

/** The suggestions named, from the mart (or the pairs already decided), with their current match decision. */
export async function suggestions(warehouse: Warehouse, ids: string[]): Promise<Map<string, Suggestion>> {
  const rows = await warehouse.all<Omit<Suggestion, 'score'> & { score: string }>(
    `WITH wanted AS (SELECT unnest(from_json($1::VARCHAR, '["VARCHAR"]')) AS id),
          d AS (${currentMatchDecisions}),
          known AS (
            SELECT suggestion_id, period, ledger_reference, transaction_id, provider_reference, score, reasons
            FROM recon_match_suggestions WHERE suggestion_id IN (SELECT id FROM wanted)
            UNION ALL
            SELECT suggestion_id, period, ledger_reference, transaction_id, provider_reference, score, reasons
            FROM recon_match_pairs WHERE suggestion_id IN (SELECT id FROM wanted))
     SELECT k.suggestion_id, any_value(k.period) AS period, any_value(k.ledger_reference) AS ledger_reference,
            any_value(k.transaction_id)::VARCHAR AS transaction_id,
            any_value(k.provider_reference) AS provider_reference,
            any_value(k.score) AS score, any_value(k.reasons) AS reasons,
            any_value(d.decision) AS decision, any_value(d.note) AS note
     FROM known k LEFT JOIN d ON d.finding_id = k.suggestion_id GROUP BY k.suggestion_id`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.suggestion_id, { ...r, score: Number(r.score) }]));
}

/**
 * A ledger order or a sale is matched to one other side at most: a confirmation whose order or sale is already in
 * another confirmed match (or in another confirmation of the same request) is refused, naming that match.
 */
async function refuseTakenSides(
  warehouse: Warehouse,
  requests: MatchRequest[],
  found: Map<string, Suggestion>,
  command: string,
): Promise<void> {
  const confirming = requests.filter((r) => r.verb === 'confirm').map((r) => found.get(r.suggestionId)!);
  if (confirming.length === 0) return;
  const confirmed = await confirmedPairs(warehouse);
  // Those this request rejects are no longer in the way.
  const rejecting = new Set(requests.filter((r) => r.verb === 'reject').map((r) => r.suggestionId));
  const taken = [...confirmed.filter((c) => !rejecting.has(c.suggestion_id)), ...confirming];
  for (const s of confirming) {
    const other = taken.find(
      (t) =>
        t.suggestion_id !== s.suggestion_id &&
        (t.ledger_reference === s.ledger_reference || t.transaction_id === s.transaction_id),
    );
    if (!other) continue;
    const side =
      other.ledger_reference === s.ledger_reference
        ? `the ledger order ${s.ledger_reference}`
        : `the sale ${s.transaction_id}`;
    throw new JobError(
      `${command} changed nothing: ${side} of suggestion ${s.suggestion_id} is already part of the confirmed match ` +
        `${other.suggestion_id} (${other.ledger_reference} ↔ sale ${other.transaction_id}).`,
      `A side is matched once. Reject ${other.suggestion_id} first ` +
        `(pinrecon matches reject ${other.suggestion_id} --note …) ` +
        'if it was the wrong one.',
    );
  }
}

/** What a confirm or reject did, for the console. */
export function describeMatchDecisions(result: MatchDecisionsResult): string {
  const lines = [
    `recorded ${result.recorded.length} match decision(s) by ${result.decidedBy} (source ${result.source}); ` +
      `${result.unchanged.length} unchanged`,
  ];
  for (const r of result.recorded)
    lines.push(
      `  recorded  ${r.findingId} ${r.previous ?? '(proposed)'} → ${r.decision}${r.note ? `: ${r.note}` : ''}`,
    );
  for (const id of result.unchanged) lines.push(`  unchanged ${id}`);
  if (result.recorded.some((r) => r.decision === 'match_confirmed'))
    lines.push('run `pinrecon reconcile --period P` to match the confirmed pairs');
  return lines.join('\n');
}

/** The pairs whose current decision is a confirmation. */
export function confirmedPairs(
  warehouse: Warehouse,
): Promise<{ suggestion_id: string; ledger_reference: string; transaction_id: string }[]> {
  return warehouse.all(
    `SELECT p.suggestion_id, p.ledger_reference, p.transaction_id::VARCHAR AS transaction_id
     FROM recon_match_pairs p JOIN (${currentMatchDecisions}) d ON d.finding_id = p.suggestion_id
     WHERE d.decision = 'match_confirmed'`,
  );
}
