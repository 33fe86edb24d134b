/**
 * The actions of a period as stored (README "Acting on findings"): `recon_actions` holds each action's state, and
 * every change of state is also appended to `recon_action_events` in the same transaction, with who and why.
 * The verbs (plan, approve, execute, export) change actions only through `changeStatus` and `insertAction`.
 */
import type { KeyObject } from 'node:crypto';
import {
  actionEventChainHead,
  actionEventSha256,
  canonicalActionEvent,
  type ChainedActionEvent,
} from '../../core/action-event-chain.js';
import { canonicalTimestamp } from '../../core/decision-chain.js';
import { JobError, UsageError } from '../../core/errors.js';
import { signCanonical } from '../../core/signatures.js';
import type { Params, Warehouse } from '../../core/warehouse.js';

export const actionKinds = ['reversal', 'claim', 'journal'] as const;
export type ActionKind = (typeof actionKinds)[number];

export const actionStatuses = [
  'proposed',
  'approved',
  'in_flight',
  'executed',
  'verified',
  'failed',
  'canceled',
] as const;
export type ActionStatus = (typeof actionStatuses)[number];

/** An action as the verbs read it (money as exact decimal text). */
export type StoredAction = {
  action_id: string;
  period: string;
  finding_id: string;
  kind: ActionKind;
  transaction_id: string | null;
  partner_reference: string | null;
  amount: string | null;
  currency_code: string | null;
  status: ActionStatus;
  decision: string | null;
  decided_by: string | null;
  decided_at: string | null;
  /** The recon_decisions row it was planned from (issue 28); null for an action planned before the binding. */
  decision_sha256: string | null;
  exception_type: string | null;
  note: string | null;
  proposed_by: string;
  approved_by: string | null;
  provider_status: string | null;
  provider_message: string | null;
  error: string | null;
};

const selected = `action_id, period, finding_id, kind, transaction_id::VARCHAR AS transaction_id, partner_reference,
  amount::VARCHAR AS amount, currency_code, status, decision, decided_by, decided_at::VARCHAR AS decided_at,
  decision_sha256, exception_type, note, proposed_by, approved_by, provider_status, provider_message, error`;

export async function actionsOf(
  warehouse: Warehouse,
  period: string,
  where = 'true',
  params: unknown[] = [],
): Promise<StoredAction[]> {
  return warehouse.all<StoredAction>(
    `SELECT ${selected} FROM recon_actions WHERE period = $1 AND (${where}) ORDER BY action_id`,
    [period, ...params] as Params,
  );
}

export async function actionById(warehouse: Warehouse, actionId: string): Promise<StoredAction | undefined> {
  return warehouse.one<StoredAction>(`SELECT ${selected} FROM recon_actions WHERE action_id = $1`, [actionId]);
}

/** Columns a status change may set beside the status. */
export interface StatusFields {
  approved_by?: string;
  approved_at?: string;
  executed_at?: string;
  verified_at?: string;
  provider_status?: string | null;
  provider_message?: string | null;
  error?: string | null;
}

/**
 * Moves one action from `from` to `to`, setting `fields`, and appends the event (signed by `attest.signer`
 * when given) — in the caller's transaction if there is one. Fails when the action is no longer in `from` (someone else
 * moved it): nothing is changed.
 */
export async function changeStatus(
  warehouse: Warehouse,
  actionId: string,
  from: ActionStatus,
  to: ActionStatus,
  by: string,
  detail: string | null,
  fields: StatusFields = {},
  attest: { signer?: EventSigner | null; policySha256?: string | null } = {},
): Promise<void> {
  const now = new Date().toISOString();
  const entries = Object.entries(fields);
  const sets = entries.map(([column, value], i) => {
    const cast = column.endsWith('_at') && value !== null ? '::TIMESTAMPTZ' : '';
    return `${column} = $${i + 4}${cast}`;
  });
  const changed = await warehouse.all<{ action_id: string; period: string }>(
    `UPDATE recon_actions SET ${['status = $2', ...sets].join(', ')} WHERE action_id = $1 AND status = $3
     RETURNING action_id, period`,
    [actionId, to, from, ...entries.map(([, value]) => value ?? null)] as Params,
  );
  if (changed.length === 0) {
    const now = await actionById(warehouse, actionId);
    throw new JobError(
      `Action ${actionId} is ${now ? `"${now.status}"` : 'not in the database'}, not "${from}": ` +
        `it was changed by someone else meanwhile.`,
      'Run `pinrecon actions list` to see where it stands, then try again.',
    );
  }
  await appendEvent(warehouse, { actionId, period: changed[0]!.period, at: now, by, from, to, detail, ...attest });
}

/** Who signs an event: the key of the person acting (people configured), else nothing. */
export interface EventSigner {
  privateKey: KeyObject;
  fingerprint: string;
}

/**
 * Appends one event, linked into its period's chain (core/action-event-chain.ts) and, when `signer` is given,
 * signed over the same canonical bytes; in the caller's transaction if there is one.
 */
export async function appendEvent(
  warehouse: Warehouse,
  event: {
    actionId: string;
    at?: string;
    by: string;
    from: ActionStatus | null;
    to: ActionStatus;
    detail: string | null;
    signer?: EventSigner | null;
    policySha256?: string | null;
    /** The action's period, when the caller knows it (else read). */
    period?: string;
  },
): Promise<void> {
  const period = event.period ?? (await periodOfAction(warehouse, event.actionId));
  const head = await actionEventChainHead(warehouse, period);
  const chained: ChainedActionEvent = {
    period,
    chainPosition: head.position + 1,
    actionId: event.actionId,
    at: canonicalTimestamp(event.at ? new Date(event.at) : new Date()),
    by: event.by,
    fromStatus: event.from,
    toStatus: event.to,
    detail: event.detail,
    policySha256: event.policySha256 ?? null,
    prevSha256: head.sha256,
  };
  const signature = event.signer ? signCanonical(event.signer.privateKey, canonicalActionEvent(chained)) : null;
  await warehouse.run(
    `INSERT INTO recon_action_events (action_id, "at", "by", from_status, to_status, detail, period, chain_position,
       prev_sha256, row_sha256, policy_sha256, signature, signer_key_sha256)
     VALUES ($1, $2::TIMESTAMPTZ, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      event.actionId,
      chained.at,
      event.by,
      event.from,
      event.to,
      event.detail,
      period,
      chained.chainPosition,
      chained.prevSha256,
      actionEventSha256(chained),
      chained.policySha256,
      signature,
      event.signer ? event.signer.fingerprint : null,
    ],
  );
}

/**
 * When the reversal was last requested, or later: the latest event into in_flight (the intent before a request,
 * or its unclear or refused answer after it), read from the status, not the event's words (issue 34).
 */
export async function lastRequestAt(warehouse: Warehouse, actionId: string): Promise<Date | undefined> {
  const row = await warehouse.one<{ at: string | null }>(
    `SELECT strftime(max("at") AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS at FROM recon_action_events
     WHERE action_id = $1 AND to_status = 'in_flight'`,
    [actionId],
  );
  return row?.at ? new Date(row.at) : undefined;
}

/** The period an action belongs to (its events are chained per period). */
async function periodOfAction(warehouse: Warehouse, actionId: string): Promise<string> {
  const row = await warehouse.one<{ period: string }>('SELECT period FROM recon_actions WHERE action_id = $1', [
    actionId,
  ]);
  if (!row) throw new JobError(`Action ${actionId} is not in the database.`, 'Run `pinrecon actions list` to see it.');
  return row.period;
}

/** The next free action ids of a period: A-<period>-0001, A-<period>-0002, … (readable, typeable, in plan order). */
export async function nextActionIds(warehouse: Warehouse, period: string, count: number): Promise<string[]> {
  const row = await warehouse.one<{ last: number | null }>(
    `SELECT max(TRY_CAST(split_part(action_id, '-', 4) AS INTEGER)) AS last FROM recon_actions WHERE period = $1`,
    [period],
  );
  const last = Number(row?.last ?? 0);
  return Array.from({ length: count }, (_, i) => `A-${period}-${String(last + i + 1).padStart(4, '0')}`);
}

export function checkPeriod(period: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period))
    throw new UsageError(`--period must be a month written YYYY-MM, got "${period}".`);
  return period;
}

export function isActionStatus(text: string): text is ActionStatus {
  return (actionStatuses as readonly string[]).includes(text);
}

/** An action as `actions list` shows it. */
export type ListedAction = {
  action_id: string;
  kind: string;
  status: string;
  finding_id: string;
  exception_type: string | null;
  decision: string | null;
  decided_by: string | null;
  transaction_id: string | null;
  partner_reference: string | null;
  currency_code: string | null;
  amount: string | null;
  proposed_by: string;
  approved_by: string | null;
  provider_status: string | null;
  provider_message: string | null;
  error: string | null;
};

/** `actions list --period P [--status S]`. */
export async function listActions(
  warehouse: Warehouse,
  options: { period: string; status?: string },
): Promise<ListedAction[]> {
  const period = checkPeriod(options.period);
  if (options.status !== undefined && !isActionStatus(options.status)) {
    throw new UsageError(`--status must be one of ${actionStatuses.join(', ')}, got "${options.status}".`);
  }
  return warehouse.all<ListedAction>(
    `SELECT action_id, kind, status, finding_id, exception_type, decision, decided_by,
            transaction_id::VARCHAR AS transaction_id, partner_reference, currency_code, amount::VARCHAR AS amount,
            proposed_by, approved_by, provider_status, provider_message, error
     FROM recon_actions WHERE period = $1 ${options.status ? 'AND status = $2' : ''} ORDER BY action_id`,
    (options.status ? [period, options.status] : [period]) as Params,
  );
}
