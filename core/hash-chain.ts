/**
 * What the period hash chains share (recon_decisions, core/decision-chain.ts; recon_action_events, issue 28,
 * core/action-event-chain.ts): each row carries its period's `chain_position`, the previous row's hash
 * (`prev_sha256`) and its own (`row_sha256`). Here: a chain's head, whether a table predates the chain, and the
 * one-time migration that links a table's unchained rows in the order they were recorded. Each chain keeps its
 * own canonical form (the hash's input); this module is given the hash.
 */
import type { SqlSession } from './sql-session.js';

/** A chained table (a fixed name: it is written into SQL). */
export type ChainedTable = 'recon_decisions' | 'recon_action_events';

/** Where a period's chain ends: position 0 and no hash when it is empty. */
export interface ChainHead {
  position: number;
  sha256: string | null;
}

/** The last row of a period's chain in `table`: where the next one links on. */
export async function periodChainHead(warehouse: SqlSession, table: ChainedTable, period: string): Promise<ChainHead> {
  const row = await warehouse.one<{ position: string; sha256: string | null }>(
    `SELECT chain_position::VARCHAR AS position, row_sha256 AS sha256 FROM ${table}
     WHERE period = $1 AND chain_position IS NOT NULL ORDER BY chain_position DESC LIMIT 1`,
    [period],
  );
  return row ? { position: Number(row.position), sha256: row.sha256 } : { position: 0, sha256: null };
}

/** Whether `table` exists without the chain's columns: a database from before the chain. */
export async function tableNeedsChaining(warehouse: SqlSession, table: ChainedTable): Promise<boolean> {
  const columns = await warehouse.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = $1`,
    [table],
  );
  return columns.length > 0 && !columns.some((c) => c.column_name === 'row_sha256');
}

/**
 * Links `rows` (read with their `rowid` as `row_id`, in the order they were recorded) onto their period's chain,
 * each hashed by `sha256Of` with its position and the hash before it, and writes the links back to `table` in one
 * UPDATE (through a temporary table filled by an appender, not a statement per row). Runs in the caller's
 * transaction. Returns how many rows it chained.
 */
export async function chainRowsInOrder<R extends { row_id: string; period: string }>(
  warehouse: SqlSession,
  table: ChainedTable,
  rows: readonly R[],
  sha256Of: (row: R, link: { chainPosition: number; prevSha256: string | null }) => string,
): Promise<number> {
  if (rows.length === 0) return 0;
  const migration = `${table}_chain_migration`;
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE ${migration}
     (row_id BIGINT, chain_position BIGINT, prev_sha256 VARCHAR, row_sha256 VARCHAR)`,
  );
  const heads = new Map<string, ChainHead>();
  const appender = await warehouse.connection.createAppender(migration, 'main', 'temp');
  try {
    for (const row of rows) {
      const head = heads.get(row.period) ?? { position: 0, sha256: null };
      const link = { chainPosition: head.position + 1, prevSha256: head.sha256 };
      const sha256 = sha256Of(row, link);
      appender.appendBigInt(BigInt(row.row_id));
      appender.appendBigInt(BigInt(link.chainPosition));
      if (link.prevSha256 === null) appender.appendNull();
      else appender.appendVarchar(link.prevSha256);
      appender.appendVarchar(sha256);
      appender.endRow();
      heads.set(row.period, { position: link.chainPosition, sha256 });
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  await warehouse.run(
    `UPDATE ${table} SET chain_position = m.chain_position, prev_sha256 = m.prev_sha256, row_sha256 = m.row_sha256
     FROM ${migration} m WHERE ${table}.rowid = m.row_id`,
  );
  await warehouse.run(`DROP TABLE ${migration}`);
  return rows.length;
}
