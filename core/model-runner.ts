/**
 * The model runner: plans the SQL models of `sql/{staging,intermediate,marts}` (each after what it reads), builds
 * them as temporary tables or views, runs the data tests of `sql/tests/`, and publishes the marts. Each model says
 * in its header how it is materialized (`-- materialized: view | table | append`, docs/ARCHITECTURE.md "SQL
 * models"), so the runner knows no model by name. It knows no job either: reconcile (pipelines/reconcile/reconcile.ts)
 * creates the inputs, decides what to rebuild and when to publish.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { JobError, outOfMemoryHint } from './errors.js';
import { maskPin } from './masking.js';
import { formatTable, type Output } from './output.js';
import { documentMarts } from './mart-docs.js';
import { sqlDir } from './paths.js';
import { sqlIdentifier } from './sql.js';
import type { Warehouse } from './warehouse.js';
import { redact } from './secret-redaction.js';

export const layers = ['staging', 'intermediate', 'marts'] as const;
export type Layer = (typeof layers)[number];

/**
 * How a model is kept. `table` (the default): a temporary table; a mart's table replaces the published
 * partition (the period's rows). `view`: a temporary view, for a model only one other reads, cheaply — not worth
 * holding a million rows in memory for (not for marts: they are published as tables). `append` (marts only): its
 * rows are added to the published table at each run, which keeps them all (a history, a log of runs).
 */
export type Materialization = 'table' | 'view' | 'append';
const materializations: readonly Materialization[] = ['table', 'view', 'append'];

export interface SqlModel {
  name: string;
  layer: Layer;
  file: string;
  sql: string;
  /** The models it reads (from/join), each built before it. */
  dependsOn: string[];
  /** Every table it reads, models or not (inputs such as cfg_params, persistent tables): what a rebuild follows. */
  reads: string[];
  materialized: Materialization;
}

export interface SqlTest {
  name: string;
  file: string;
  sql: string;
}

/** Seconds per layer and per model of the builds they are passed to (added per layer, last build per model). */
export interface BuildTimings {
  stages: Record<string, number>;
  models: Record<string, number>;
}

const failingRowsShown = 10;

/** The models of `sql/staging`, `sql/intermediate` and `sql/marts`, in an order where each follows what it reads. */
export function planModels(root: string = sqlDir()): SqlModel[] {
  const found: Omit<SqlModel, 'dependsOn' | 'reads'>[] = [];
  for (const layer of layers) {
    for (const file of sqlFiles(path.join(root, layer))) {
      const sql = readSql(file);
      const materialized = declaredMaterialization(file, layer, sql);
      found.push({ name: path.basename(file, '.sql'), layer, file, sql, materialized });
    }
  }
  const seen = new Map<string, string>();
  for (const model of found) {
    const first = seen.get(model.name);
    if (first) {
      const what = `Two SQL models are named ${model.name} (${first}, ${model.file}).`;
      throw new JobError(what, 'Model names are table names: rename one of the files.');
    }
    seen.set(model.name, model.file);
  }
  const models = found.map((m) => {
    const reads = [...referencedNames(m.sql)].filter((n) => n !== m.name);
    return { ...m, reads, dependsOn: reads.filter((n) => seen.has(n)) };
  });
  return orderByDependencies(models);
}

/**
 * The materialization a model's header declares: a line `-- materialized: <kind>` among the comment lines the file
 * starts with (default `table`). Such a line anywhere else, twice, of an unknown kind or of a kind its layer cannot
 * have is refused, naming the file.
 */
export function declaredMaterialization(file: string, layer: Layer, sql: string): Materialization {
  const lines = sql.split('\n');
  const headerLength = lines.findIndex((line) => !/^\s*(--.*)?$/.test(line));
  const declared = lines.flatMap((line, index) => {
    const match = /^\s*--\s*materialized\s*:\s*(\S*)\s*$/.exec(line);
    return match ? [{ kind: match[1]!, line: index + 1 }] : [];
  });
  if (declared.length === 0) return 'table';
  const where = `${file}:${declared[0]!.line}`;
  if (declared.length > 1) {
    const what = `${file} declares its materialization ${declared.length} times.`;
    throw new JobError(what, 'Keep one "-- materialized:" line, in the header.');
  }
  const { kind, line } = declared[0]!;
  if (headerLength !== -1 && line > headerLength) {
    const what = `${where}: "-- materialized: ${kind}" is below the model's header, where it is not read.`;
    throw new JobError(what, 'Move it to the comment lines the file starts with.');
  }
  if (!materializations.includes(kind as Materialization)) {
    throw new JobError(`${where}: unknown materialization "${kind}".`, `Write one of: ${materializations.join(', ')}.`);
  }
  if (kind === 'view' && layer === 'marts') {
    const what = `${where} says "materialized: view": marts are published as tables.`;
    throw new JobError(what, 'Remove that line from the mart (or say table or append).');
  }
  if (kind === 'append' && layer !== 'marts') {
    const what = `${where} says "materialized: append": only a mart is published, so only a mart can append.`;
    throw new JobError(what, 'Say table or view.');
  }
  return kind as Materialization;
}

/** The data tests of `sql/tests`: queries that return the failing rows. */
export function loadTests(root: string = sqlDir()): SqlTest[] {
  return sqlFiles(path.join(root, 'tests')).map((file) => ({
    name: path.basename(file, '.sql'),
    file,
    sql: readSql(file),
  }));
}

/** `name` (a model or an input) and every model that reads it, directly or through others, in build order. */
export function readersOf(models: SqlModel[], name: string): SqlModel[] {
  const affected = new Set([name]);
  // Build order puts every model after what it reads, so one pass finds all readers.
  for (const model of models) if (model.reads.some((d) => affected.has(d))) affected.add(model.name);
  return models.filter((m) => affected.has(m.name));
}

/** Runs `sql/inputs/<table>.sql`: an input the models read, declared with its columns, created empty. */
export function declareInput(warehouse: Warehouse, table: string, root: string = sqlDir()): Promise<void> {
  return warehouse.run(readSql(path.join(root, 'inputs', `${table}.sql`)));
}

/** Builds `models` in the order given (a plan, or part of one), each replacing its temporary table or view. */
export async function buildModels(
  warehouse: Warehouse,
  models: SqlModel[],
  timings: BuildTimings,
  output: Output,
): Promise<void> {
  for (const [index, model] of models.entries()) {
    output.progress({ label: 'models', done: index, total: models.length, facts: { building: model.name } });
    const started = Date.now();
    try {
      const kind = model.materialized === 'view' ? 'VIEW' : 'TABLE';
      await warehouse.run(`CREATE OR REPLACE TEMP ${kind} ${sqlIdentifier(model.name)} AS ${model.sql}`);
    } catch (error) {
      const what = `Building the model ${model.name} (${model.file}) failed: ${(error as Error).message}`;
      throw new JobError(
        what,
        outOfMemoryHint(error, warehouse.memoryLimitInForce()) ?? 'Fix the SQL of that model, then re-run reconcile.',
        {
          cause: error,
        },
      );
    }
    const took = seconds(started);
    timings.models[model.name] = took;
    timings.stages[model.layer] = round((timings.stages[model.layer] ?? 0) + took);
  }
}

/** "built 26 models (staging 0.02 s, intermediate 1.08 s, marts 0.19 s)" */
export function describeBuild(models: number, stages: Record<string, number>): string {
  return `built ${models} models (${layers.map((l) => `${l} ${(stages[l] ?? 0).toFixed(2)} s`).join(', ')})`;
}

/** Runs every data test; any failing row fails the job, showing up to 10 rows of each failed test, PINs masked. */
export async function runDataTests(
  warehouse: Warehouse,
  tests: SqlTest[],
): Promise<{ name: string; passed: boolean }[]> {
  const results: { name: string; passed: boolean }[] = [];
  const failures: string[] = [];
  for (const test of tests) {
    const rows = await failingRows(warehouse, test);
    results.push({ name: test.name, passed: rows.length === 0 });
    if (rows.length > 0) {
      const shown = rows.slice(0, failingRowsShown).map(maskRow);
      const more = rows.length > failingRowsShown ? `\n(more rows not shown)` : '';
      failures.push(`data test ${test.name} failed (${test.file}):\n${formatTable(shown)}${more}`);
    }
  }
  if (failures.length > 0) {
    throw new JobError(
      `The reconciliation of the period failed ${failures.length} data test(s); nothing was ` +
        `published.\n${failures.join('\n\n')}`,
      'The failing rows point at the data that broke the rule (e.g. a ledger line loaded twice); ' +
        'fix or re-import it, then re-run reconcile.',
    );
  }
  return results;
}

/** Up to 11 failing rows of a test (10 shown, and whether there are more). */
async function failingRows(warehouse: Warehouse, test: SqlTest): Promise<Record<string, unknown>[]> {
  try {
    // On lines of its own: a test ending in a comment ran into the closing parenthesis.
    return await warehouse.all(`SELECT * FROM (\n${test.sql}\n) AS failing LIMIT ${failingRowsShown + 1}`);
  } catch (error) {
    const what = `The data test ${test.name} (${test.file}) could not run: ${(error as Error).message}`;
    throw new JobError(
      what,
      outOfMemoryHint(error, warehouse.memoryLimitInForce()) ?? 'Fix the SQL of that test, then re-run reconcile.',
      {
        cause: error,
      },
    );
  }
}

/** PINs leave the database only as their last 4 characters, even in an error message. */
function maskRow(row: Record<string, unknown>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    // `raw` is a record as received: its "key" fields are masked, the rest stays readable.
    if (typeof value !== 'string') masked[column] = value;
    else masked[column] = column === 'key' ? maskPin(value) : column === 'raw' ? redact(value) : value;
  }
  return masked;
}

/**
 * Publishes every mart to its persistent table, in one transaction: a `table` mart's rows of the partition
 * (e.g. period = '2024-03') are replaced by the built ones; an `append` mart's built rows are added.
 */
export async function publishMarts(
  warehouse: Warehouse,
  models: SqlModel[],
  partition: { column: string; value: string },
  /** current_database(), when the caller has it already (issue 27: one read a reconcile). */
  known?: string,
): Promise<void> {
  const database = known ?? (await databaseName(warehouse));
  // Rows kept in the transaction until its commit, not written ahead (optimistic write): the commit drops the
  // period's old rows, which renumbers the rows after them, and DuckDB then compresses the new rows a second time.
  // The 1M month's 111k findings published in 0.40 s instead of 0.63 s (the 10M month's 1.1M alone in 1.9 s instead
  // of 2.7-3.2 s, though its whole publish stage did not move), at the same peak RSS.
  await warehouse.withSetting('enable_optimistic_write', 'false', () =>
    publishRows(warehouse, models, partition, database),
  );
  // Issue 31: each mart and column described in the database from its .yml, JSON columns typed JSON.
  await documentMarts(
    warehouse,
    database,
    models.filter((m) => m.layer === 'marts'),
  );
}

async function publishRows(
  warehouse: Warehouse,
  models: SqlModel[],
  partition: { column: string; value: string },
  database: string,
): Promise<void> {
  await warehouse.transaction(async () => {
    for (const mart of models.filter((m) => m.layer === 'marts')) {
      const target = persistent(database, mart.name);
      const built = `temp.main.${sqlIdentifier(mart.name)}`;
      try {
        // A mart added without a schema file still gets its table.
        await warehouse.run(`CREATE TABLE IF NOT EXISTS ${target} AS SELECT * FROM ${built} LIMIT 0`);
        if (mart.materialized === 'table') {
          await warehouse.run(`DELETE FROM ${target} WHERE ${sqlIdentifier(partition.column)} = $1`, [partition.value]);
        }
        await warehouse.run(`INSERT INTO ${target} BY NAME SELECT * FROM ${built}`);
      } catch (error) {
        const what =
          `Publishing the mart ${mart.name} (${mart.file}, materialized ${mart.materialized}) failed: ` +
          `${(error as Error).message}`;
        const hint =
          `A table mart replaces its rows of one ${partition.column}, so it needs that column; its columns must be ` +
          "its table's (sql/schema/). Nothing was published.";
        throw new JobError(what, outOfMemoryHint(error, warehouse.memoryLimitInForce()) ?? hint, { cause: error });
      }
    }
  });
}

/** Drops the models' temporary tables and views and the named inputs; never fails (it runs after a failure too). */
export async function dropModels(warehouse: Warehouse, models: SqlModel[], inputs: readonly string[]): Promise<void> {
  const drops = [
    ...[...models].reverse().map((model) => {
      const kind = model.materialized === 'view' ? 'VIEW' : 'TABLE';
      return `DROP ${kind} IF EXISTS temp.main.${sqlIdentifier(model.name)}`;
    }),
    ...inputs.map((name) => `DROP TABLE IF EXISTS temp.main.${sqlIdentifier(name)}`),
  ];
  if (drops.length === 0) return;
  // One call for all of them (issue 27: ~45 statements a reconcile); should one fail, each is dropped alone, so the
  // others still are.
  const dropped = await warehouse.run(drops.join(';\n')).then(
    () => true,
    () => false,
  );
  if (dropped) return;
  for (const drop of drops) await warehouse.run(drop).catch(() => undefined);
}

export async function databaseName(warehouse: Warehouse): Promise<string> {
  const row = await warehouse.one<{ name: string }>('SELECT current_database() AS name');
  return row!.name;
}

/** `"db".main."table"`: the persistent table, never a temporary one of the same name. */
export function persistent(database: string, table: string): string {
  return `${sqlIdentifier(database)}.main.${sqlIdentifier(table)}`;
}

function sqlFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => path.join(dir, f));
}

function readSql(file: string): string {
  return readFileSync(file, 'utf8').trim().replace(/;\s*$/, '');
}

/** Names after `from` and `join`, with comments and string literals removed first. */
function referencedNames(sql: string): Set<string> {
  const code = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
  const names = new Set<string>();
  for (const match of code.matchAll(/\b(?:from|join)\s+("?)([A-Za-z_][A-Za-z0-9_]*)\1/gi))
    names.add(match[2]!.toLowerCase());
  return names;
}

/** Depth-first topological order; a cycle is an error that names it and the files to look at. */
function orderByDependencies(models: SqlModel[]): SqlModel[] {
  const byName = new Map(models.map((m) => [m.name, m]));
  const ordered: SqlModel[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (model: SqlModel, trail: string[]) => {
    const seen = state.get(model.name);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(model.name)), model.name];
      const files = cycle.slice(0, -1).map((n) => byName.get(n)!.file);
      throw new JobError(
        `The SQL models depend on each other in a cycle: ${cycle.join(' → ')}.`,
        `A model may only read models built before it; check the from/join clauses of ${files.join(', ')}.`,
      );
    }
    state.set(model.name, 'visiting');
    for (const dependency of model.dependsOn) visit(byName.get(dependency)!, [...trail, model.name]);
    state.set(model.name, 'done');
    ordered.push(model);
  };
  for (const model of models) visit(model, []);
  return ordered;
}

export function seconds(since: number): number {
  return round((Date.now() - since) / 1000);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
