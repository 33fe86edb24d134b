/**
 * The size of a reconcile's work before its models are built: the ledger lines paid and the sales dated within the
 * period's scope (cfg_params, a day either side of the period), which "auto" sizes DuckDB's memory for; and the rows
 * held in all, which says whether the data tests may run as one statement (core/model-runner.ts runDataTests).
 */
import type { Warehouse } from '../../core/warehouse.js';

/**
 * Up to this many ledger lines and sales held, the data tests run as one statement (issue 27): one statement holds
 * every test's joins and groups at once, some of which read the whole history; at this size that is a few MB.
 */
const dataTestsTogetherUpTo = 100_000;

export interface ReconcileSize {
  /** Ledger lines and sales within the period's scope. */
  scope: number;
  /** Whether the data tests may run as one statement: few rows held. */
  testsTogether: boolean;
}

/** Counts the scope's rows (the persistent tables' zone maps on the dates keep it a cheap scan) and fits memory. */
export async function fitMemoryToScope(warehouse: Warehouse): Promise<ReconcileSize> {
  const row = await warehouse.one<{ rows: bigint | number; held: bigint | number }>(
    `SELECT (SELECT count(*) FROM ledger, cfg_params p
              WHERE ledger.paid_at >= p.scope_starts_at AND ledger.paid_at < p.scope_ends_at)
          + (SELECT count(*) FROM sales, cfg_params p
              WHERE sales.transaction_at >= p.scope_starts_at AND sales.transaction_at < p.scope_ends_at) AS rows,
            (SELECT count(*) FROM ledger) + (SELECT count(*) FROM sales) AS held`,
  );
  const rows = Number(row?.rows ?? 0);
  await warehouse.fitMemoryToReconcile(rows);
  return { scope: rows, testsTogether: Number(row?.held ?? 0) <= dataTestsTogetherUpTo };
}
