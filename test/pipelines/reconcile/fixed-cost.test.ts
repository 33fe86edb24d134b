/**
 * What a reconcile costs whatever its size (issue 27), done in fewer statements with the same outcome: the config
 * inputs filled by one statement each (a status repeated once trimmed: the later one, as before), a data test ending
 * in a comment still run as written, and the marts' comments looked for once per open warehouse and written in one
 * transaction.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { findingTypeInputRows } from '../../../core/finding-types.js';
import { JobError } from '../../../core/errors.js';
import { documentMarts } from '../../../core/mart-docs.js';
import { runDataTests, type SqlTest } from '../../../core/model-runner.js';
import { sqlDir } from '../../../core/paths.js';
import type { Warehouse } from '../../../core/warehouse.js';
import { createConfigInputs } from '../../../pipelines/reconcile/config-inputs.js';
import { fixtureForEachTest } from '../../support/reconcile.js';

const f = fixtureForEachTest();

test('config inputs: one row per trimmed status (the later of two), the registry row for row', async () => {
  f.config.reconciliation.statusMap = {
    ' Pending review ': 'booked',
    delivered: 'booked',
    'Pending review': 'canceled',
  };
  await createConfigInputs(f.warehouse, f.config);
  expect(await f.warehouse.all('SELECT status, status_class FROM cfg_status_map ORDER BY status')).toEqual([
    { status: 'Pending review', status_class: 'canceled' },
    { status: 'delivered', status_class: 'booked' },
  ]);
  const types = await f.warehouse.all<Record<string, string | number | null>>(
    'SELECT * FROM cfg_exception_types ORDER BY list_order',
  );
  expect(types.map((row) => Object.values(row))).toEqual(findingTypeInputRows());

  f.config.reconciliation.statusMap = {};
  await createConfigInputs(f.warehouse, f.config);
  expect(await f.warehouse.all('SELECT * FROM cfg_status_map')).toEqual([]);
});

/** The JobError runDataTests throws (or undefined when every test passes). */
async function failure(tests: SqlTest[]): Promise<JobError | undefined> {
  return runDataTests(f.warehouse, tests).then(
    () => undefined,
    (error: unknown) => error as JobError,
  );
}

test('data tests: results, failures (one ending in a comment) and a test that cannot run, each named', async () => {
  await f.warehouse.run("CREATE TEMP TABLE items AS SELECT * FROM (VALUES (1, 2.5, 'a'), (2, -1.0, 'b')) t(id, p, k)");
  const passing = {
    name: 'ids_unique',
    file: 'ids_unique.sql',
    sql: 'select id from items group by id having count(*) > 1',
  };
  // Ending in a comment: what the runner adds after a test must not be commented out.
  const failing = { name: 'prices_not_negative', file: 'p.sql', sql: 'select id, p from items where p < 0 -- below 0' };
  const broken = { name: 'broken', file: 'broken.sql', sql: 'select no_such_column from items' };

  expect(await runDataTests(f.warehouse, [passing])).toEqual([{ name: 'ids_unique', passed: true }]);
  const failed = await failure([passing, failing]);
  expect(failed).toBeInstanceOf(JobError);
  expect(failed!.message).toMatch(/failed 1 data test\(s\); nothing was published/);
  expect(failed!.message).toMatch(/data test prices_not_negative failed \(p\.sql\):\n.*id.*p/);
  expect(failed!.message).toContain('-1');
  expect(failed!.message).not.toContain('ids_unique failed');
  const faulty = await failure([passing, broken, failing]);
  expect(faulty!.message).toMatch(/^The data test broken \(broken\.sql\) could not run: .*no_such_column/);
});

test("marts' comments: written in one transaction, then not looked for again by the same warehouse", async () => {
  const folder = path.join(sqlDir(), 'marts');
  const marts = readdirSync(folder)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => ({ name: path.basename(file, '.sql'), file: path.join(folder, file) }));
  const database = (await f.warehouse.one<{ name: string }>('SELECT current_database() AS name'))!.name;
  const calls: string[] = [];
  const counting = {
    all: (sql: string, params?: unknown[]) => (calls.push(`all ${sql}`), f.warehouse.all(sql, params as never)),
    run: (sql: string, params?: unknown[]) => (calls.push(`run ${sql}`), f.warehouse.run(sql, params as never)),
    transaction: (work: () => Promise<unknown>) => (calls.push('transaction'), f.warehouse.transaction(work)),
  } as unknown as Warehouse;

  await documentMarts(counting, database, marts);
  // A fresh database has none of them: every COMMENT (and ALTER) in one call, in one transaction.
  const writes = calls.filter((call) => !call.startsWith('all '));
  expect(writes).toHaveLength(2);
  expect(writes[0]).toBe('transaction');
  const statements = writes[1]!.replace(/^run /, '').split(';\n');
  for (const { name } of marts)
    expect(statements).toContainEqual(expect.stringMatching(`COMMENT ON TABLE .*"${name}"`));
  expect(statements.length).toBeGreaterThan(marts.length * 3);
  const comments = await f.warehouse.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = $1 AND comment IS NOT NULL
       AND table_name IN (${marts.map((m) => `'${m.name}'`).join(', ')})`,
    [database],
  );
  expect(comments).toEqual([{ n: marts.length }]);

  calls.length = 0;
  await documentMarts(counting, database, marts);
  expect(calls).toEqual([]);
});
