/**
 * What documenting the marts costs every reconcile (issue 27): the catalog (duckdb_tables, duckdb_columns) is read
 * once for all the marts, not twice per mart (~6 ms a read), and a run that finds every comment in place writes
 * nothing. test/core/mart-docs.test.ts checks the comments themselves.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { documentMarts } from '../../core/mart-docs.js';
import { sqlDir } from '../../core/paths.js';
import type { Warehouse } from '../../core/warehouse.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { asOf, capturingOutput, fixtureForEachTest, period } from '../support/reconcile.js';

const f = fixtureForEachTest();
const folder = path.join(sqlDir(), 'marts');
const marts = readdirSync(folder)
  .filter((file) => file.endsWith('.sql'))
  .map((file) => ({ name: path.basename(file, '.sql'), file: path.join(folder, file) }));

test('comments in place: the catalog read twice whatever the number of marts, nothing written', async () => {
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const database = (await f.warehouse.one<{ name: string }>('SELECT current_database() AS name'))!.name;
  const catalogReads: string[] = [];
  const writes: string[] = [];
  const read = (sql: string) => {
    if (/duckdb_(tables|columns)\(\)/.test(sql)) catalogReads.push(sql);
  };
  const counting = {
    all: (sql: string, params?: unknown[]) => (read(sql), f.warehouse.all(sql, params as never)),
    one: (sql: string, params?: unknown[]) => (read(sql), f.warehouse.one(sql, params as never)),
    run: (sql: string, params?: unknown[]) => (writes.push(sql), f.warehouse.run(sql, params as never)),
  } as unknown as Warehouse;

  await documentMarts(counting, database, marts);
  expect(marts.length).toBeGreaterThan(5);
  expect(catalogReads).toHaveLength(2);
  expect(writes).toEqual([]);
});
