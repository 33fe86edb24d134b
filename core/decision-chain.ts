/**
 * The hash chain over a period's decisions: each `recon_decisions` row carries `chain_position`, the hash of
 * the row before it (`prev_sha256`) and its own (`row_sha256`), so changing, removing or reordering a row breaks
 * every hash after it; the sign-off's manifest holds the head and `pinrecon verify` checks it. The canonical
 * form of a row (version 1) is documented at `canonicalDecision` below.
 */
import { type ChainHead, chainRowsInOrder, periodChainHead, tableNeedsChaining } from './hash-chain.js';
import { sha256Hex } from './signatures.js';
import type { SqlSession } from './sql-session.js';

export const decisionChainVersion = 'pinrecon.decision.v1';

/** A recon_decisions row in its canonical form (the hash's input). */
export interface ChainedDecision {
  period: string;
  chainPosition: number;
  findingId: string;
  decision: string;
  note: string | null;
  owner: string | null;
  /** YYYY-MM-DD. */
  expectedClearBy: string | null;
  decidedBy: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  decidedAt: string;
  source: string;
  prevSha256: string | null;
}

/**
 * The canonical form of a row (version 1): the UTF-8 bytes of the JSON array ["pinrecon.decision.v1", period,
 * chain_position, finding_id, decision, note, owner, expected_clear_by, decided_by, decided_at, source,
 * prev_sha256] as JSON.stringify writes it (chain_position a number, every other value a string or null,
 * expected_clear_by `YYYY-MM-DD`, decided_at UTC `YYYY-MM-DDTHH:MM:SS.ffffffZ`). `row_sha256` is its lowercase hex
 * SHA-256. `superseded_at` is left out: it is checked against the decided_at of the finding's next decision.
 */
export function canonicalDecision(row: ChainedDecision): string {
  return JSON.stringify([
    decisionChainVersion,
    row.period,
    row.chainPosition,
    row.findingId,
    row.decision,
    row.note,
    row.owner,
    row.expectedClearBy,
    row.decidedBy,
    row.decidedAt,
    row.source,
    row.prevSha256,
  ]);
}

export function decisionSha256(row: ChainedDecision): string {
  return sha256Hex(canonicalDecision(row));
}

/** A JavaScript time as the chain writes decided_at (DuckDB keeps microseconds; a Date has milliseconds). */
export function canonicalTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

/** SQL: a TIMESTAMPTZ column as the chain writes decided_at, whatever the session's time zone. */
export function canonicalTimestampSql(column: string): string {
  return `strftime(timezone('UTC', ${column}), '%Y-%m-%dT%H:%M:%S.%fZ')`;
}

/** The SELECT list reading recon_decisions rows in their canonical form (plus the stored hashes and superseded_at). */
export const chainedDecisionColumns = `period, chain_position, finding_id, decision, note, owner,
  strftime(expected_clear_by, '%Y-%m-%d') AS expected_clear_by, decided_by,
  ${canonicalTimestampSql('decided_at')} AS decided_at,
  source, prev_sha256, row_sha256, ${canonicalTimestampSql('superseded_at')} AS superseded_at`;

export type StoredDecisionRow = {
  period: string;
  chain_position: string | null;
  finding_id: string;
  decision: string;
  note: string | null;
  owner: string | null;
  expected_clear_by: string | null;
  decided_by: string;
  decided_at: string;
  source: string;
  prev_sha256: string | null;
  row_sha256: string | null;
  superseded_at: string | null;
};

export function toChainedDecision(row: StoredDecisionRow): ChainedDecision {
  return {
    period: row.period,
    chainPosition: Number(row.chain_position),
    findingId: row.finding_id,
    decision: row.decision,
    note: row.note,
    owner: row.owner,
    expectedClearBy: row.expected_clear_by,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    source: row.source,
    prevSha256: row.prev_sha256,
  };
}

/** The last row of a period's chain: where the next decision links on (position 0 and no hash when empty). */
export async function chainHead(warehouse: SqlSession, period: string): Promise<ChainHead> {
  return periodChainHead(warehouse, 'recon_decisions', period);
}

/** Whether recon_decisions exists without the chain's columns: a database from before the chain. */
export async function decisionsNeedChaining(warehouse: SqlSession): Promise<boolean> {
  return tableNeedsChaining(warehouse, 'recon_decisions');
}

/**
 * The migration of a database from before the chain (run once, right after the schema adds the columns):
 * every period's rows are chained in the order they were recorded (decided_at, then the order DuckDB
 * appended them). Later rows without a hash are never chained here: `verify` reports them.
 */
export async function chainExistingDecisions(warehouse: SqlSession): Promise<number> {
  return warehouse.transaction(async () => {
    const rows = await warehouse.all<StoredDecisionRow & { row_id: string }>(
      `SELECT rowid::VARCHAR AS row_id, ${chainedDecisionColumns} FROM recon_decisions
       WHERE row_sha256 IS NULL ORDER BY period, decided_at, rowid`,
    );
    return chainRowsInOrder(warehouse, 'recon_decisions', rows, (row, link) =>
      decisionSha256({ ...toChainedDecision(row), ...link }),
    );
  });
}
