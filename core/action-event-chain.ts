/**
 * The hash chain over a period's action events (issue 28): each `recon_action_events` row carries its period,
 * `chain_position`, the previous row's hash (`prev_sha256`) and its own (`row_sha256`), as recon_decisions do
 * (core/decision-chain.ts; what the chains share is in core/hash-chain.ts). A signed event's signature is over the
 * same canonical bytes (`canonicalActionEvent`), so the signature also seals the order. The seal holds the chain's
 * head; `verify` and the audit pack recompute it.
 */
import { canonicalTimestampSql } from './decision-chain.js';
import { type ChainHead, chainRowsInOrder, periodChainHead, tableNeedsChaining } from './hash-chain.js';
import { sha256Hex } from './signatures.js';
import type { SqlSession } from './sql-session.js';

export const actionEventChainVersion = 'pinrecon.action_event.v1';

/** A recon_action_events row in its canonical form (the hash's and the signature's input). */
export interface ChainedActionEvent {
  period: string;
  chainPosition: number;
  actionId: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  at: string;
  by: string;
  fromStatus: string | null;
  toStatus: string;
  detail: string | null;
  /** An approval: the sha256 of the approval policy in force (approval_policies); else null. */
  policySha256: string | null;
  prevSha256: string | null;
}

/**
 * The canonical form of an event (version 1): the UTF-8 bytes of the JSON array ["pinrecon.action_event.v1",
 * period, chain_position, action_id, at, by, from_status, to_status, detail, policy_sha256, prev_sha256] as
 * JSON.stringify writes it (chain_position a number, every other value a string or null, `at` UTC
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ`). `row_sha256` is its lowercase hex SHA-256; `signature` (when signed) is the
 * Ed25519 signature of the same bytes.
 */
export function canonicalActionEvent(row: ChainedActionEvent): string {
  return JSON.stringify([
    actionEventChainVersion,
    row.period,
    row.chainPosition,
    row.actionId,
    row.at,
    row.by,
    row.fromStatus,
    row.toStatus,
    row.detail,
    row.policySha256,
    row.prevSha256,
  ]);
}

export function actionEventSha256(row: ChainedActionEvent): string {
  return sha256Hex(canonicalActionEvent(row));
}

/** The SELECT list reading recon_action_events rows in their canonical form (plus the stored hashes and signature). */
export const chainedActionEventColumns = `period, chain_position, action_id, ${canonicalTimestampSql('"at"')} AS "at",
  "by", from_status, to_status, detail, policy_sha256, prev_sha256, row_sha256, signature, signer_key_sha256`;

export type StoredActionEventRow = {
  period: string;
  chain_position: string | null;
  action_id: string;
  at: string;
  by: string;
  from_status: string | null;
  to_status: string;
  detail: string | null;
  policy_sha256: string | null;
  prev_sha256: string | null;
  row_sha256: string | null;
  signature: string | null;
  signer_key_sha256: string | null;
};

export function toChainedActionEvent(row: StoredActionEventRow): ChainedActionEvent {
  return {
    period: row.period,
    chainPosition: Number(row.chain_position),
    actionId: row.action_id,
    at: row.at,
    by: row.by,
    fromStatus: row.from_status,
    toStatus: row.to_status,
    detail: row.detail,
    policySha256: row.policy_sha256,
    prevSha256: row.prev_sha256,
  };
}

/** The last event of a period's chain: where the next one links on (position 0 and no hash when empty). */
export async function actionEventChainHead(warehouse: SqlSession, period: string): Promise<ChainHead> {
  return periodChainHead(warehouse, 'recon_action_events', period);
}

/** Whether recon_action_events exists without the chain's columns: a database from before the chain. */
export async function actionEventsNeedChaining(warehouse: SqlSession): Promise<boolean> {
  return tableNeedsChaining(warehouse, 'recon_action_events');
}

/**
 * The migration of a database from before the chain (once, right after the schema adds the columns): each
 * period's events (the period of their action) are chained in the order they were recorded (`at`, then the
 * order DuckDB appended them). Later rows without a hash are never chained here: `verify` reports them.
 */
export async function chainExistingActionEvents(warehouse: SqlSession): Promise<number> {
  return warehouse.transaction(async () => {
    await warehouse.run(
      `UPDATE recon_action_events SET period = a.period FROM recon_actions a
       WHERE recon_action_events.period IS NULL AND a.action_id = recon_action_events.action_id`,
    );
    const rows = await warehouse.all<StoredActionEventRow & { row_id: string }>(
      `SELECT rowid::VARCHAR AS row_id, ${chainedActionEventColumns} FROM recon_action_events
       WHERE row_sha256 IS NULL AND period IS NOT NULL ORDER BY period, "at", rowid`,
    );
    return chainRowsInOrder(warehouse, 'recon_action_events', rows, (row, link) =>
      actionEventSha256({ ...toChainedActionEvent(row), ...link }),
    );
  });
}
