/**
 * `actions plan`: turns the period's current decisions into proposed actions (README "Acting on findings").
 * `reverse` on a finding whose provider sale is not canceled → a `reversal` of that transaction (a
 * duplicate_reference: each of its sales after the first one not canceled); `claim` → a `claim` line;
 * `fix_ledger` and `write_off` → a `journal` entry. Planning again is idempotent: a finding has at most one
 * open action of each kind and transaction, and a proposal whose decision changed (or whose finding is gone)
 * is canceled — only while it is still proposed or approved: what is in flight or done stays as it is.
 */
import type { Config } from '../../config/schema.js';
import { sqlString } from '../../core/sql.js';
import { findingTypeInSql, findingTypesWhere } from '../../core/finding-types.js';
import type { Warehouse } from '../../core/warehouse.js';
import { recordRun } from '../../core/run-trace.js';
import { typedActor, type Actor } from '../people/actor.js';
import { sameDecision } from './binding.js';
import {
  actionsOf,
  appendEvent,
  changeStatus,
  checkPeriod,
  nextActionIds,
  type ActionKind,
  type StoredAction,
} from './store.js';

/** Finding types whose sale a `reverse` decision can reverse: the registry's `reverses` (issue 27). */
const reversibleTypes = findingTypesWhere((row) => row.reverses !== null);
/** Those whose later sales of the same reference a `reverse` reverses as well (a duplicate keeps its first sale). */
const laterDuplicateTypes = findingTypesWhere((row) => row.reverses === 'its_sale_and_later_duplicates');

/** An action the current decisions call for. */
type Wanted = {
  finding_id: string;
  kind: ActionKind;
  transaction_id: string | null;
  partner_reference: string | null;
  amount: string | null;
  currency_code: string | null;
  decision: string;
  decided_by: string;
  decided_at: string;
  exception_type: string;
  note: string | null;
  /** The decision row it is planned from (recon_decisions.row_sha256): execute and export re-check it (issue 28). */
  decision_sha256: string | null;
};

export interface ProposedAction {
  actionId: string;
  kind: ActionKind;
  findingId: string;
  transactionId: string | null;
  amount: string | null;
  currency: string | null;
}

export interface PlanSummary {
  runId: string;
  period: string;
  proposed: ProposedAction[];
  /** Open actions the current decisions still call for. */
  unchanged: number;
  canceled: { actionId: string; reason: string }[];
  /** `reverse` decisions no reversal can carry out, and why. */
  skipped: { findingId: string; reason: string }[];
}

/** Statuses that hold a finding's place: no second action of the same kind and transaction is planned beside them. */
const holding = ['proposed', 'approved', 'in_flight', 'executed', 'verified'];

export async function planActions(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; by?: string; actor?: Actor },
): Promise<PlanSummary> {
  const period = checkPeriod(options.period);
  // Who plans (issue 28): the key's person when people are configured, and each event signed with the key.
  const actor = options.actor ?? typedActor(options.by);
  const by = actor.name;
  const attest = { signer: actor.signer };
  return recordRun(warehouse, 'actions plan', { period, by, attested: actor.attested }, async (run) => {
    const canceledStatuses = Object.entries(config.reconciliation.statusMap)
      .filter(([, statusClass]) => statusClass === 'canceled')
      .map(([status]) => sqlString(status.trim()));
    const isCanceled = (alias: string) =>
      `coalesce(${alias}.status_class = 'canceled', false) OR trim(${alias}.status) IN ` +
      `(${canceledStatuses.join(', ') || 'NULL'})`;
    const wanted = await warehouse.all<Wanted>(wantedSql(isCanceled), [period]);
    const skipped = await warehouse.all<{ finding_id: string; reason: string }>(skippedSql(isCanceled), [period]);
    const open = await actionsOf(warehouse, period, `status IN (${holding.map(sqlString).join(', ')})`);

    const key = (a: { finding_id: string; kind: string; transaction_id: string | null }) =>
      `${a.finding_id}|${a.kind}|${a.transaction_id ?? ''}`;
    const wantedByKey = new Map(wanted.map((w) => [key(w), w]));
    const summary: PlanSummary = {
      runId: run.runId,
      period,
      proposed: [],
      unchanged: 0,
      canceled: [],
      skipped: skipped.map((s) => ({ findingId: s.finding_id, reason: s.reason })),
    };
    const toCancel: { action: StoredAction; reason: string }[] = [];
    const held = new Set<string>();
    for (const action of open) {
      const w = wantedByKey.get(key(action));
      const cancelable = action.status === 'proposed' || action.status === 'approved';
      // The same decision (same row of recon_decisions, by its hash: issue 28) still stands: the action stays.
      if (w && sameDecision(action, w.decision_sha256, w.decided_at)) {
        held.add(key(action));
        summary.unchanged++;
      } else if (cancelable) {
        const reason = w
          ? `the decision was recorded again (${w.decision} by ${w.decided_by} at ${w.decided_at})`
          : await whyGone(warehouse, action);
        toCancel.push({ action, reason });
      } else held.add(key(action)); // in flight or done: never undone by a plan
    }
    const fresh = wanted.filter((w) => !held.has(key(w)));
    const ids = await nextActionIds(warehouse, period, fresh.length);
    const now = new Date().toISOString();
    await warehouse.transaction(async () => {
      for (const { action, reason } of toCancel) {
        await changeStatus(warehouse, action.action_id, action.status, 'canceled', by, reason, {}, attest);
        summary.canceled.push({ actionId: action.action_id, reason });
      }
      for (const [i, w] of fresh.entries()) {
        const actionId = ids[i]!;
        await warehouse.run(
          `INSERT INTO recon_actions (action_id, period, finding_id, kind, transaction_id, partner_reference, amount,
             currency_code, status, proposed_by, proposed_at, decision, decided_by, decided_at, exception_type, note,
             decision_sha256)
           VALUES ($1, $2, $3, $4, $5::BIGINT, $6, $7::DECIMAL(18,4), $8, 'proposed', $9, $10::TIMESTAMPTZ, $11, $12,
                   $13::TIMESTAMPTZ, $14, $15, $16)`,
          [
            actionId,
            period,
            w.finding_id,
            w.kind,
            w.transaction_id,
            w.partner_reference,
            w.amount,
            w.currency_code,
            by,
            now,
            w.decision,
            w.decided_by,
            w.decided_at,
            w.exception_type,
            w.note,
            w.decision_sha256,
          ],
        );
        const detail = `${w.decision} decided by ${w.decided_by} at ${w.decided_at}`;
        await appendEvent(warehouse, { actionId, at: now, by, from: null, to: 'proposed', detail, ...attest });
        summary.proposed.push({
          actionId,
          kind: w.kind,
          findingId: w.finding_id,
          transactionId: w.transaction_id,
          amount: w.amount,
          currency: w.currency_code,
        });
      }
    });
    run.counters.rowsLoaded = summary.proposed.length;
    const { proposed, canceled, unchanged, skipped: skippedReverses } = summary;
    run.details = { proposed: proposed.length, canceled: canceled.length, unchanged, skipped: skippedReverses.length };
    return summary;
  });
}

/** Why an open action no longer has its decision: the finding's decision now, or the finding is gone. */
async function whyGone(warehouse: Warehouse, action: StoredAction): Promise<string> {
  const now = await warehouse.one<{ decision: string | null }>(
    `SELECT decision FROM recon_exceptions WHERE finding_id = $1 AND period = $2`,
    [action.finding_id, action.period],
  );
  if (!now) return 'the finding is no longer open (cleared by a later reconcile)';
  return `the decision changed from ${action.decision} to ${now.decision ?? '(none)'}`;
}

/** The finding's current decision (recon_decisions) among the decisions that call for an action. */
const decidedFindings = `
  decided AS (
    SELECT e.finding_id, e.exception_type, e.partner_reference, e.transaction_id, e.difference, e.amount,
           e.currency_code, d.decision, d.decided_by, d.decided_at::VARCHAR AS decided_at, d.note,
           d.row_sha256 AS decision_sha256
    FROM recon_exceptions e
    JOIN recon_decisions d ON d.finding_id = e.finding_id AND d.period = e.period AND d.superseded_at IS NULL
    WHERE e.period = $1 AND d.decision IN ('reverse', 'claim', 'fix_ledger', 'write_off')
  )`;

/**
 * The sales a `reverse` decision reverses: the finding's own, or a duplicate reference's after the first one not
 * canceled.
 */
function reversalTargets(isCanceled: (alias: string) => string): string {
  return `
  own_sales AS (
    SELECT d.finding_id, s.transaction_id, s.partner_cost_price, s.sales_currency_code, ${isCanceled('s')} AS canceled
    FROM decided d JOIN sales s ON s.transaction_id = d.transaction_id
    WHERE d.decision = 'reverse' AND d.exception_type IN (${reversibleTypes.map(sqlString).join(', ')})
  ),
  duplicate_sales AS (
    SELECT d.finding_id, s.transaction_id, s.partner_cost_price, s.sales_currency_code, false AS canceled
    FROM decided d JOIN sales s ON trim(s.partner_reference) = d.partner_reference
    WHERE d.decision = 'reverse' AND ${findingTypeInSql('d.exception_type', laterDuplicateTypes)}
      AND NOT (${isCanceled('s')})
    QUALIFY row_number() OVER (PARTITION BY d.finding_id ORDER BY s.transaction_at NULLS LAST, s.transaction_id) > 1
  ),
  targets AS (SELECT * FROM own_sales UNION ALL SELECT * FROM duplicate_sales)`;
}

function wantedSql(isCanceled: (alias: string) => string): string {
  return `WITH ${decidedFindings}, ${reversalTargets(isCanceled)}
    SELECT d.finding_id, 'reversal' AS kind, t.transaction_id::VARCHAR AS transaction_id, d.partner_reference,
           t.partner_cost_price::VARCHAR AS amount, coalesce(t.sales_currency_code, d.currency_code) AS currency_code,
           d.decision, d.decided_by, d.decided_at, d.exception_type, d.note, d.decision_sha256
    FROM decided d JOIN targets t USING (finding_id) WHERE NOT t.canceled
    UNION ALL
    SELECT d.finding_id, 'claim', d.transaction_id::VARCHAR, d.partner_reference,
           coalesce(d.difference, d.amount)::VARCHAR, d.currency_code,
           d.decision, d.decided_by, d.decided_at, d.exception_type, d.note, d.decision_sha256
    FROM decided d WHERE d.decision = 'claim'
    UNION ALL
    SELECT d.finding_id, 'journal', d.transaction_id::VARCHAR, d.partner_reference,
           abs(coalesce(d.difference, d.amount))::VARCHAR, d.currency_code,
           d.decision, d.decided_by, d.decided_at, d.exception_type, d.note, d.decision_sha256
    FROM decided d WHERE d.decision IN ('fix_ledger', 'write_off')
    ORDER BY 1, 2, 3`;
}

function skippedSql(isCanceled: (alias: string) => string): string {
  return `WITH ${decidedFindings}, ${reversalTargets(isCanceled)}
    SELECT d.finding_id,
           CASE WHEN d.exception_type NOT IN (${reversibleTypes.map(sqlString).join(', ')})
                  THEN d.exception_type || ' is not about a provider sale that a reversal can cancel'
                WHEN NOT EXISTS (SELECT 1 FROM targets t WHERE t.finding_id = d.finding_id)
                  THEN 'no provider sale of this finding is left to reverse'
                ELSE 'the provider sale is already canceled' END AS reason
    FROM decided d
    WHERE d.decision = 'reverse'
      AND NOT EXISTS (SELECT 1 FROM targets t WHERE t.finding_id = d.finding_id AND NOT t.canceled)
    ORDER BY 1`;
}
