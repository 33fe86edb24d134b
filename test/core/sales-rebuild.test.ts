/**
 * A database made when `sales` had its primary key is rebuilt without it when opened: every row and column kept,
 * once, in one transaction; the defaults and NOT NULLs of the schema hold for the rebuilt table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { duckdb } from '../../core/duckdb.js';
import { salesHasPrimaryKey } from '../../core/sales-rebuild.js';
import { Warehouse } from '../../core/warehouse.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-sales-rebuild-'));
  file = path.join(dir, 'pinrecon.duckdb');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `sales` as sql/schema/020_sales.sql made it before the key was dropped (and before record_hash was added). */
async function makeKeyedDatabase(): Promise<void> {
  const instance = await duckdb.DuckDBInstance.create(file);
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE sales (
    transaction_id BIGINT PRIMARY KEY, partner_reference VARCHAR, product_id BIGINT, product_name VARCHAR,
    sales_price DECIMAL(18,4), partner_cost_price DECIMAL(18,4), status VARCHAR, status_class VARCHAR,
    transaction_at TIMESTAMPTZ, transaction_date_raw VARCHAR, country_code VARCHAR, sales_currency_code VARCHAR,
    sales_currency_symbol VARCHAR, key VARCHAR, key_sent_to_customer BOOLEAN,
    first_seen_at TIMESTAMPTZ NOT NULL, last_seen_at TIMESTAMPTZ NOT NULL,
    seen_by_paid BOOLEAN NOT NULL DEFAULT false, paid_window_start DATE,
    seen_by_created BOOLEAN NOT NULL DEFAULT false, created_window_start DATE, last_run_id VARCHAR,
    key_hmac VARCHAR)`);
  await connection.run(`INSERT INTO sales
    SELECT i, 'PO-' || i, 7, 'Product 7', 10.5 + i, 8.25, 'Redeemed by Client', 'redeemed',
      TIMESTAMPTZ '2024-03-10 12:00:00+00' + to_hours(i), '2024-03-10', 'BR', 'BRL', 'R$', '****' || (1000 + i), true,
      TIMESTAMPTZ '2024-03-11 00:00:00+00', TIMESTAMPTZ '2024-03-12 00:00:00+00', i % 2 = 0, DATE '2024-03-01',
      true, DATE '2024-03-01', 'run-' || i, 'hmac-' || i
    FROM range(1, 2001) AS t(i)`);
  connection.closeSync();
  instance.closeSync();
}

const everySale = 'SELECT * EXCLUDE (record_hash) FROM sales ORDER BY transaction_id';

test('the keyed sales table is rebuilt without its key: same rows, same columns, the schema rules kept', async () => {
  await makeKeyedDatabase();
  const before = await (async () => {
    const instance = await duckdb.DuckDBInstance.create(file);
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll(`SELECT * FROM sales ORDER BY transaction_id`)).getRowObjectsJson();
    connection.closeSync();
    instance.closeSync();
    return rows;
  })();

  const told: string[] = [];
  const warehouse = await Warehouse.open(file, { onRebuild: (line) => told.push(line) });
  try {
    expect(told).toEqual([`${file}: rebuilding the sales table without its primary key (once; its rows are kept)`]);
    expect(await salesHasPrimaryKey(warehouse)).toBe(false);
    expect(await warehouse.all(everySale)).toEqual(before);
    // Nothing left aside, and the columns added since are there.
    expect(
      await warehouse.one(`SELECT count(*) AS aside FROM duckdb_tables() WHERE table_name = 'sales_with_primary_key'`),
    ).toEqual({
      aside: '0',
    });
    expect(await warehouse.one(`SELECT count(record_hash) AS hashed, count(*) AS rows FROM sales`)).toEqual({
      hashed: '0',
      rows: '2000',
    });
    // The NOT NULL and DEFAULT of the schema are the new table's.
    await expect(
      warehouse.run(`INSERT INTO sales (transaction_id, first_seen_at) VALUES (9999, now())`),
    ).rejects.toThrow(/NOT NULL constraint failed: sales\.last_seen_at/);
    await warehouse.run(`INSERT INTO sales (transaction_id, first_seen_at, last_seen_at) VALUES (9999, now(), now())`);
    expect(await warehouse.one(`SELECT seen_by_paid, seen_by_created FROM sales WHERE transaction_id = 9999`)).toEqual({
      seen_by_paid: false,
      seen_by_created: false,
    });
  } finally {
    warehouse.close();
  }

  // Opened again: nothing to rebuild, nothing said, nothing changes.
  const again = await Warehouse.open(file, { onRebuild: (line) => told.push(line) });
  try {
    expect(told).toHaveLength(1);
    expect(await again.one(`SELECT count(*) AS rows FROM sales`)).toEqual({ rows: '2001' });
  } finally {
    again.close();
  }
});

test('a new database makes sales without a key', async () => {
  const warehouse = await Warehouse.open(file);
  try {
    expect(await salesHasPrimaryKey(warehouse)).toBe(false);
    expect(await warehouse.one(`SELECT count(*) AS rows FROM sales`)).toEqual({ rows: '0' });
  } finally {
    warehouse.close();
  }
});
