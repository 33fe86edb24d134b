/**
 * `reconcile`: (re)builds the reconciliation of one period from `sales` and `ledger` — the job around the model runner
 * (core/model-runner.ts): completeness, the runner's inputs, the build, the individual look-ups that prove a
 * missing order absent (README "Proof of absence"), the data tests, publishing, the summary. How configuration
 * reaches the SQL (the finding types too, as `cfg_exception_types` from core/finding-types.ts) and how models
 * are kept: docs/ARCHITECTURE.md "SQL models".
 */
import type { Config } from '../../config/schema.js';
import { periodEnd, periodStart, todayIn } from '../../core/calendar.js';
import { UsageError } from '../../core/errors.js';
import { findingTypeNames, type FindingType } from '../../core/finding-types.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import type { PartnerApiClient } from '../../sources/partner-api/client.js';
import { describeClose } from '../../reports/close-facts.js';
import { createSignedInput } from '../close/close.js';
import { activeOf, signoffFacts, signoffState, signoffsOf } from '../close/signoffs.js';
import type { Signoff, SignoffState } from '../close/signoffs.js';
import { checkCompleteness, incompleteError, type Completeness } from '../extract/completeness.js';
import {
  buildModels,
  databaseName,
  declareInput,
  describeBuild,
  dropModels,
  loadTests,
  persistent,
  planModels,
  publishMarts,
  readersOf,
  runDataTests,
  seconds,
  type BuildTimings,
} from '../../core/model-runner.js';
import {
  lookUpUnproven,
  manyLookups,
  manyLookupsAdvice,
  windowCoverage,
  type LookupOutcome,
  type WindowCoverage,
} from './proof-of-absence.js';
import { fitMemoryToScope } from './scope.js';
import { carriedInputTables, createCarriedInputs } from './carried-inputs.js';
import { createConfigInputs } from './config-inputs.js';
import { createDecisionInputs, decisionInputTables } from './decision-inputs.js';
import { recordRun } from '../../core/run-trace.js';

export { manyLookups };

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
   * Which would-be-missing references are looked up individually: only those the windows do not prove absent
   * ('unproven', the default), or all of them ('all': for tests and benchmarks that prove both give the same findings).
   */
  lookupScope?: 'unproven' | 'all';
}

/** "3 proven by windows, 1 by lookup, 2 unproven": the missing_at_provider findings by proof. */
export function describeProof(proof: ReconcileSummary['proof']): string {
  return `${proof.windows} proven by windows, ${proof.lookup} by lookup, ${proof.unproven} unproven`;
}

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
  byType: Record<FindingType, number>;
  currencies: CurrencySummary[];
  history: { new: number; stillOpen: number; cleared: number };
  /** Match classes of the rows in the period's scope (and out_of_period for the rest, built or not), per side. */
  matchClasses: { side: string; matchClass: string; rows: number }[];
  /** provenAbsent: would-be-missing orders not looked up because the by-creation windows prove them absent. */
  lookup: LookupOutcome;
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

/**
 * The runner's inputs, dropped after the run: `cfg_*`, `prev_recon_exceptions` and `run_stage_seconds` are declared
 * with their columns in `sql/inputs/`; `signed_recon_exceptions` is the active sign-off's rows of
 * `recon_exceptions_signed` (pipelines/close/close.ts); `cur_recon_decisions` and `cfg_suggest`: decision-inputs.ts;
 * `earlier_findings`: carried-inputs.ts.
 */
export const inputTables = [
  'cfg_params',
  'cfg_status_map',
  'cfg_exception_types',
  'prev_recon_exceptions',
  'run_stage_seconds',
  'signed_recon_exceptions',
  ...decisionInputTables,
  ...carriedInputTables,
] as const;

export async function reconcile(
  warehouse: Warehouse,
  config: Config,
  options: ReconcileOptions,
  output: Output,
): Promise<ReconcileSummary> {
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
      const timings: BuildTimings = { stages: {}, models: {} };
      const stages = timings.stages;
      const database = await databaseName(warehouse);
      const completeness = await checkCompleteness(warehouse, config, period);
      if (!completeness.complete) {
        if (!options.allowIncomplete) {
          const instead = '--allow-incomplete to store its findings with the verdict incomplete';
          throw incompleteError(completeness, 'it is not reconciled', instead);
        }
        const reasons = completeness.reasons.map((r) => `  - ${r}`).join('\n');
        output.warn(
          `the period ${period} is not completely extracted: ` +
            `its findings are stored with the verdict incomplete\n${reasons}`,
        );
      }
      // The period's sign-offs read once, for the run's input and its summary (issue 27: read 3 to 5 times).
      const signoffs = await signoffsOf(warehouse, period, config.timezone);
      try {
        const signoffId = activeOf(signoffs)?.signoffId ?? null;
        const runParams = { period, asOf, runId: run.runId, builtAt: new Date(), completeness, signoffId };
        await createInputs(warehouse, config, database, runParams);
        await createSignedInput(warehouse, database, signoffId);
        await fitMemoryToScope(warehouse);
        await buildModels(warehouse, models, timings, output);
        output.info(describeBuild(models.length, stages));

        const coverage = await windowCoverage(warehouse);
        const { client, lookupScope } = options;
        const lookupJob = { client, lookupScope, run, period, complete: completeness.complete, coverage, stages };
        const lookup = await lookUpUnproven(warehouse, config, lookupJob, output);
        if (lookup.done) {
          const counts = [lookup.references ?? 0, lookup.found ?? 0];
          await warehouse.run('UPDATE cfg_params SET lookups = $1, lookups_found = $2', counts);
          const rebuildStarted = Date.now();
          // Sales found are matched by every model; otherwise only what reads the look-ups' answers changes
          // (recon_exceptions' proof, and recon_runs' look-up counts through the history).
          const rebuilt = (lookup.loaded ?? 0) > 0 ? models : readersOf(models, 'stg_provider__lookups');
          const rebuildStages: Record<string, number> = {};
          await buildModels(warehouse, rebuilt, { stages: rebuildStages, models: timings.models }, output);
          output.info(describeBuild(rebuilt.length, rebuildStages));
          stages.rebuild = seconds(rebuildStarted);
          if ((lookup.references ?? 0) > manyLookups) output.warn(manyLookupsAdvice(lookup.references!, coverage));
        }

        const testsStarted = Date.now();
        const testResults = await runDataTests(warehouse, tests);
        stages.tests = seconds(testsStarted);

        // The stages' seconds reach recon_runs as an input: set now that they are known, then its readers rebuilt.
        await warehouse.run('UPDATE run_stage_seconds SET stage_seconds = $1', [JSON.stringify(stages)]);
        await buildModels(warehouse, readersOf(models, 'run_stage_seconds'), { stages: {}, models: {} }, output);
        const publishStarted = Date.now();
        await publishMarts(warehouse, models, { column: 'period', value: period }, database);
        stages.publish = seconds(publishStarted);

        const facts = {
          runId: run.runId,
          period,
          asOf,
          lookup,
          coverage,
          timings,
          started,
          testResults,
          completeness,
          timezone: config.timezone,
          signoffs,
        };
        const summary = await summarize(warehouse, facts);
        run.counters.rowsLoaded = summary.exceptions;
        run.details = { ...summary, models: undefined };
        return summary;
      } finally {
        await dropModels(warehouse, models, inputTables);
      }
    },
    options.parentRunId,
  );
}

export interface RunParams {
  period: string;
  asOf: string;
  runId: string;
  builtAt: Date;
  completeness: Completeness;
  /** The period's active sign-off, compared with by recon_signoff_changes. */
  signoffId: string | null;
}

/** The runner's inputs, declared with their columns in `sql/inputs/<table>.sql` (declareInput), then filled. */
export async function createInputs(warehouse: Warehouse, config: Config, database: string, p: RunParams) {
  const r = config.reconciliation;
  await declareInput(warehouse, 'cfg_params');
  await warehouse.run(
    `INSERT INTO cfg_params BY NAME SELECT
       $1::VARCHAR AS period, $2::DATE AS period_start, $3::DATE AS period_end, $4::DATE AS as_of,
       timezone($8::VARCHAR, $2::DATE::TIMESTAMP) - INTERVAL 1 DAY AS scope_starts_at,
       timezone($8::VARCHAR, $3::DATE::TIMESTAMP) + INTERVAL 2 DAY AS scope_ends_at,
       $5::DECIMAL(18,4) AS cost_tolerance, $6::DECIMAL(18,4) AS price_tolerance, $7::INTEGER AS unredeemed_after_days,
       $8::VARCHAR AS timezone, $9::VARCHAR AS run_id, $10::TIMESTAMPTZ AS built_at,
       0 AS lookups, 0 AS lookups_found, -- set after the look-ups
       $11::BOOLEAN AS complete, $12::VARCHAR AS incomplete_reasons, $13::VARCHAR AS signoff_id,
       $14::DATE AS history_start`,
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
      p.completeness.complete,
      p.completeness.complete ? null : JSON.stringify(p.completeness.reasons),
      p.signoffId,
      config.extract.historyStart ?? null,
    ],
  );
  await createConfigInputs(warehouse, config);
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
  await declareInput(warehouse, 'run_stage_seconds');
  await warehouse.run('INSERT INTO run_stage_seconds VALUES (NULL)');
  await createDecisionInputs(warehouse, config, database, p.period);
  await createCarriedInputs(warehouse, database, p.period);
}

async function summarize(
  warehouse: Warehouse,
  facts: {
    runId: string;
    period: string;
    asOf: string;
    lookup: LookupOutcome;
    coverage: WindowCoverage;
    timings: BuildTimings;
    started: number;
    testResults: { name: string; passed: boolean }[];
    completeness: Completeness;
    /** The configured zone: the sign-off's time is shown in it. */
    timezone: string;
    /** The period's sign-offs, read in that zone. */
    signoffs: readonly Signoff[];
  },
): Promise<ReconcileSummary> {
  const byType = Object.fromEntries(findingTypeNames.map((t) => [t, 0])) as Record<FindingType, number>;
  for (const row of await warehouse.all<{ exception_type: FindingType; n: string }>(
    'SELECT exception_type, count(*) AS n FROM temp.main.recon_exceptions GROUP BY 1',
  ))
    byType[row.exception_type] = Number(row.n);
  const proof = { windows: 0, lookup: 0, unproven: 0 };
  for (const row of await warehouse.all<{ proof: keyof typeof proof; n: string }>(
    `SELECT proof, count(*) AS n FROM temp.main.recon_exceptions
     WHERE exception_type = 'missing_at_provider' GROUP BY 1`,
  ))
    proof[row.proof] = Number(row.n);
  const currencies = (
    await warehouse.all<Record<string, string | null>>(
      `SELECT currency_code, ledger_orders, ledger_cost_total::VARCHAR AS ledger_cost_total, provider_sales,
              provider_cost_total::VARCHAR AS provider_cost_total, provider_margin::VARCHAR AS provider_margin,
              matched, exceptions
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
  // This run's own, not yet published, recon_signoff_changes.
  const changesTable = 'temp.main.recon_signoff_changes';
  const signoff = await signoffState(warehouse, facts.period, changesTable, facts.timezone, facts.signoffs);
  const runRow = (await warehouse.one<Record<string, string>>(
    'SELECT exceptions, new, still_open, cleared FROM temp.main.recon_runs',
  ))!;
  const matchClasses = (
    await warehouse.all<{ side: string; match_class: string; n: string }>(
      // Rows outside the period's scope are not built (int_recon_scope_references): they are out_of_period too.
      `WITH built AS (SELECT side, match_class, count(*) AS n FROM temp.main.int_recon_rows_classified GROUP BY ALL),
            totals AS (SELECT 'ledger' AS side, count(*) AS n FROM ledger
                      UNION ALL SELECT 'provider', count(*) FROM sales),
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
    stages: facts.timings.stages,
    models: facts.timings.models,
    elapsedSeconds: seconds(facts.started),
    verdict:
      (await warehouse.one<{ verdict: string }>('SELECT any_value(verdict) AS verdict FROM temp.main.recon_summary'))
        ?.verdict ?? (facts.completeness.complete ? 'reconciled' : 'incomplete'),
    completeness: facts.completeness,
    signoff,
    // The same words the report, its email and its footer use (reports/close-facts.ts).
    signoffDescription: describeClose({
      verdict: null,
      incompleteReasons: [],
      fillCommands: [],
      ...(await signoffFacts(warehouse, facts.period, signoff, facts.timezone, facts.signoffs)),
    }).signoff,
  };
}

function checkPeriod(period: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period))
    throw new UsageError(`--period must be a month written YYYY-MM, got "${period}".`);
  return period;
}

function checkAsOf(asOf: string): string {
  const time = Date.parse(`${asOf}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== asOf) {
    throw new UsageError(`--as-of must be a date written YYYY-MM-DD, got "${asOf}".`);
  }
  return asOf;
}
