/**
 * `reconcile`: (re)builds the reconciliation of one period from `sales` and `ledger` by running the SQL models
 * of `sql/` — staging, intermediate, marts, each materialized in dependency order as a temporary table — then
 * the data tests of `sql/tests/` (a failing test fails the job and shows its rows), then publishes the marts:
 * the period's rows replaced and the finding history appended, in one transaction.
 *
 * A paid ledger order without a provider sale is `missing_at_provider` with a proof (interface.md "Proof of
 * absence"): `windows` when the stored by-creation windows cover every day from extract.historyStart to the day
 * before the as-of date (int_provider__created_coverage); otherwise its reference is looked up individually at
 * the provider (reconciliation.lookupMissing), whatever is found is loaded into `sales` and the models rebuilt,
 * and one found nothing for is proven by `lookup`; where neither is possible the finding says `unproven`.
 *
 * Configuration reaches the SQL as data, never as pasted text: the runner creates `cfg_params` (one row:
 * period bounds, as-of, tolerances, time zone, run id), `cfg_status_map` (reconciliation.statusMap),
 * `cfg_exception_types` (the registry of finding types, core/exception-types.ts),
 * `prev_recon_exceptions` (the findings open for the period before this run, for identity and history), each
 * declared with its columns in `sql/inputs/`; `signed_recon_exceptions` (the active sign-off's rows) and
 * `cur_recon_decisions` (the current decision of each finding, from recon_decisions).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { JobError, outOfMemoryHint, UsageError } from '../core/errors.js';
import { sqlDir } from '../core/paths.js';
import type { Config } from '../config/schema.js';
import { formatTable, type Output } from '../core/output.js';
import { PartnerApiClient } from '../sources/partner-api/client.js';
import { redact } from '../sources/partner-api/errors.js';
import { periodEnd, periodStart, todayIn } from '../core/calendar.js';
import { lookUpReferences, type ReferenceLookupSummary } from './provider-lookup.js';
import { recordRun } from './run-trace.js';
import type { Warehouse } from '../core/warehouse.js';
import { exceptionTypeInputRows, exceptionTypes, type ExceptionType } from '../core/exception-types.js';
import { sqlIdentifier } from '../core/sql.js';
import { maskPin } from '../core/masking.js';
import { checkCompleteness, incompleteError, type Completeness } from './completeness.js';
import { activeSignoff, createSignedInput, signoffFacts, signoffState, type SignoffState } from './close.js';
import { describeClose } from '../reports/close-facts.js';

export interface ReconcileOptions {
  /** YYYY-MM, in the configured time zone. */
  period: string;
  /** YYYY-MM-DD: the date unredeemed keys are aged at (default: today in the configured zone). */
  asOf?: string;
  /** A client to share with other steps; by default one is made (when credentials are configured) and closed. */
  client?: PartnerApiClient;
  parentRunId?: string;
  /** Reconcile a period that is not completely extracted: findings are stored with the verdict `incomplete`. */
  allowIncomplete?: boolean;
  /**
   * Which would-be-missing references are looked up individually: only those the windows do not prove
   * absent ('unproven', the default), or all of them ('all': for tests and benchmarks that prove both give
   * the same findings).
   */
  lookupScope?: 'unproven' | 'all';
}

/** "3 proven by windows, 1 by lookup, 2 unproven": the missing_at_provider findings by proof. */
export function describeProof(proof: ReconcileSummary['proof']): string {
  return `${proof.windows} proven by windows, ${proof.lookup} by lookup, ${proof.unproven} unproven`;
}

/** Runs with more look-ups than this say that extract.historyStart (and its back-fill) would avoid them. */
export const manyLookups = 100;

/**
 * One currency's line of reconcile's summary (and of its --json): counts as numbers. The report's fuller
 * per-currency totals, read from the published marts, are `CurrencyTotals` in reports/report-facts.ts.
 */
export interface CurrencySummary {
  currencyCode: string | null;
  ledgerOrders: number;
  /** Money as exact decimal strings. */
  ledgerCostTotal: string;
  providerSales: number;
  providerCostTotal: string;
  providerMargin: string;
  matched: number;
  exceptions: number;
}

export interface ReconcileSummary {
  runId: string;
  period: string;
  asOf: string;
  exceptions: number;
  byType: Record<ExceptionType, number>;
  currencies: CurrencySummary[];
  history: { new: number; stillOpen: number; cleared: number };
  /** Match classes of the rows in the period's scope (and out_of_period for the rest, built or not), per side. */
  matchClasses: { side: string; matchClass: string; rows: number }[];
  /** provenAbsent: would-be-missing orders not looked up because the by-creation windows prove them absent. */
  lookup: { done: boolean; skippedBecause?: string; provenAbsent?: number } & Partial<ReferenceLookupSummary>;
  /** missing_at_provider findings by how their absence was proven. */
  proof: { windows: number; lookup: number; unproven: number };
  /** Whether the by-creation windows prove absence, and the first gap when they do not. */
  coverage: WindowCoverage;
  tests: { name: string; passed: boolean }[];
  /** Seconds per stage: staging, intermediate, marts, lookup, rebuild, tests, publish. */
  stages: Record<string, number>;
  /** Seconds per model (last build). */
  models: Record<string, number>;
  elapsedSeconds: number;
  /** recon_summary.verdict: incomplete | reconciled | reconciled_with_findings. */
  verdict: string;
  completeness: Completeness;
  /** The period's sign-off and what changed since it (recon_signoff_changes). */
  signoff: SignoffState;
  /** The sign-off state in words: "signed off by X at T (zone)", "changed since sign-off by …", "reopened by …". */
  signoffDescription: string;
}

export interface SqlModel {
  name: string;
  layer: 'staging' | 'intermediate' | 'marts';
  file: string;
  sql: string;
  dependsOn: string[];
  /**
   * A temporary table (default), or a view when the file says `-- materialized: view`: a model only one
   * other model reads, and cheaply, is not worth holding a million rows in memory for.
   */
  materialized: 'table' | 'view';
}

export interface SqlTest {
  name: string;
  file: string;
  sql: string;
}

const layers = ['staging', 'intermediate', 'marts'] as const;
/** Marts that accumulate a row per run instead of holding the period's current state. */
const appendOnlyMarts = new Set(['recon_exception_history', 'recon_runs']);
/**
 * Inputs the runner creates for the models: `cfg_*` and `prev_recon_exceptions` are declared with their columns
 * in `sql/inputs/`; `signed_recon_exceptions` is the active sign-off's rows of `recon_exceptions_signed` (pipelines/close.ts);
 * `cur_recon_decisions` the current decision of each finding of the period (recon_decisions).
 */
export interface WindowCoverage {
  historyStart: string | null;
  /** The day before the as-of date: the last day the windows must cover. */
  coveredThrough: string;
  provesAbsence: boolean;
  /** Days from historyStart to coveredThrough no completed by-creation window holds (0 when proven). */
  uncoveredDays: number;
  firstUncoveredDay: string | null;
  lastUncoveredDay: string | null;
}

const inputTables = [
  'cfg_params',
  'cfg_status_map',
  'cfg_exception_types',
  'prev_recon_exceptions',
  'signed_recon_exceptions',
  'cur_recon_decisions',
] as const;
const failingRowsShown = 10;

export async function reconcile(warehouse: Warehouse, config: Config, options: ReconcileOptions, output: Output): Promise<ReconcileSummary> {
  const started = Date.now();
  const period = checkPeriod(options.period);
  const asOf = checkAsOf(options.asOf ?? todayIn(config.timezone));
  const models = planModels();
  const tests = loadTests();
  const args = { period, asOf };
  return recordRun(
    warehouse,
    'reconcile',
    args,
    async (run) => {
      const stages: Record<string, number> = {};
      const modelSeconds: Record<string, number> = {};
      const database = await databaseName(warehouse);
      const builtAt = new Date();
      const lookup: ReconcileSummary['lookup'] = { done: false };
      const completeness = await checkCompleteness(warehouse, config, period);
      if (!completeness.complete) {
        if (!options.allowIncomplete) throw incompleteError(completeness, 'it is not reconciled', '--allow-incomplete to store its findings with the verdict incomplete');
        output.warn(`the period ${period} is not completely extracted: its findings are stored with the verdict incomplete\n${completeness.reasons.map((r) => `  - ${r}`).join('\n')}`);
      }
      const signoff = await activeSignoff(warehouse, period);
      try {
        await createInputs(warehouse, config, database, { period, asOf, runId: run.runId, builtAt, lookups: 0, lookupsFound: 0, completeness, signoffId: signoff?.signoffId ?? null });
        await createSignedInput(warehouse, database, signoff?.signoffId ?? null);
        await buildModels(warehouse, models, stages, modelSeconds, output);

        const coverage = await windowCoverage(warehouse);
        const wouldBeMissing = await wouldBeMissingReferences(warehouse);
        // When the windows prove absence nothing is asked: the only orders they leave unproven are those the
        // provider returned a record for that could not be loaded, and asking would return the same record.
        const references = options.lookupScope === 'all' || !coverage.provesAbsence ? wouldBeMissing.all : [];
        lookup.provenAbsent = coverage.provesAbsence ? wouldBeMissing.all.length - wouldBeMissing.quarantined : 0;
        if (lookup.provenAbsent > 0) {
          output.info(
            `${lookup.provenAbsent} of ${wouldBeMissing.all.length} paid orders without a provider sale proven absent ` +
              `by the by-creation windows (${coverage.historyStart}..${coverage.coveredThrough})`,
          );
        } else if (wouldBeMissing.all.length > 0) {
          output.info(`${wouldBeMissing.all.length} paid orders without a provider sale: ${describeCoverageGap(coverage)}`);
        }
        const skippedBecause = lookupSkippedBecause(config, options, references.length, lookup.provenAbsent, completeness.complete);
        if (skippedBecause) {
          lookup.skippedBecause = skippedBecause;
          if (references.length > 0) {
            const what = `individual lookup of ${references.length} would-be missing references skipped`;
            output.info(`${what}: ${skippedBecause}; their findings say proof unproven`);
          }
        } else {
          const client = options.client ?? new PartnerApiClient(config.api);
          const statsBefore = { ...client.stats };
          const lookupStarted = Date.now();
          try {
            Object.assign(lookup, await lookUpReferences(warehouse, config, client, references, { runId: run.runId, label: period }, output), { done: true });
          } finally {
            run.counters.requests += client.stats.requests - statsBefore.requests;
            run.counters.retries += client.stats.retries - statsBefore.retries;
            run.counters.rateLimited += client.stats.rateLimited - statsBefore.rateLimited;
            if (!options.client) client.close();
          }
          stages.lookup = seconds(lookupStarted);
          await warehouse.run('UPDATE cfg_params SET lookups = $1, lookups_found = $2', [lookup.references ?? 0, lookup.found ?? 0]);
          const rebuildStarted = Date.now();
          // Sales found are matched by every model; otherwise only what reads the look-ups' answers changes
          // (recon_exceptions' proof, and recon_runs' look-up counts through the history).
          const rebuilt = (lookup.loaded ?? 0) > 0 ? models : readersOf(models, 'stg_provider__lookups');
          await buildModels(warehouse, rebuilt, {}, modelSeconds, output);
          stages.rebuild = seconds(rebuildStarted);
          if ((lookup.references ?? 0) > manyLookups) output.warn(manyLookupsAdvice(lookup.references!, coverage));
        }

        const testsStarted = Date.now();
        const testResults = await runDataTests(warehouse, tests);
        stages.tests = seconds(testsStarted);

        const publishStarted = Date.now();
        await publishMarts(warehouse, database, models, period, { ...stages });
        stages.publish = seconds(publishStarted);

        const facts = { runId: run.runId, period, asOf, lookup, coverage, stages, modelSeconds, started, testResults, completeness, timezone: config.timezone };
        const summary = await summarize(warehouse, facts);
        run.counters.rowsLoaded = summary.exceptions;
        run.details = { ...summary, models: undefined };
        return summary;
      } finally {
        await dropTemporaries(warehouse, models);
      }
    },
    options.parentRunId,
  );
}

/** The models of `sql/staging`, `sql/intermediate` and `sql/marts`, in an order where each follows what it reads. */
export function planModels(root: string = sqlDir()): SqlModel[] {
  const found: Omit<SqlModel, 'dependsOn'>[] = [];
  for (const layer of layers) {
    const dir = path.join(root, layer);
    for (const file of sqlFiles(dir)) {
      const sql = readModelSql(file);
      const materialized = /^--\s*materialized:\s*view\s*$/m.test(sql) ? 'view' : 'table';
      if (materialized === 'view' && layer === 'marts') throw new JobError(`${file} says "materialized: view": marts are published as tables.`, 'Remove that line from the mart.');
      found.push({ name: path.basename(file, '.sql'), layer, file, sql, materialized });
    }
  }
  const names = new Set(found.map((m) => m.name));
  if (names.size !== found.length) {
    const seen = new Set<string>();
    const twice = found.find((m) => (seen.has(m.name) ? true : (seen.add(m.name), false)))!;
    throw new JobError(`Two SQL models are named ${twice.name} (${twice.file}).`, 'Model names are table names: rename one of the files.');
  }
  const models = found.map((m) => ({ ...m, dependsOn: [...referencedNames(m.sql)].filter((n) => names.has(n) && n !== m.name) }));
  return orderByDependencies(models);
}

/** The data tests of `sql/tests`: queries that return the failing rows. */
export function loadTests(root: string = sqlDir()): SqlTest[] {
  return sqlFiles(path.join(root, 'tests')).map((file) => ({ name: path.basename(file, '.sql'), file, sql: readModelSql(file) }));
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

function readModelSql(file: string): string {
  return readFileSync(file, 'utf8').trim().replace(/;\s*$/, '');
}

/** Names after `from` and `join`, with comments and string literals removed first. */
function referencedNames(sql: string): Set<string> {
  const code = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
  const names = new Set<string>();
  for (const match of code.matchAll(/\b(?:from|join)\s+("?)([A-Za-z_][A-Za-z0-9_]*)\1/gi)) names.add(match[2]!.toLowerCase());
  return names;
}

/** Depth-first topological order; a cycle is an error that names it. */
function orderByDependencies(models: SqlModel[]): SqlModel[] {
  const byName = new Map(models.map((m) => [m.name, m]));
  const ordered: SqlModel[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (model: SqlModel, trail: string[]) => {
    const seen = state.get(model.name);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(model.name)), model.name];
      throw new JobError(
        `The SQL models depend on each other in a cycle: ${cycle.join(' → ')}.`,
        `A model may only read models built before it; check the from/join clauses of ${cycle.map((n) => byName.get(n)!.file).slice(0, -1).join(', ')}.`,
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

async function databaseName(warehouse: Warehouse): Promise<string> {
  const row = await warehouse.one<{ name: string }>('SELECT current_database() AS name');
  return row!.name;
}

/** `"db".main."table"`: the persistent table, never a temporary one of the same name. */
function persistent(database: string, table: string): string {
  return `${sqlIdentifier(database)}.main.${sqlIdentifier(table)}`;
}

interface RunParams {
  period: string;
  asOf: string;
  runId: string;
  builtAt: Date;
  lookups: number;
  lookupsFound: number;
  completeness: Completeness;
  /** The period's active sign-off, compared with by recon_signoff_changes. */
  signoffId: string | null;
}

/** The runner's inputs, declared with their columns in `sql/inputs/<table>.sql`: created empty, then filled here. */
function declareInput(warehouse: Warehouse, table: Exclude<(typeof inputTables)[number], 'signed_recon_exceptions' | 'cur_recon_decisions'>): Promise<void> {
  return warehouse.run(readModelSql(path.join(sqlDir(), 'inputs', `${table}.sql`)));
}

async function createInputs(warehouse: Warehouse, config: Config, database: string, p: RunParams): Promise<void> {
  const r = config.reconciliation;
  await declareInput(warehouse, 'cfg_params');
  await warehouse.run(
    `INSERT INTO cfg_params BY NAME SELECT
       $1::VARCHAR AS period, $2::DATE AS period_start, $3::DATE AS period_end, $4::DATE AS as_of,
       timezone($8::VARCHAR, $2::DATE::TIMESTAMP) - INTERVAL 1 DAY AS scope_starts_at,
       timezone($8::VARCHAR, $3::DATE::TIMESTAMP) + INTERVAL 2 DAY AS scope_ends_at,
       $5::DECIMAL(18,4) AS cost_tolerance, $6::DECIMAL(18,4) AS price_tolerance, $7::INTEGER AS unredeemed_after_days,
       $8::VARCHAR AS timezone, $9::VARCHAR AS run_id, $10::TIMESTAMPTZ AS built_at,
       $11::BIGINT AS lookups, $12::BIGINT AS lookups_found,
       $13::BOOLEAN AS complete, $14::VARCHAR AS incomplete_reasons, $15::VARCHAR AS signoff_id,
       $16::DATE AS history_start`,
    [
      p.period,
      periodStart(p.period),
      periodEnd(p.period),
      p.asOf,
      String(r.costTolerance),
      String(r.priceTolerance ?? r.costTolerance),
      r.unredeemedAfterDays,
      config.timezone,
      p.runId,
      p.builtAt.toISOString(),
      p.lookups,
      p.lookupsFound,
      p.completeness.complete,
      p.completeness.complete ? null : JSON.stringify(p.completeness.reasons),
      p.signoffId,
      config.extract.historyStart ?? null,
    ],
  );
  await declareInput(warehouse, 'cfg_status_map');
  for (const [status, statusClass] of Object.entries(r.statusMap)) {
    await warehouse.run('INSERT OR REPLACE INTO cfg_status_map VALUES (trim($1), $2)', [status, statusClass]);
  }
  await declareInput(warehouse, 'cfg_exception_types');
  for (const row of exceptionTypeInputRows()) await warehouse.run('INSERT INTO cfg_exception_types VALUES ($1, $2, $3, $4, $5)', row);
  await declareInput(warehouse, 'prev_recon_exceptions');
  await warehouse.run(
    `INSERT INTO prev_recon_exceptions BY NAME
     SELECT e.finding_id, e.exception_type, e.partner_reference, e.transaction_id, e.first_detected_at,
            -- issue 15, the roll-forward: amount, currency and decision as the previous run left them
            e.currency_code, e.amount, e.built_at,
            (SELECT arg_max(d.decision, d.decided_at) FROM ${persistent(database, 'recon_decisions')} d
             WHERE d.finding_id = e.finding_id AND d.decided_at <= e.built_at) AS decision_at_build
     FROM ${persistent(database, 'recon_exceptions')} e WHERE e.period = $1`,
    [p.period],
  );
  // Decisions are kept apart from the marts (findings import/decide), so they survive this rebuild.
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE cur_recon_decisions AS
     SELECT finding_id, decision, note, owner, expected_clear_by, decided_by, decided_at, row_sha256
     FROM ${persistent(database, 'recon_decisions')} WHERE period = $1 AND superseded_at IS NULL`,
    [p.period],
  );
}

async function buildModels(
  warehouse: Warehouse,
  models: SqlModel[],
  stages: Record<string, number>,
  modelSeconds: Record<string, number>,
  output: Output,
): Promise<void> {
  for (const [index, model] of models.entries()) {
    output.progress({ label: 'models', done: index, total: models.length, facts: { building: model.name } });
    const started = Date.now();
    try {
      await warehouse.run(`CREATE OR REPLACE TEMP ${model.materialized === 'view' ? 'VIEW' : 'TABLE'} ${sqlIdentifier(model.name)} AS ${model.sql}`);
    } catch (error) {
      throw new JobError(`Building the model ${model.name} (${model.file}) failed: ${(error as Error).message}`, outOfMemoryHint(error) ?? 'Fix the SQL of that model, then re-run reconcile.', {
        cause: error,
      });
    }
    const took = seconds(started);
    modelSeconds[model.name] = took;
    stages[model.layer] = round((stages[model.layer] ?? 0) + took);
  }
  output.info(`built ${models.length} models (${layers.map((l) => `${l} ${(stages[l] ?? 0).toFixed(2)} s`).join(', ')})`);
}

/**
 * Paid ledger references of the period that no provider sale carries (yet): the candidates of an individual
 * look-up, and how many of them the provider returned a record for that could not be loaded (quarantined).
 */
async function wouldBeMissingReferences(warehouse: Warehouse): Promise<{ all: string[]; quarantined: number }> {
  const rows = await warehouse.all<{ partner_reference: string; quarantined: boolean }>(
    `SELECT l.partner_reference, bool_or(q.partner_reference IS NOT NULL) AS quarantined
     FROM int_ledger__orders_classified l
     JOIN int_recon_rows_classified c ON c.side = 'ledger' AND c.ledger_line_id = l.ledger_line_id
     LEFT JOIN stg_provider__quarantined_references q ON q.partner_reference = l.partner_reference
     WHERE l.is_in_period AND l.is_active AND l.partner_reference IS NOT NULL AND c.provider_sales = 0
     GROUP BY l.partner_reference
     ORDER BY 1`,
  );
  return { all: rows.map((r) => r.partner_reference), quarantined: rows.filter((r) => r.quarantined).length };
}

async function windowCoverage(warehouse: Warehouse): Promise<WindowCoverage> {
  const row = (await warehouse.one<Record<string, string | boolean | null>>(
    `SELECT history_start::VARCHAR AS history_start, covered_through::VARCHAR AS covered_through, proves_absence,
            uncovered_days, first_uncovered_day::VARCHAR AS first_uncovered_day, last_uncovered_day::VARCHAR AS last_uncovered_day
     FROM int_provider__created_coverage`,
  ))!;
  return {
    historyStart: (row.history_start as string | null) ?? null,
    coveredThrough: row.covered_through as string,
    provesAbsence: Boolean(row.proves_absence),
    uncoveredDays: Number(row.uncovered_days ?? 0),
    firstUncoveredDay: (row.first_uncovered_day as string | null) ?? null,
    lastUncoveredDay: (row.last_uncovered_day as string | null) ?? null,
  };
}

/** Why the windows do not prove absence, in words. */
function describeCoverageGap(c: WindowCoverage): string {
  if (!c.historyStart) return 'extract.historyStart is not set, so the windows prove no absence; only an individual look-up does';
  const gap =
    c.firstUncoveredDay === c.lastUncoveredDay ? `on ${c.firstUncoveredDay}` : `between ${c.firstUncoveredDay} and ${c.lastUncoveredDay}`;
  return (
    `the by-creation windows do not cover ${c.uncoveredDays} day(s) from extract.historyStart ${c.historyStart} to ${c.coveredThrough} ` +
    `(${gap}), so they prove no absence`
  );
}

/** Said when a run needed more than `manyLookups` look-ups: what makes them unnecessary. */
function manyLookupsAdvice(lookups: number, c: WindowCoverage): string {
  return c.historyStart
    ? `${lookups} individual look-ups were needed because the by-creation windows from extract.historyStart ${c.historyStart} ` +
        `to ${c.coveredThrough} have gaps (first: ${c.firstUncoveredDay}): \`pinrecon extract --from ${c.firstUncoveredDay} ` +
        `--to ${c.lastUncoveredDay} --by created\` fills them, and the windows then prove absence without look-ups.`
    : `${lookups} individual look-ups were needed: set extract.historyStart (the date before which the provider holds no sale of ours; ` +
        'env PINRECON_HISTORY_START) and `pinrecon extract` / `pinrecon run` back-fill the by-creation windows from it once, ' +
        'so the windows prove absence without look-ups.';
}

/** `name` and every model that reads it, directly or through others, in build order. */
export function readersOf(models: SqlModel[], name: string): SqlModel[] {
  const affected = new Set([name]);
  // Build order puts every model after what it reads, so one pass finds all readers.
  for (const model of models) if (model.dependsOn.some((d) => affected.has(d))) affected.add(model.name);
  return models.filter((m) => affected.has(m.name));
}

function lookupSkippedBecause(config: Config, options: ReconcileOptions, references: number, provenAbsent: number, complete: boolean): string | undefined {
  if (references === 0) {
    return provenAbsent > 0
      ? `every paid ledger order without a provider sale (${provenAbsent}) is proven absent by the by-creation windows`
      : 'no paid ledger order of the period lacks a provider sale, or the windows speak for each';
  }
  // On a partial extraction most of them are only not fetched yet: asking one by one would flood the API.
  if (!complete) return 'the period is not completely extracted (verdict incomplete)';
  if (!config.reconciliation.lookupMissing) return 'reconciliation.lookupMissing is false';
  if (!options.client && !(config.api.identifier && config.api.secret)) {
    return (
      'no API credentials configured (api.identifier / api.secret, or PINRECON_API_IDENTIFIER / PINRECON_API_SECRET); ' +
      'those orders are reported missing_at_provider, unproven, without asking'
    );
  }
  return undefined;
}

async function runDataTests(warehouse: Warehouse, tests: SqlTest[]): Promise<{ name: string; passed: boolean }[]> {
  const results: { name: string; passed: boolean }[] = [];
  const failures: string[] = [];
  for (const test of tests) {
    let rows: Record<string, unknown>[];
    try {
      rows = await warehouse.all(`SELECT * FROM (${test.sql}) AS failing LIMIT ${failingRowsShown + 1}`);
    } catch (error) {
      throw new JobError(`The data test ${test.name} (${test.file}) could not run: ${(error as Error).message}`, outOfMemoryHint(error) ?? 'Fix the SQL of that test, then re-run reconcile.', {
        cause: error,
      });
    }
    results.push({ name: test.name, passed: rows.length === 0 });
    if (rows.length > 0) {
      const shown = rows.slice(0, failingRowsShown).map(maskRow);
      const more = rows.length > failingRowsShown ? `\n(more rows not shown)` : '';
      failures.push(`data test ${test.name} failed (${test.file}):\n${formatTable(shown)}${more}`);
    }
  }
  if (failures.length > 0) {
    throw new JobError(
      `The reconciliation of the period failed ${failures.length} data test(s); nothing was published.\n${failures.join('\n\n')}`,
      'The failing rows point at the data that broke the rule (e.g. a ledger line loaded twice); fix or re-import it, then re-run reconcile.',
    );
  }
  return results;
}

/** PINs leave the database only as their last 4 characters, even in an error message. */
function maskRow(row: Record<string, unknown>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    // `raw` is a record as received: its "key" fields are masked, the rest stays readable.
    masked[column] = typeof value !== 'string' ? value : column === 'key' ? maskPin(value) : column === 'raw' ? redact(value) : value;
  }
  return masked;
}

/** Replaces the period's rows of every mart and appends the run's history, in one transaction. */
async function publishMarts(warehouse: Warehouse, database: string, models: SqlModel[], period: string, stages: Record<string, number>): Promise<void> {
  const marts = models.filter((m) => m.layer === 'marts');
  await warehouse.transaction(async () => {
    for (const mart of marts) {
      const target = persistent(database, mart.name);
      const built = `temp.main.${sqlIdentifier(mart.name)}`;
      // A mart added without a schema file still gets its table.
      await warehouse.run(`CREATE TABLE IF NOT EXISTS ${target} AS SELECT * FROM ${built} LIMIT 0`);
      if (!appendOnlyMarts.has(mart.name)) await warehouse.run(`DELETE FROM ${target} WHERE period = $1`, [period]);
      if (mart.name === 'recon_runs') {
        await warehouse.run(`INSERT INTO ${target} BY NAME SELECT * REPLACE ($1::VARCHAR AS stage_seconds) FROM ${built}`, [JSON.stringify(stages)]);
      } else {
        await warehouse.run(`INSERT INTO ${target} BY NAME SELECT * FROM ${built}`);
      }
    }
  });
}

async function dropTemporaries(warehouse: Warehouse, models: SqlModel[]): Promise<void> {
  for (const model of [...models].reverse()) {
    await warehouse.run(`DROP ${model.materialized === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS temp.main.${sqlIdentifier(model.name)}`).catch(() => undefined);
  }
  for (const name of inputTables) await warehouse.run(`DROP TABLE IF EXISTS temp.main.${sqlIdentifier(name)}`).catch(() => undefined);
}

async function summarize(
  warehouse: Warehouse,
  facts: {
    runId: string;
    period: string;
    asOf: string;
    lookup: ReconcileSummary['lookup'];
    coverage: WindowCoverage;
    stages: Record<string, number>;
    modelSeconds: Record<string, number>;
    started: number;
    testResults: { name: string; passed: boolean }[];
    completeness: Completeness;
    /** The configured zone: the sign-off's time is shown in it. */
    timezone: string;
  },
): Promise<ReconcileSummary> {
  const byType = Object.fromEntries(exceptionTypes.map((t) => [t, 0])) as Record<ExceptionType, number>;
  for (const row of await warehouse.all<{ exception_type: ExceptionType; n: string }>(
    'SELECT exception_type, count(*) AS n FROM temp.main.recon_exceptions GROUP BY 1',
  )) {
    byType[row.exception_type] = Number(row.n);
  }
  const proof = { windows: 0, lookup: 0, unproven: 0 };
  for (const row of await warehouse.all<{ proof: keyof typeof proof; n: string }>(
    `SELECT proof, count(*) AS n FROM temp.main.recon_exceptions WHERE exception_type = 'missing_at_provider' GROUP BY 1`,
  )) {
    proof[row.proof] = Number(row.n);
  }
  const currencies = (
    await warehouse.all<Record<string, string | null>>(
      `SELECT currency_code, ledger_orders, ledger_cost_total::VARCHAR AS ledger_cost_total, provider_sales,
              provider_cost_total::VARCHAR AS provider_cost_total, provider_margin::VARCHAR AS provider_margin, matched, exceptions
       FROM temp.main.recon_summary ORDER BY currency_code NULLS LAST`,
    )
  ).map((r) => ({
    currencyCode: r.currency_code ?? null,
    ledgerOrders: Number(r.ledger_orders),
    ledgerCostTotal: r.ledger_cost_total!,
    providerSales: Number(r.provider_sales),
    providerCostTotal: r.provider_cost_total!,
    providerMargin: r.provider_margin!,
    matched: Number(r.matched),
    exceptions: Number(r.exceptions),
  }));
  const runRow = (await warehouse.one<Record<string, string>>('SELECT exceptions, new, still_open, cleared FROM temp.main.recon_runs'))!;
  const matchClasses = (
    await warehouse.all<{ side: string; match_class: string; n: string }>(
      // Rows outside the period's scope are not built (int_recon_scope_references): they are out_of_period too.
      `WITH built AS (SELECT side, match_class, count(*) AS n FROM temp.main.int_recon_rows_classified GROUP BY ALL),
            totals AS (SELECT 'ledger' AS side, count(*) AS n FROM ledger UNION ALL SELECT 'provider', count(*) FROM sales),
            unbuilt AS (SELECT totals.side, 'out_of_period' AS match_class, totals.n - coalesce(sum(built.n), 0) AS n
                        FROM totals LEFT JOIN built ON built.side = totals.side GROUP BY totals.side, totals.n)
       SELECT side, match_class, sum(n) AS n FROM (SELECT * FROM built UNION ALL SELECT * FROM unbuilt WHERE n > 0)
       GROUP BY ALL ORDER BY side, match_class`,
    )
  ).map((r) => ({ side: r.side, matchClass: r.match_class, rows: Number(r.n) }));
  return {
    runId: facts.runId,
    period: facts.period,
    asOf: facts.asOf,
    exceptions: Number(runRow.exceptions),
    byType,
    currencies,
    history: { new: Number(runRow.new), stillOpen: Number(runRow.still_open), cleared: Number(runRow.cleared) },
    matchClasses,
    lookup: facts.lookup,
    proof,
    coverage: facts.coverage,
    tests: facts.testResults,
    stages: facts.stages,
    models: facts.modelSeconds,
    elapsedSeconds: seconds(facts.started),
    verdict: (await warehouse.one<{ verdict: string }>('SELECT any_value(verdict) AS verdict FROM temp.main.recon_summary'))?.verdict ?? (facts.completeness.complete ? 'reconciled' : 'incomplete'),
    completeness: facts.completeness,
    signoff: await signoffState(warehouse, facts.period, 'temp.main.recon_signoff_changes', facts.timezone),
    // The same words the report, its email and its footer use (reports/close-facts.ts).
    signoffDescription: describeClose({
      verdict: null,
      incompleteReasons: [],
      fillCommands: [],
      ...(await signoffFacts(warehouse, facts.period, 'temp.main.recon_signoff_changes', facts.timezone)),
    }).signoff,
  };
}

function checkPeriod(period: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period)) throw new UsageError(`--period must be a month written YYYY-MM, got "${period}".`);
  return period;
}

function checkAsOf(asOf: string): string {
  const time = Date.parse(`${asOf}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== asOf) {
    throw new UsageError(`--as-of must be a date written YYYY-MM-DD, got "${asOf}".`);
  }
  return asOf;
}

function seconds(since: number): number {
  return round((Date.now() - since) / 1000);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
