/**
 * The hash chain over a period's action events (issue 28): each `recon_action_events` row carries its period,
 * `chain_position`, the previous row's hash (`prev_sha256`) and its own (`row_sha256`), as recon_decisions do
 * (core/decision-chain.ts). A signed event's signature is over the same canonical bytes (`canonicalActionEvent`),
 * so the signature also seals the order. The seal holds the chain's head; `verify` and the audit pack recompute it.
 */
import { createHash } from 'node:crypto';
import { canonicalTimestampSql } from './decision-chain.js';
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
  return createHash('sha256').update(canonicalActionEvent(row), 'utf8').digest('hex');
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
export async function actionEventChainHead(
  warehouse: SqlSession,
  period: string,
): Promise<{ position: number; sha256: string | null }> {
  const row = await warehouse.one<{ position: string; sha256: string | null }>(
    `SELECT chain_position::VARCHAR AS position, row_sha256 AS sha256 FROM recon_action_events
     WHERE period = $1 AND chain_position IS NOT NULL ORDER BY chain_position DESC LIMIT 1`,
    [period],
  );
  return row ? { position: Number(row.position), sha256: row.sha256 } : { position: 0, sha256: null };
}

/** Whether recon_action_events exists without the chain's columns: a database from before the chain. */
export async function actionEventsNeedChaining(warehouse: SqlSession): Promise<boolean> {
  const columns = await warehouse.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'recon_action_events'`,
  );
  return columns.length > 0 && !columns.some((c) => c.column_name === 'row_sha256');
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
    const heads = new Map<string, { position: number; sha256: string | null }>();
    for (const row of rows) {
      const head = heads.get(row.period) ?? { position: 0, sha256: null };
      const chained = { ...toChainedActionEvent(row), chainPosition: head.position + 1, prevSha256: head.sha256 };
      const sha256 = actionEventSha256(chained);
      await warehouse.run(
        'UPDATE recon_action_events SET chain_position = $1, prev_sha256 = $2, row_sha256 = $3 WHERE rowid = $4',
        [chained.chainPosition, chained.prevSha256, sha256, BigInt(row.row_id)],
      );
      heads.set(row.period, { position: chained.chainPosition, sha256 });
    }
    return rows.length;
  });
}
