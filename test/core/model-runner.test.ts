/**
 * The model runner on small SQL trees written to a temp folder, built in a real DuckDB file: the plan (order,
 * cycles, duplicate names), the materialization each header declares, publishing (a period replaced, a log
 * appended) and the data tests (failing rows shown, PINs masked).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { JobError } from '../../core/errors.js';
import { maskPin } from '../../core/masking.js';
import { Warehouse } from '../../core/warehouse.js';
import {
  buildModels,
  declareInput,
  dropModels,
  loadTests,
  planModels,
  publishMarts,
  readersOf,
  runDataTests,
  type BuildTimings,
  type SqlModel,
} from '../../core/model-runner.js';
import { capturingOutput } from '../support/reconcile.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'pinrecon-runner-'));
  for (const folder of ['inputs', 'staging', 'intermediate', 'marts', 'tests']) mkdirSync(path.join(root, folder));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes `sql/<folder>/<name>.sql` of the temp tree. */
function model(folder: string, name: string, sql: string): string {
  const file = path.join(root, folder, `${name}.sql`);
  writeFileSync(file, sql);
  return file;
}

/** Throws what `planModels` throws, so a test can look at its message and its hint. */
function planError(): JobError {
  try {
    planModels(root);
  } catch (error) {
    expect(error).toBeInstanceOf(JobError);
    return error as JobError;
  }
  throw new Error('planModels did not refuse the tree');
}

describe('planning', () => {
  test('each model follows what it reads, whatever the file names; comments and strings are not reads', () => {
    model('staging', 'stg_z', '-- one row per z\nselect * from source_z');
    model('intermediate', 'int_a', "-- reads int_m, not 'from int_q'\nselect * from int_m join stg_z using (id)");
    model('intermediate', 'int_m', '-- m\nselect * from stg_z -- from int_a would be a cycle');
    model('marts', 'mart_b', '-- b\nselect * from int_a');
    const models = planModels(root);
    expect(models.map((m) => m.name)).toEqual(['stg_z', 'int_m', 'int_a', 'mart_b']);
    expect(models.find((m) => m.name === 'int_a')).toMatchObject({
      layer: 'intermediate',
      dependsOn: ['int_m', 'stg_z'],
    });
    // `reads` keeps what is not a model (sources, inputs): rebuilds follow it.
    expect(models.find((m) => m.name === 'stg_z')).toMatchObject({ dependsOn: [], reads: ['source_z'] });
    expect(readersOf(models, 'source_z').map((m) => m.name)).toEqual(['stg_z', 'int_m', 'int_a', 'mart_b']);
    expect(readersOf(models, 'int_m').map((m) => m.name)).toEqual(['int_m', 'int_a', 'mart_b']);
  });

  test('a cycle is refused, naming the models in order and the files to look at', () => {
    model('staging', 'stg_a', '-- a\nselect * from ledger');
    const b = model('intermediate', 'int_b', '-- b\nselect * from stg_a join int_c using (x)');
    const c = model('intermediate', 'int_c', '-- c\nselect * from int_b');
    const error = planError();
    expect(error.message).toMatch(/cycle: int_b → int_c → int_b/);
    expect(error.hint).toContain(`${b}, ${c}`);
  });

  test('two models of one name are refused, naming both files', () => {
    const first = model('staging', 'same', '-- one\nselect 1 AS x');
    const second = model('marts', 'same', '-- two\nselect 2 AS x');
    const error = planError();
    expect(error.message).toBe(`Two SQL models are named same (${first}, ${second}).`);
  });

  test('the materialization is read from the header: table by default, view, append', () => {
    model('staging', 'stg_v', '-- one row per v\n-- materialized: view\nselect 1 AS v');
    model('intermediate', 'int_t', '-- t\nselect * from stg_v');
    model('marts', 'mart_table', '-- per period\n--   materialized:   table  \nselect * from int_t');
    model('marts', 'mart_log', '-- one row per run\n\n-- materialized: append\nselect * from int_t');
    const kinds = Object.fromEntries(planModels(root).map((m) => [m.name, m.materialized]));
    expect(kinds).toEqual({ stg_v: 'view', int_t: 'table', mart_table: 'table', mart_log: 'append' });
  });

  test(
    'a view mart, an append outside marts, an unknown kind, ' + 'two declarations or one below the header are refused',
    () => {
      const select = '\nselect 1 AS x';
      const refusals: [string, string, string, RegExp][] = [
        [
          'marts',
          'mart_v',
          `-- v\n-- materialized: view${select}`,
          /mart_v\.sql:2 says "materialized: view": marts are published as tables/,
        ],
        [
          'intermediate',
          'int_ap',
          `-- a\n-- materialized: append${select}`,
          /int_ap\.sql:2 says "materialized: append": only a mart/,
        ],
        [
          'staging',
          'stg_e',
          `-- e\n-- materialized: ephemeral${select}`,
          /stg_e\.sql:2: unknown materialization "ephemeral"/,
        ],
        [
          'staging',
          'stg_2',
          `-- materialized: view\n-- materialized: table${select}`,
          /stg_2\.sql declares its materialization 2 times/,
        ],
        [
          'staging',
          'stg_low',
          `-- low${select}\n-- materialized: view`,
          /stg_low\.sql:3: "-- materialized: view" is below the model's/,
        ],
      ];
      for (const [folder, name, sql, message] of refusals) {
        const file = model(folder, name, sql);
        expect(planError().message).toMatch(message);
        rmSync(file);
      }
      expect(planModels(root)).toEqual([]);
    },
  );
});

describe('building and publishing in a real DuckDB file', () => {
  let warehouse: Warehouse;

  beforeEach(async () => {
    warehouse = await Warehouse.open(path.join(root, 'runner.duckdb'), { applySchema: false });
    await warehouse.run('CREATE TABLE src_items (id INTEGER, price DECIMAL(18,4), pin VARCHAR)');
  });

  afterEach(() => warehouse.close());

  /** A tree: items staged (a view), priced (a table), a mart of the period's totals and a mart logging each run. */
  function itemTree(): SqlModel[] {
    model('inputs', 'cfg_run', '-- the run\nCREATE OR REPLACE TEMP TABLE cfg_run (period VARCHAR, run_id VARCHAR)');
    model(
      'staging',
      'stg_items',
      '-- one row per item\n-- materialized: view\nselect id, price, pin as key from src_items',
    );
    model(
      'intermediate',
      'int_items_priced',
      '-- one row per item\nselect stg_items.*, cfg_run.period from stg_items cross join cfg_run',
    );
    const totals = 'select period, count(*) as items, sum(price) as total from int_items_priced group by 1';
    model('marts', 'items_by_period', `-- one row per period\n${totals}`);
    model(
      'marts',
      'item_runs',
      '-- one row per run\n-- materialized: append\n' +
        'select cfg_run.run_id, cfg_run.period, (select count(*) from int_items_priced) as items from cfg_run',
    );
    return planModels(root);
  }

  async function optimisticWrite(): Promise<string | undefined> {
    const row = await warehouse.one<{ v: string }>(`SELECT current_setting('enable_optimistic_write')::VARCHAR AS v`);
    return row?.v;
  }

  async function runOnce(models: SqlModel[], period: string, runId: string): Promise<BuildTimings> {
    const timings: BuildTimings = { stages: {}, models: {} };
    try {
      await declareInput(warehouse, 'cfg_run', root);
      await warehouse.run('INSERT INTO cfg_run VALUES ($1, $2)', [period, runId]);
      await buildModels(warehouse, models, timings, capturingOutput().output);
      await publishMarts(warehouse, models, { column: 'period', value: period });
    } finally {
      await dropModels(warehouse, models, ['cfg_run']);
    }
    return timings;
  }

  test('builds views and tables as declared, times them, and leaves no temporary behind', async () => {
    const models = itemTree();
    await warehouse.run(`INSERT INTO src_items VALUES (1, 2.5, NULL)`);
    await declareInput(warehouse, 'cfg_run', root);
    await warehouse.run(`INSERT INTO cfg_run VALUES ('2024-01', 'r1')`);
    const timings: BuildTimings = { stages: {}, models: {} };
    await buildModels(warehouse, models, timings, capturingOutput().output);
    const temporaries = await warehouse.all<{ name: string; kind: string }>(
      `SELECT view_name AS name, 'view' AS kind FROM duckdb_views() WHERE temporary AND NOT internal
       UNION ALL SELECT table_name, 'table' FROM duckdb_tables() WHERE temporary ORDER BY 1`,
    );
    expect(temporaries).toEqual([
      { name: 'cfg_run', kind: 'table' },
      { name: 'int_items_priced', kind: 'table' },
      { name: 'item_runs', kind: 'table' },
      { name: 'items_by_period', kind: 'table' },
      { name: 'stg_items', kind: 'view' },
    ]);
    expect(Object.keys(timings.stages).sort()).toEqual(['intermediate', 'marts', 'staging']);
    expect(Object.keys(timings.models).sort()).toEqual(models.map((m) => m.name).sort());
    await dropModels(warehouse, models, ['cfg_run']);
    expect(await warehouse.all(`SELECT table_name FROM duckdb_tables() WHERE temporary`)).toEqual([]);
    expect(await warehouse.all(`SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal`)).toEqual([]);
  });

  test("a table mart's period is replaced, other periods kept; an append mart keeps every run", async () => {
    const models = itemTree();
    await warehouse.run(`INSERT INTO src_items VALUES (1, 2.5, NULL), (2, 4.0, NULL)`);
    await runOnce(models, '2024-01', 'r1');
    await runOnce(models, '2024-02', 'r2');
    await warehouse.run(`INSERT INTO src_items VALUES (3, 1.0, NULL)`);
    await runOnce(models, '2024-01', 'r3');

    // The marts were created by the first publish (no schema file), as persistent tables.
    const byPeriod = await warehouse.all(
      'SELECT period, items, total::VARCHAR AS total FROM items_by_period ORDER BY period',
    );
    expect(byPeriod).toEqual([
      { period: '2024-01', items: '3', total: '7.5000' },
      { period: '2024-02', items: '2', total: '6.5000' },
    ]);
    expect(await warehouse.all('SELECT run_id, period, items FROM item_runs ORDER BY run_id')).toEqual([
      { run_id: 'r1', period: '2024-01', items: '2' },
      { run_id: 'r2', period: '2024-02', items: '2' },
      { run_id: 'r3', period: '2024-01', items: '3' },
    ]);
    // Publishing holds the rows until its commit (model-runner.ts): the session's own setting is back afterwards.
    expect(await optimisticWrite()).toBe('true');
  });

  test(
    'a table mart without the partition column is refused at publish, ' + 'naming it, and nothing is published',
    async () => {
      const models = itemTree();
      const file = model(
        'marts',
        'items_total',
        '-- one row: every item\nselect count(*) as items from int_items_priced',
      );
      const planned = planModels(root);
      await warehouse.run(`INSERT INTO src_items VALUES (1, 2.5, NULL)`);
      await runOnce(models, '2024-01', 'r1');
      const failure = await runOnce(planned, '2024-01', 'r2').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(JobError);
      expect((failure as JobError).message).toContain(
        `Publishing the mart items_total (${file}, materialized table) failed`,
      );
      expect((failure as JobError).hint).toMatch(/replaces its rows of one period, so it needs that column/);
      // The transaction rolled back: the run before is what the marts hold.
      expect(await warehouse.all('SELECT run_id FROM item_runs')).toEqual([{ run_id: 'r1' }]);
      expect(await optimisticWrite()).toBe('true');
    },
  );

  test('an input set after the build reaches the marts through a rebuild of its readers only', async () => {
    itemTree();
    model('inputs', 'run_note', '-- a late fact\nCREATE OR REPLACE TEMP TABLE run_note (note VARCHAR)');
    const noted = 'select cfg_run.run_id, cfg_run.period, run_note.note from cfg_run cross join run_note';
    model('marts', 'item_runs', `-- one row per run\n-- materialized: append\n${noted}`);
    const planned = planModels(root);
    expect(readersOf(planned, 'run_note').map((m) => m.name)).toEqual(['item_runs']);
    try {
      await declareInput(warehouse, 'cfg_run', root);
      await warehouse.run(`INSERT INTO cfg_run VALUES ('2024-01', 'r1')`);
      await declareInput(warehouse, 'run_note', root);
      await warehouse.run('INSERT INTO run_note VALUES (NULL)');
      await buildModels(warehouse, planned, { stages: {}, models: {} }, capturingOutput().output);
      await warehouse.run(`UPDATE run_note SET note = 'known at the end'`);
      await buildModels(
        warehouse,
        readersOf(planned, 'run_note'),
        { stages: {}, models: {} },
        capturingOutput().output,
      );
      await publishMarts(warehouse, planned, { column: 'period', value: '2024-01' });
    } finally {
      await dropModels(warehouse, planned, ['cfg_run', 'run_note']);
    }
    expect(await warehouse.all('SELECT run_id, note FROM item_runs')).toEqual([
      { run_id: 'r1', note: 'known at the end' },
    ]);
  });

  test(
    'a failing data test fails with its rows shown, ' + 'PINs only as their last 4, and a passing one is listed',
    async () => {
      const models = itemTree();
      const pin = '1234-5678-9012-3456';
      await warehouse.run(`INSERT INTO src_items VALUES (1, 2.5, NULL), (2, -1.0, $1)`, [pin]);
      model(
        'tests',
        'prices_not_negative',
        '-- items priced below zero\nselect id, price, key from int_items_priced where price < 0',
      );
      model(
        'tests',
        'ids_unique',
        '-- ids seen twice\nselect id from int_items_priced group by id having count(*) > 1',
      );
      const tests = loadTests(root);
      expect(tests.map((t) => t.name)).toEqual(['ids_unique', 'prices_not_negative']);
      try {
        await declareInput(warehouse, 'cfg_run', root);
        await warehouse.run(`INSERT INTO cfg_run VALUES ('2024-01', 'r1')`);
        await buildModels(warehouse, models, { stages: {}, models: {} }, capturingOutput().output);
        const failure = await runDataTests(warehouse, tests).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(JobError);
        const message = (failure as JobError).message;
        expect(message).toMatch(/failed 1 data test\(s\); nothing was published/);
        expect(message).toMatch(/data test prices_not_negative failed \(.*prices_not_negative\.sql\)/);
        expect(message).toContain(maskPin(pin));
        expect(message).not.toContain(pin);
        expect(message).not.toContain('ids_unique failed');

        await warehouse.run('DELETE FROM src_items WHERE price < 0');
        await buildModels(warehouse, models, { stages: {}, models: {} }, capturingOutput().output);
        expect(await runDataTests(warehouse, tests)).toEqual([
          { name: 'ids_unique', passed: true },
          { name: 'prices_not_negative', passed: true },
        ]);
      } finally {
        await dropModels(warehouse, models, ['cfg_run']);
      }
    },
  );

  test('a model that cannot be built names itself and its file', async () => {
    const file = model('staging', 'stg_broken', '-- broken\nselect no_such_column from src_items');
    const models = planModels(root);
    const output = capturingOutput().output;
    const failure = await buildModels(warehouse, models, { stages: {}, models: {} }, output).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(JobError);
    expect((failure as JobError).message).toContain(`Building the model stg_broken (${file}) failed`);
    await dropModels(warehouse, models, []);
  });
});
