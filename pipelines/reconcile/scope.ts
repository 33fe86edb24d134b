/**
 * The size of a reconcile's work before its models are built: the ledger lines paid and the sales dated within the
 * period's scope (cfg_params, a day either side of the period), which "auto" sizes DuckDB's memory for.
 */
import type { Warehouse } from '../../core/warehouse.js';

/** Counts the scope's rows (the persistent tables' zone maps on the dates keep it a cheap scan) and fits memory. */
export async function fitMemoryToScope(warehouse: Warehouse): Promise<number> {
  const row = await warehouse.one<{ rows: bigint | number }>(
    `SELECT (SELECT count(*) FROM ledger, cfg_params p
              WHERE ledger.paid_at >= p.scope_starts_at AND ledger.paid_at < p.scope_ends_at)
          + (SELECT count(*) FROM sales, cfg_params p
              WHERE sales.transaction_at >= p.scope_starts_at AND sales.transaction_at < p.scope_ends_at) AS rows`,
  );
  const rows = Number(row?.rows ?? 0);
  await warehouse.fitMemoryToReconcile(rows);
  return rows;
}
