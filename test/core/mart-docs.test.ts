/**
 * Tables other tools understand (issue 31): after a real reconcile every mart table and every documented column
 * carries its `.yml` description as a database comment (duckdb_tables/duckdb_columns, what DBeaver and Evidence
 * read), the columns the docs call JSON are typed JSON and still read back as the same text, and a second
 * reconcile finds them in place.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { readMartDoc } from '../../core/mart-docs.js';
import { sqlDir } from '../../core/paths.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { fillFindings } from '../support/decisions.js';
import { asOf, capturingOutput, fixtureForEachTest, period } from '../support/reconcile.js';

const f = fixtureForEachTest();
const marts = readdirSync(path.join(sqlDir(), 'marts'))
  .filter((file) => file.endsWith('.sql'))
  .map((file) => path.basename(file, '.sql'));

test('every mart and documented column is commented from its .yml; JSON columns are typed JSON', async () => {
  await fillFindings(f);
  for (let run = 0; run < 2; run++) {
    await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  }
  expect(marts.length).toBeGreaterThan(5);
  for (const mart of marts) {
    const doc = readMartDoc(mart);
    expect(doc, `sql/marts/${mart}.yml`).toBeDefined();
    const table = await f.warehouse.one<{ comment: string | null }>(
      `SELECT comment FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = $1`,
      [mart],
    );
    expect(table?.comment, mart).toBe(doc!.description.trim());
    const columns = await f.warehouse.all<{ column_name: string; comment: string | null; data_type: string }>(
      `SELECT column_name, comment, data_type FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = $1`,
      [mart],
    );
    for (const { name, description } of doc!.columns) {
      const column = columns.find((c) => c.column_name === name);
      expect(column?.comment, `${mart}.${name}`).toBe(String(description).trim());
      if (/^JSON\b/.test(String(description))) expect(column?.data_type, `${mart}.${name}`).toBe('JSON');
    }
  }
  const run = await f.warehouse.one<{ stage_seconds: string }>(`SELECT stage_seconds FROM recon_runs LIMIT 1`);
  expect(typeof run?.stage_seconds).toBe('string');
  expect(JSON.parse(run!.stage_seconds)).toHaveProperty('tests');
});
