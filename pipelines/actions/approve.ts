/**
 * `actions approve`: maker-checker (issue 28). An action is approved by a second person: never by the one who
 * decided its finding or planned it (names compared with `sameName`); above `actions.approvalLimit` of its currency
 * (ISO upper case), or in a currency with no limit (fail closed, issue 34), only by one of `actions.approvers`. All
 * or nothing: when any named action cannot be approved by this person, none is (exit 1), saying which and why.
 */
import type { Config } from '../../config/schema.js';
import { JobError, UsageError } from '../../core/errors.js';
import { sameName } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';
import { recordRun } from '../../core/run-trace.js';
import { typedActor, type Actor } from '../people/actor.js';
import { aboveLimit, approvalPolicy, isoCurrency, recordPolicy, type ApprovalPolicy } from '../people/policy.js';
import { actionsOf, changeStatus, checkPeriod, type StoredAction } from './store.js';

export interface ApproveSummary {
  runId: string;
  period: string;
  approvedBy: string;
  /** sha256 of the approval policy in force, recorded on each approval event (approval_policies). */
  policySha256: string;
  approved: { actionId: string; kind: string; amount: string | null; currency: string | null }[];
}

export async function approveActions(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; actionIds?: string[]; all?: boolean; by?: string; actor?: Actor },
): Promise<ApproveSummary> {
  const period = checkPeriod(options.period);
  const actor = options.actor ?? typedActor(options.by);
  const by = actor.name;
  const policy = approvalPolicy(config);
  if (!options.all && (options.actionIds?.length ?? 0) === 0) {
    throw new UsageError(
      'Name the actions to approve (--action ID…) or give --all (every proposed action of the period).',
    );
  }
  if (options.all && (options.actionIds?.length ?? 0) > 0)
    throw new UsageError('Give either --action ID… or --all, not both.');
  const args = {
    period,
    actionIds: options.actionIds ?? null,
    all: Boolean(options.all),
    by,
    attested: actor.attested,
    policySha256: policy.sha256,
  };
  return recordRun(warehouse, 'actions approve', args, async (run) => {
    const actions = options.all
      ? await actionsOf(warehouse, period, `status = 'proposed'`)
      : await named(warehouse, period, options.actionIds!);
    const refusals = actions.flatMap((action) => {
      const reason = refusal(action, by, config, policy);
      return reason ? [`  ${action.action_id}: ${reason}`] : [];
    });
    if (refusals.length > 0) {
      throw new JobError(
        `${by} cannot approve ${refusals.length} of the ${actions.length} action(s); nothing was ` +
          `approved:\n${refusals.join('\n')}`,
        'Maker-checker: a second person approves (not the one who decided the finding or planned the action); ' +
          'above actions.approvalLimit of its currency, or in a currency with no limit, one of actions.approvers. ' +
          'Approve the others by naming them with --action, or have the right person approve.',
      );
    }
    const now = new Date().toISOString();
    await warehouse.transaction(async () => {
      await recordPolicy(warehouse, policy);
      const attest = { signer: actor.signer, policySha256: policy.sha256 };
      for (const action of actions) {
        const fields = { approved_by: by, approved_at: now };
        await changeStatus(warehouse, action.action_id, 'proposed', 'approved', by, null, fields, attest);
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
    return { runId: run.runId, period, approvedBy: by, policySha256: policy.sha256, approved };
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
function refusal(action: StoredAction, by: string, config: Config, policy: ApprovalPolicy): string | undefined {
  if (action.status !== 'proposed') return `it is ${action.status}, not proposed`;
  if (sameName(action.decided_by, by))
    return `${by} decided its finding (${action.decision}); another person must approve it`;
  if (sameName(action.proposed_by, by)) return `${by} planned it; another person must approve it`;
  const listed = config.actions.approvers.some((name) => sameName(name, by));
  if (listed) return undefined;
  const who = config.actions.approvers.join(', ') || 'no one (actions.approvers is empty)';
  const currency = isoCurrency(action.currency_code);
  const limit = currency === null ? undefined : policy.limits.get(currency);
  if (limit === undefined) {
    const which = currency === null ? 'it has no currency' : `no actions.approvalLimit.${currency} is configured`;
    return `${which}, so only actions.approvers may approve it (fail closed): ${who}`;
  }
  if (aboveLimit(action.amount, limit)) {
    return (
      `${action.amount} ${currency} is above actions.approvalLimit.${currency} (${limit}): ` +
      `only ${who} may approve it`
    );
  }
  return undefined;
}
