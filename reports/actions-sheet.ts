/**
 * The workbook's Actions sheet (issue 15): the state of every action of the period — what it carries out,
 * who decided, proposed and approved it, what the provider answered and whether the sale was read back
 * canceled — and the actions the email names: waiting for approval, and failed.
 */
import { sqlText } from '../core/paths.js';
import { sqlString } from '../core/sql.js';
import type { Warehouse } from '../core/warehouse.js';
import { datetime as time, type DetailSheet, integer, money, text } from './sheet-spec.js';

export function actionsSheet(period: string): DetailSheet {
  return {
    title: 'Actions',
    description: 'reversals, claims and journal entries planned from the decisions, and where each stands',
    // The printed columns first (issue 30 item 6: who approved what, at 8 pt or more); the rest stay on screen.
    columns: [
      text('action_id', 'Action', 18),
      text('kind', 'Kind', 10),
      text('status', 'Status', 11),
      text('partner_reference', 'Partner reference', 18),
      money('amount', 'Amount', 'amount', 'currency', 14),
      text('decided_by', 'Decided by', 14),
      text('proposed_by', 'Proposed by', 14),
      text('approved_by', 'Approved by', 14),
      time('approved_at', 'Approved at'),
      text('exception_type', 'Finding type', 22),
      // Not "Decision" / "Finding ID": those headers mark a sheet whose decisions `findings import` reads.
      text('carried_out', 'Decision carried out', 14, 'decision'),
      integer('transaction_id', 'Transaction ID', 15),
      text('currency', 'Currency', 9, 'currency_code'),
      time('proposed_at', 'Proposed at'),
      time('executed_at', 'Executed at'),
      time('verified_at', 'Verified at'),
      text('provider_status', 'Provider status', 20),
      text('provider_message', 'Provider message', 40),
      text('error', 'Error', 40),
      text('of_finding', 'Of finding', 34, 'finding_id'),
    ],
    table: 'recon_actions',
    where: `period = ${sqlString(period)}`,
    orderBy: 'action_id',
    printColumns: [
      'action_id',
      'kind',
      'status',
      'partner_reference',
      'amount',
      'decided_by',
      'proposed_by',
      'approved_by',
      'approved_at',
    ],
  };
}

/** An action that needs a person, for the email. */
export interface PendingAction {
  actionId: string;
  kind: string;
  status: 'proposed' | 'failed';
  findingType: string | null;
  transactionId: string | null;
  partnerReference: string | null;
  amount: string | null;
  currency: string | null;
  why: string | null;
}

export interface ActionFacts {
  waitingForApproval: PendingAction[];
  failed: PendingAction[];
}

export async function loadActionFacts(warehouse: Warehouse, period: string): Promise<ActionFacts> {
  const rows = await warehouse.all<Record<string, string | null>>(sqlText('report', 'action_states.sql'), { period });
  const pending = rows.map((r) => ({
    actionId: r.action_id!,
    kind: r.kind!,
    status: r.status as PendingAction['status'],
    findingType: r.exception_type ?? null,
    transactionId: r.transaction_id ?? null,
    partnerReference: r.partner_reference ?? null,
    amount: r.amount ?? null,
    currency: r.currency_code ?? null,
    why: r.why ?? null,
  }));
  return {
    waitingForApproval: pending.filter((a) => a.status === 'proposed'),
    failed: pending.filter((a) => a.status === 'failed'),
  };
}

/** The email's lines about actions (empty when none needs a person). */
export function actionEmailLines(facts: ActionFacts, shown = 20): string[] {
  if (facts.waitingForApproval.length === 0 && facts.failed.length === 0) return [];
  const describe = (a: PendingAction) =>
    `  ${a.actionId} ${a.kind} ${a.amount ?? ''} ${a.currency ?? ''}` +
    `${a.transactionId ? ` tx ${a.transactionId}` : ''}${a.partnerReference ? ` ${a.partnerReference}` : ''}` +
    `${a.status === 'failed' && a.why ? ` — ${a.why}` : ''}`;
  const block = (title: string, list: PendingAction[]) =>
    list.length === 0
      ? []
      : [
          `${title}: ${list.length}`,
          ...list.slice(0, shown).map(describe),
          ...(list.length > shown ? [`  … and ${list.length - shown} more (Actions sheet)`] : []),
        ];
  return [
    ...block('Actions waiting for approval (pinrecon actions approve)', facts.waitingForApproval),
    ...block('Failed actions', facts.failed),
    '',
  ];
}
