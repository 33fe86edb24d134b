/**
 * `actions approve`: maker-checker. An action is approved by a second person: never by the one who decided
 * its finding, and above `actions.approvalLimit` of its currency only by one of `actions.approvers`. The
 * approval is all or nothing: when any named action cannot be approved by this person, none is, and the
 * command says which and why (exit 1).
 */
import type { Config } from '../../config/schema.js';
import { JobError, UsageError } from '../../core/errors.js';
import type { Warehouse } from '../../core/warehouse.js';
import { recordRun } from '../../core/run-trace.js';
import { actionsOf, changeStatus, checkPeriod, type StoredAction } from './store.js';

export interface ApproveSummary {
  runId: string;
  period: string;
  approvedBy: string;
  approved: { actionId: string; kind: string; amount: string | null; currency: string | null }[];
}

export async function approveActions(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; actionIds?: string[]; all?: boolean; by: string },
): Promise<ApproveSummary> {
  const period = checkPeriod(options.period);
  if (!options.all && (options.actionIds?.length ?? 0) === 0) {
    throw new UsageError(
      'Name the actions to approve (--action ID…) or give --all (every proposed action of the period).',
    );
  }
  if (options.all && (options.actionIds?.length ?? 0) > 0)
    throw new UsageError('Give either --action ID… or --all, not both.');
  const args = { period, actionIds: options.actionIds ?? null, all: Boolean(options.all), by: options.by };
  return recordRun(warehouse, 'actions approve', args, async (run) => {
    const actions = options.all
      ? await actionsOf(warehouse, period, `status = 'proposed'`)
      : await named(warehouse, period, options.actionIds!);
    const refusals = actions.flatMap((action) => {
      const reason = refusal(action, options.by, config);
      return reason ? [`  ${action.action_id}: ${reason}`] : [];
    });
    if (refusals.length > 0) {
      throw new JobError(
        `${options.by} cannot approve ${refusals.length} of the ${actions.length} action(s); nothing was approved:\n${refusals.join('\n')}`,
        'Maker-checker: a second person approves (not the one who decided the finding); ' +
          'above actions.approvalLimit, one of actions.approvers. ' +
          'Approve the others by naming them with --action, or have the right person approve.',
      );
    }
    const now = new Date().toISOString();
    await warehouse.transaction(async () => {
      for (const action of actions) {
        const fields = { approved_by: options.by, approved_at: now };
        await changeStatus(warehouse, action.action_id, 'proposed', 'approved', options.by, null, fields);
      }
    });
    run.counters.rowsLoaded = actions.length;
    run.details = { approved: actions.map((a) => a.action_id) };
    const approved = actions.map((a) => ({
      actionId: a.action_id,
      kind: a.kind,
      amount: a.amount,
      currency: a.currency_code,
    }));
    return { runId: run.runId, period, approvedBy: options.by, approved };
  });
}

/** The named actions of the period; an id that is not one of them is bad usage. */
async function named(warehouse: Warehouse, period: string, ids: string[]): Promise<StoredAction[]> {
  const all = new Map((await actionsOf(warehouse, period)).map((a) => [a.action_id, a]));
  const unknown = ids.filter((id) => !all.has(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `No action ${unknown.join(', ')} in ${period} (see \`pinrecon actions list --period ${period}\`).`,
    );
  }
  return [...new Set(ids)].map((id) => all.get(id)!);
}

/** Why `by` may not approve `action`, or undefined. */
function refusal(action: StoredAction, by: string, config: Config): string | undefined {
  if (action.status !== 'proposed') return `it is ${action.status}, not proposed`;
  if (sameName(action.decided_by, by))
    return `${by} decided its finding (${action.decision}); another person must approve it`;
  const limit = action.currency_code ? config.actions.approvalLimit[action.currency_code] : undefined;
  const amount = Math.abs(Number(action.amount ?? 0));
  if (limit !== undefined && amount > limit && !config.actions.approvers.some((name) => sameName(name, by))) {
    const who = config.actions.approvers.join(', ') || '(no one: actions.approvers is empty)';
    const over = `${action.amount} ${action.currency_code} is above actions.approvalLimit.${action.currency_code} (${limit})`;
    return `${over}: only ${who} may approve it`;
  }
  return undefined;
}

/** Names compared as people type them: case and surrounding spaces aside. */
function sameName(a: string | null, b: string): boolean {
  return a !== null && a.trim().toLowerCase() === b.trim().toLowerCase();
}
