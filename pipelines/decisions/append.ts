/**
 * Recording decisions: each appended to recon_decisions, linked into its period's hash chain after the period's
 * head (core/decision-chain.ts) and signed over the same canonical bytes when its person's key is given (issue 28),
 * the decision it replaces marked superseded and the finding's row updated, all in one transaction.
 */
import {
  canonicalDecision,
  canonicalTimestamp,
  chainHead,
  decisionSha256,
  type ChainedDecision,
} from '../../core/decision-chain.js';
import { signCanonical, type Identity } from '../../core/signatures.js';
import { textTable } from '../../core/text-table.js';
import { refreshCarriedForward } from '../reconcile/carried-inputs.js';
import type { Warehouse } from '../../core/warehouse.js';

/** A decision as recorded: what, by whom, from where. */
export interface DecisionInput {
  findingId: string;
  decision: string;
  note: string | null;
  owner: string | null;
  /** YYYY-MM-DD. */
  expectedClearBy: string | null;
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

/**
 * Appends the decisions to recon_decisions, each linked into its period's chain after the period's head, and
 * sets them on the findings, in one transaction.
 */
export async function recordDecisions(
  warehouse: Warehouse,
  recorded: RecordedDecision[],
  context: { by: string; source: string; signer?: Identity | null },
): Promise<void> {
  const signer = context.signer ?? null;
  const decidedAt = canonicalTimestamp(new Date());
  await warehouse.transaction(async () => {
    const heads = new Map<string, { position: number; sha256: string | null }>();
    for (const period of new Set(recorded.map((r) => r.period))) heads.set(period, await chainHead(warehouse, period));
    const prevSha256: (string | null)[] = [];
    const signatures: (string | null)[] = [];
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
      signatures.push(signer ? signCanonical(signer.privateKey, canonicalDecision(chained)) : null);
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
        'signature',
      ],
      recorded.map((r, i) => {
        const chain = [String(r.chainPosition), prevSha256[i]!, r.rowSha256!, signatures[i]!];
        return [r.findingId, r.period, r.decision, r.note, r.owner, r.expectedClearBy, ...chain];
      }),
    );
    await warehouse.run(
      `UPDATE recon_decisions SET superseded_at = $1::TIMESTAMPTZ
       WHERE superseded_at IS NULL AND finding_id IN (SELECT finding_id FROM decision_changes)`,
      [decidedAt],
    );
    await warehouse.run(
      `INSERT INTO recon_decisions (finding_id, period, decision, note, owner, expected_clear_by, decided_by,
                                    decided_at, source, superseded_at, chain_position, prev_sha256, row_sha256,
                                    signature, signer_key_sha256)
       SELECT finding_id, period, decision, note, owner, expected_clear_by::DATE, $1, $2::TIMESTAMPTZ, $3, NULL,
              chain_position::BIGINT, prev_sha256, row_sha256, signature, $4
       FROM decision_changes`,
      [context.by, decidedAt, context.source, signer?.fingerprint ?? null],
    );
    await warehouse.run(
      `UPDATE recon_exceptions SET decision = c.decision, decision_note = c.note, owner = c.owner,
              expected_clear_by = c.expected_clear_by::DATE, decided_by = $1, decided_at = $2::TIMESTAMPTZ,
              decision_sha256 = c.row_sha256
       FROM decision_changes c WHERE recon_exceptions.finding_id = c.finding_id AND recon_exceptions.period = c.period`,
      [context.by, decidedAt],
    );
    // Issue 30: a later period's carried-forward rows of these findings follow the decision at once.
    await refreshCarriedForward(warehouse, { findingsIn: 'decision_changes' });
    await warehouse.run('DROP TABLE decision_changes');
  });
}
