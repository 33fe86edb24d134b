/**
 * An action is bound to the decision it was planned from (issue 28): `recon_actions.decision_sha256` holds that
 * `recon_decisions.row_sha256`. `execute` and `export` call `cancelIfUnbound` inside the transaction that marks
 * the action in flight or exported: when the finding's current decision is another row, the action is canceled
 * with the reason, and the caller makes no provider call and writes no file line for it.
 */
import type { Warehouse } from '../../core/warehouse.js';
import { changeStatus, type ActionStatus } from './store.js';

/** The action's binding as stored; `decided_at` identifies the decision of an action planned before the binding. */
export interface BoundAction {
  action_id: string;
  period: string;
  finding_id: string;
  status: ActionStatus;
  decision: string | null;
  decided_at: string | null;
}

/**
 * Why the action no longer carries its finding's current decision, or null while it still does. An action
 * planned before decision_sha256 existed is compared by its decision's decided_at (the row it was planned from).
 */
export async function unboundReason(warehouse: Warehouse, action: BoundAction): Promise<string | null> {
  const row = await warehouse.one<{
    bound: string | null;
    bound_at: string | null;
    current: string | null;
    current_at: string | null;
    decision: string | null;
    decided_by: string | null;
  }>(
    `SELECT a.decision_sha256 AS bound, a.decided_at::VARCHAR AS bound_at, d.row_sha256 AS current,
            d.decided_at::VARCHAR AS current_at, d.decision, d.decided_by
     FROM recon_actions a
     LEFT JOIN recon_decisions d ON d.finding_id = a.finding_id AND d.period = a.period AND d.superseded_at IS NULL
     WHERE a.action_id = $1`,
    [action.action_id],
  );
  if (!row) return `action ${action.action_id} is no longer in recon_actions`;
  if (row.current === null && row.current_at === null)
    return (
      `the finding ${action.finding_id} has no current decision any more ` +
      `(planned from ${action.decision ?? 'a decision'})`
    );
  if (sameDecision({ decision_sha256: row.bound, decided_at: row.bound_at }, row.current, row.current_at)) return null;
  return (
    `the finding's decision changed since the action was planned: it is now ${row.decision} by ${row.decided_by} ` +
    `at ${row.current_at} (planned from ${action.decision ?? 'another decision'}` +
    `${row.bound ? ` ${row.bound.slice(0, 12)}…` : ''})`
  );
}

/**
 * Whether an action still carries the decision row `currentSha256` (decided at `currentAt`): by the row's hash, or
 * for an action planned before decision_sha256 existed, by its decision's time. Plan, execute and export share it.
 */
export function sameDecision(
  action: { decision_sha256: string | null; decided_at: string | null },
  currentSha256: string | null,
  currentAt: string | null,
): boolean {
  return action.decision_sha256 !== null ? action.decision_sha256 === currentSha256 : action.decided_at === currentAt;
}

/**
 * Inside the caller's transaction: cancels the action when its decision is no longer the finding's current one
 * (an event with the reason) and returns the reason; null when the action may go ahead.
 */
export async function cancelIfUnbound(warehouse: Warehouse, action: BoundAction, by: string): Promise<string | null> {
  const reason = await unboundReason(warehouse, action);
  if (reason === null) return null;
  await changeStatus(warehouse, action.action_id, action.status, 'canceled', by, `canceled: ${reason}`, {
    error: reason,
  });
  return reason;
}
