/**
 * `actions execute`: carries out the period's approved reversals through the provider, exactly once each (the
 * outbox pattern: intent first, effect second, read to settle). A sale that reads canceled is `verified` with no
 * call; otherwise the action is committed `in_flight` before the reversal is called, and the sale is read again
 * to settle it; a 400 is never retried. Every sale read is loaded into `sales` like a lookup's answer. Claims
 * and journal entries leave by `actions export`.
 */
import type { Config } from '../../config/schema.js';
import { ConfigError, JobError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import { PartnerApiClient, ProviderError } from '../../sources/partner-api/client.js';
import type { SalesRecord } from '../../sources/partner-api/types.js';
import type { SaleRead } from '../../sources/partner-api/client.js';
import { landAndLoadSales } from '../extract/lookup.js';
import { recordRun, type PipelineRun } from '../../core/run-trace.js';
import {
  actionsOf,
  appendEvent,
  changeStatus,
  checkPeriod,
  lastRequestAt,
  type ActionStatus,
  type StoredAction,
} from './store.js';
import { cancelIfUnbound } from './binding.js';
import { activeSignoff } from '../close/signoffs.js';

/** Who execute's own settling is attributed to when no --by is given. */
export const executeActor = 'pinrecon';
/** What an action failed on an answer about another sale says to do (issue 34). */
const foreignAnswerAdvice = 'The action is failed; read the sale at the provider before anything else.';

export interface ExecutedAction {
  actionId: string;
  transactionId: string;
  /**
   * verified | failed | canceled (its decision changed: issue 28) | in_flight (no clear answer yet: a later run
   * settles it, issue 34), or for a dry run what would happen.
   */
  outcome: 'verified' | 'failed' | 'canceled' | 'in_flight' | 'would_read_then_reverse';
  /** Whether "Reversal by transaction id" was called for it in this run. */
  reversalRequested: boolean;
  detail: string;
}

export interface ExecuteSummary {
  runId: string | null;
  period: string;
  dryRun: boolean;
  actions: ExecutedAction[];
  verified: number;
  failed: number;
  /** Canceled instead of executed: the finding's decision is no longer the one the action was planned from. */
  canceled: number;
  /** Left in flight: the reversal's outcome is not known yet (a later run reads the sale and settles it). */
  inFlight: number;
}

export async function executeActions(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; dryRun?: boolean; by?: string; client?: PartnerApiClient; afterSignoff?: boolean },
  output: Output,
): Promise<ExecuteSummary> {
  const period = checkPeriod(options.period);
  const by = options.by ?? executeActor;
  // An action left `executed` (killed before its read) is settled by reading its sale (issue 34).
  const pending = await actionsOf(
    warehouse,
    period,
    `kind = 'reversal' AND status IN ('approved', 'in_flight', 'executed')`,
  );
  if (options.dryRun) {
    return {
      runId: null,
      period,
      dryRun: true,
      verified: 0,
      failed: 0,
      canceled: 0,
      inFlight: 0,
      actions: pending.map((a) => ({
        actionId: a.action_id,
        transactionId: a.transaction_id!,
        outcome: 'would_read_then_reverse',
        reversalRequested: false,
        detail:
          a.status === 'executed'
            ? `the provider answered its reversal: would read sale ${a.transaction_id} to settle it, with no call`
            : (a.status === 'in_flight' ? 'left in flight by an interrupted execute: ' : '') +
              `would read sale ${a.transaction_id}; if it is canceled, verify with no call; else request its ` +
              `reversal, then read it again`,
      })),
    };
  }
  // Issue 28: money moved after a sign-off changes what was signed; only on purpose, and the next report says so.
  const signed = pending.length > 0 ? await activeSignoff(warehouse, period, config.timezone) : undefined;
  if (signed && !options.afterSignoff) {
    throw new JobError(
      `The period ${period} is signed off by ${signed.signedBy} at ${signed.signedAtZoned}: its ${pending.length} ` +
        `approved reversal(s) are not executed.`,
      `To execute them after the sign-off (the next report says the period changed since it), pass --after-signoff; ` +
        `or reopen it first: pinrecon reopen --period ${period} --by NAME --reason TEXT`,
    );
  }
  if (pending.length > 0 && !options.client && !(config.api.identifier && config.api.secret)) {
    throw new ConfigError(
      'actions execute calls the provider, but no API credentials are configured ' +
        '(api.identifier / api.secret, or PINRECON_API_IDENTIFIER / PINRECON_API_SECRET).',
    );
  }
  return recordRun(warehouse, 'actions execute', { period, by }, async (run) => {
    const summary: ExecuteSummary = {
      runId: run.runId,
      period,
      dryRun: false,
      actions: [],
      verified: 0,
      failed: 0,
      canceled: 0,
      inFlight: 0,
    };
    if (pending.length === 0) return summary;
    const client = options.client ?? new PartnerApiClient(config.api);
    const before = { ...client.stats };
    try {
      for (const action of pending) {
        const requested = { reversal: false };
        let done: ExecutedAction;
        try {
          done = await executeOne(warehouse, config, client, action, by, run, output, requested);
        } catch (error) {
          // Issue 34: one action's failure (an unreadable sale, an id the provider refuses) does not stop the others;
          // its state stays where it was (in flight: the next run reads the sale first).
          const detail = `not settled: ${(error as Error).message}`;
          output.warn(`${action.action_id}: sale ${action.transaction_id} ${detail}`);
          done = {
            actionId: action.action_id,
            transactionId: action.transaction_id!,
            outcome: 'failed',
            reversalRequested: requested.reversal,
            detail,
          };
        }
        summary.actions.push(done);
        if (done.outcome === 'in_flight') summary.inFlight++;
        else summary[done.outcome === 'verified' || done.outcome === 'canceled' ? done.outcome : 'failed']++;
      }
    } finally {
      run.counters.requests += client.stats.requests - before.requests;
      run.counters.retries += client.stats.retries - before.retries;
      run.counters.rateLimited += client.stats.rateLimited - before.rateLimited;
      if (!options.client) client.close();
      const outcomes = summary.actions.map((a) => `${a.actionId} ${a.outcome}`);
      run.details = {
        verified: summary.verified,
        failed: summary.failed,
        canceled: summary.canceled,
        inFlight: summary.inFlight,
        actions: outcomes,
      };
    }
    run.counters.rowsLoaded = summary.actions.length;
    return summary;
  });
}

async function executeOne(
  warehouse: Warehouse,
  config: Config,
  client: PartnerApiClient,
  action: StoredAction,
  by: string,
  run: PipelineRun,
  output: Output,
  requested: { reversal: boolean },
): Promise<ExecutedAction> {
  // Exact digits (BIGINT read as text): an id above 2^53 is never rounded into another sale's (issue 34).
  const transactionId = action.transaction_id!;
  const interrupted = action.status === 'in_flight';
  const answered = action.status === 'executed';
  let reads = 0;
  const readSale = async () => readAndStoreSale(warehouse, config, client, action, run, ++reads);
  const result = (outcome: ExecutedAction['outcome'], reversalRequested: boolean, detail: string): ExecutedAction => {
    output.info(`${action.action_id}: sale ${action.transaction_id} ${outcome}: ${detail}`);
    return { actionId: action.action_id, transactionId: action.transaction_id!, outcome, reversalRequested, detail };
  };

  // 0. Issue 28: an approved action whose finding was decided again since it was planned is canceled, unread.
  if (!interrupted && !answered) {
    const stale = await warehouse.transaction(() => cancelIfUnbound(warehouse, action, by));
    if (stale !== null) return result('canceled', false, `canceled, no call: ${stale}`);
  }

  // 1. Read first: a sale already canceled (by us before a crash, or by anyone) is never reversed again.
  const read = await readSale();
  const first = read.sale?.record;
  if (!first) {
    // Issue 34: an answer about another sale is not this sale's (a canceled one would have "verified" it).
    const detail =
      read.foreignIds.length > 0
        ? `the provider answered with another transaction (${read.foreignIds.join(', ')}) ` +
          `when asked for ${transactionId}: not taken as this sale, nothing requested`
        : `the provider does not know transaction ${transactionId}`;
    await changeStatus(warehouse, action.action_id, action.status, 'failed', by, detail, {
      error: detail,
      provider_status: null,
    });
    return result('failed', false, detail);
  }
  if (isCanceled(first, config)) {
    const detail = answered
      ? `settled: the provider had answered the reversal, and the sale reads "${first.status}"`
      : interrupted
        ? `settled after an interrupted execute: the sale reads "${first.status}", ` +
          `so the earlier request took effect; no second reversal`
        : `the sale already reads "${first.status}": no reversal requested`;
    const fields = { provider_status: first.status, verified_at: new Date().toISOString() };
    await changeStatus(warehouse, action.action_id, action.status, 'verified', by, detail, fields);
    return result('verified', false, detail);
  }
  if (answered) {
    // The provider said it reversed the sale, which still reads live: a second request is not the answer.
    const detail = `the provider answered the reversal, but the sale still reads "${first.status}": no second request`;
    await changeStatus(warehouse, action.action_id, 'executed', 'failed', by, detail, {
      provider_status: first.status,
      error: detail,
    });
    return result('failed', false, detail);
  }
  if (interrupted && action.error !== null) {
    // Refused before (step 3 kept it in `error`; its settling read failed): a 400 is never retried (issue 34).
    const detail = `${action.error}; the sale still reads "${first.status}": not requested again`;
    const fields = { provider_status: first.status, error: detail };
    await changeStatus(warehouse, action.action_id, 'in_flight', 'failed', by, detail, fields);
    return result('failed', false, detail);
  }
  if (interrupted) {
    // Issue 34: asked again only after actions.resendAfterSeconds since the last request (it may still be processing).
    const last = await lastRequestAt(warehouse, action.action_id);
    const waitMs = config.actions.resendAfterSeconds * 1000;
    if (last && Date.now() - last.getTime() < waitMs) {
      const after = new Date(last.getTime() + waitMs).toISOString();
      return result(
        'in_flight',
        false,
        `the sale still reads "${first.status}"; its reversal was last requested at ${last.toISOString()}: not ` +
          `requested again before ${after} (actions.resendAfterSeconds)`,
      );
    }
  }

  // 2. Intent, committed before the call: a crash from here on leaves `in_flight`, which step 1 settles. The
  // binding is checked again in the same transaction (issue 28): no reversal against a decision taken since.
  const stale = await warehouse.transaction(async () => {
    const reason = await cancelIfUnbound(warehouse, action, by);
    if (reason === null) await markInFlight(warehouse, action, first.status, by);
    return reason;
  });
  if (stale !== null) {
    const why = interrupted ? `the sale still reads "${first.status}" and ${stale}` : stale;
    return result('canceled', false, `canceled, no reversal requested: ${why}`);
  }

  // 3. The call, once (never retried, issue 34). A refusal is recorded; reading the sale settles it. No clear
  // answer leaves it in flight; an answer about another sale fails it.
  let status: ActionStatus = 'in_flight';
  let message: string;
  let unclear = false;
  requested.reversal = true;
  try {
    const answer = await client.reverseByTransactionId(transactionId);
    message = answer.message;
    const detail = `provider answered: ${answer.status} — ${answer.message}`;
    await changeStatus(warehouse, action.action_id, 'in_flight', 'executed', by, detail, {
      executed_at: new Date().toISOString(),
      provider_status: answer.status,
      provider_message: answer.message,
    });
    status = 'executed';
  } catch (error) {
    if (error instanceof ProviderError && error.foreign) {
      const detail = `anomaly: ${error.message} ${foreignAnswerAdvice}`;
      await changeStatus(warehouse, action.action_id, 'in_flight', 'failed', by, detail, { error: detail });
      return result('failed', true, detail);
    }
    const refused =
      error instanceof ProviderError &&
      !error.unclear &&
      error.status !== undefined &&
      error.status >= 400 &&
      error.status < 500;
    message = error instanceof ProviderError ? (error.body ?? error.message) : (error as Error).message;
    if (!refused) {
      unclear = true;
      await appendEvent(warehouse, {
        actionId: action.action_id,
        by,
        from: 'in_flight',
        to: 'in_flight',
        detail: `no clear answer to the reversal request: ${(error as Error).message}`,
      });
    } else {
      const detail = `provider refused (${(error as ProviderError).status}): ${message}`;
      await warehouse.transaction(async () => {
        await warehouse.run(`UPDATE recon_actions SET provider_message = $2, error = $3 WHERE action_id = $1`, [
          action.action_id,
          message,
          detail,
        ]);
        await appendEvent(warehouse, { actionId: action.action_id, by, from: 'in_flight', to: 'in_flight', detail });
      });
    }
  }

  // 4. Read again: the sale's status, not the answer, says whether it is reversed.
  const after = (await readSale()).sale?.record;
  if (after && isCanceled(after, config)) {
    const detail = `the sale now reads "${after.status}"`;
    const fields = { provider_status: after.status, verified_at: new Date().toISOString() };
    await changeStatus(warehouse, action.action_id, status, 'verified', by, detail, fields);
    return result('verified', true, detail);
  }
  if (unclear) {
    const detail =
      `no clear answer to the reversal (${message}); the sale still reads "${after?.status ?? '(not found)'}": ` +
      `left in flight; a later run reads it again and requests it again only if it is still live, ` +
      `not before ${config.actions.resendAfterSeconds} s (actions.resendAfterSeconds)`;
    return result('in_flight', true, detail);
  }
  const detail =
    `the sale still reads "${after?.status ?? '(not found)'}" after the reversal was requested; ` +
    `provider said: ${message}`;
  await changeStatus(warehouse, action.action_id, status, 'failed', by, detail, {
    provider_status: after?.status ?? null,
    error: detail,
  });
  return result('failed', true, detail);
}

/** Reads one sale at the provider and stores it in `sales` as a lookup's answer would be (landed first). */
async function readAndStoreSale(
  warehouse: Warehouse,
  config: Config,
  client: PartnerApiClient,
  action: StoredAction,
  run: PipelineRun,
  readNumber: number,
): Promise<SaleRead> {
  let read: SaleRead;
  try {
    read = await client.readSale(action.transaction_id!);
  } catch (error) {
    throw new JobError(
      `Reading sale ${action.transaction_id} (action ${action.action_id}) at the provider failed: ` +
        `${(error as Error).message}`,
      `Nothing was requested for it in this step. ` +
        `Re-run \`pinrecon actions execute --period ${action.period}\` when the provider answers again.`,
      { cause: error },
    );
  }
  // Only the record of the sale asked is stored: a foreign record is never loaded as a sale (issue 34).
  if (read.sale) {
    await landAndLoadSales(warehouse, config, [read.sale.raw], {
      runId: run.runId,
      endpoint: 'salesByTransactionId',
      // Named by the period like a lookup's batch: `extract --from-landing` of that month reloads it.
      file: `by-transaction_${action.period}_${action.action_id}_${run.runId}_${readNumber}`,
    });
  }
  return read;
}

function isCanceled(sale: SalesRecord, config: Config): boolean {
  const mapped = Object.entries(config.reconciliation.statusMap).find(
    ([status]) => status.trim() === sale.status.trim(),
  )?.[1];
  return mapped === 'canceled';
}

/** Records the intent before the call: approved → in_flight, or an event that an interrupted one is asked again. */
async function markInFlight(warehouse: Warehouse, action: StoredAction, saleStatus: string, by: string): Promise<void> {
  if (action.status === 'in_flight') {
    await appendEvent(warehouse, {
      actionId: action.action_id,
      by,
      from: 'in_flight',
      to: 'in_flight',
      detail:
        `after an interrupted execute the sale still reads "${saleStatus}": ` +
        `the reversal did not take effect; requesting it again`,
    });
  } else {
    const detail = `sale reads "${saleStatus}": requesting its reversal`;
    await changeStatus(warehouse, action.action_id, 'approved', 'in_flight', by, detail, {
      provider_status: saleStatus,
    });
  }
}
