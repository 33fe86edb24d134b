/**
 * `sales` once had a primary key on transaction_id. Its ART index grows with the history and cannot spill (~40–50
 * bytes a sale): for a year of 1M sales a month, memoryLimit "auto" gave every load 1.15 GB around it. The load
 * stores a sale once by transaction_id (and the data test sql/tests/sales_stored_once.sql proves it), so the
 * schema makes `sales` without the key, and a database made with it has its table rebuilt once, in the transaction
 * that applies the schema: renamed aside, made again by sql/schema/020_sales.sql, its rows copied by column name,
 * the old table dropped.
 */
import type { SqlSession } from './sql-session.js';

const setAside = 'sales_with_primary_key';

/** Whether this database's `sales` still has the primary key (a file made before it was dropped). */
export async function salesHasPrimaryKey(warehouse: SqlSession): Promise<boolean> {
  const row = await warehouse.one<{ keys: string }>(
    `SELECT count(*) AS keys FROM duckdb_constraints()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'sales'
       AND constraint_type = 'PRIMARY KEY'`,
  );
  return Number(row?.keys ?? 0) > 0;
}

/** Step 1, before the schema runs (inside its transaction): the keyed table goes aside, so the schema makes `sales`. */
export async function setKeyedSalesAside(warehouse: SqlSession): Promise<void> {
  await warehouse.run(`ALTER TABLE sales RENAME TO ${setAside}`);
}

/** Step 2, after the schema ran: every row into the new `sales`, in the order they were stored; the old table goes. */
export async function copyKeyedSalesBack(warehouse: SqlSession): Promise<void> {
  await warehouse.run(`INSERT INTO sales BY NAME SELECT * FROM ${setAside}`);
  await warehouse.run(`DROP TABLE ${setAside}`);
}
