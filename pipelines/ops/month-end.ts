/**
 * The month-end job: extract the period plus the lookback, import the ledger, reconcile, write the report
 * and send it. One `pipeline_runs` row for the job and one per step (linked by parent_run_id), one
 * warehouse lock and one API client (so one rate limiter) for the whole job. Every step is idempotent,
 * so re-running the job gives the same result. A job without any ledger for the period fails before
 * extracting; a step that fails ends the job with a MonthEndJobError carrying the steps so far.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { ConfigError, JobError, UsageError } from '../../core/errors.js';
import { inPeriodSql } from '../../core/period-sql.js';
import { PartnerApiClient } from '../../sources/partner-api/client.js';
import type { Output } from '../../core/output.js';
import { addDays, minDate, periodEnd, periodStart, todayIn } from '../../core/calendar.js';
import { extractSales } from '../extract/extract.js';
import { importLedger } from '../ledger/import.js';
import { describeProof, reconcile } from '../reconcile/reconcile.js';
import { applyMateriality } from '../decisions/materiality.js';
import { backfillCreatedWindows } from '../extract/backfill.js';
import { writeReport } from '../report/report.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';

export interface RunOptions {
  period: string;
  ledger?: string;
  asOf?: string;
  email?: boolean;
  /** With email: write the message as .eml instead of sending it. */
  dryRun?: boolean;
  /** Reconcile and report a period that is not completely extracted (verdict incomplete). */
  allowIncomplete?: boolean;
  /** Override of "today" for the extract lookback (tests and backfills). */
  today?: string;
}

export interface StepOutcome {
  step: string;
  status: 'succeeded' | 'skipped' | 'failed' | 'not run';
  seconds: number;
  /** What the step did, or for a failed step its error. */
  summary: string;
  /** The process's peak resident memory (MiB) by the end of the step: the step that raised it shows. */
  peakRssMiB?: number;
  /** CPU seconds the process used in the step (all its threads: DuckDB's, zlib's), for the growth table. */
  cpuSeconds?: number;
}

/** What a job did, step by step: all of a finished job, or a failed one up to the step that failed. */
export interface RunProgress {
  runId: string;
  period: string;
  asOf: string;
  extractRange: { from: string; to: string };
  steps: StepOutcome[];
}

export interface RunSummary extends RunProgress {
  /** The by-creation windows from extract.historyStart to the period (absent without historyStart). */
  backfill?: Awaited<ReturnType<typeof extractSales>>;
  extract: Awaited<ReturnType<typeof extractSales>>;
  ledger?: Awaited<ReturnType<typeof importLedger>>;
  reconcile: Awaited<ReturnType<typeof reconcile>>;
  report: Awaited<ReturnType<typeof writeReport>>;
}

/**
 * A step of the month-end job failed: the step's own error (message and hint), with the job's steps
 * (done, failed, not run) so the CLI can show them before the error.
 */
export class MonthEndJobError extends JobError {
  override name = 'MonthEndJobError';
  constructor(
    readonly progress: RunProgress,
    cause: Error,
  ) {
    super(cause.message, cause instanceof JobError ? cause.hint : undefined, { cause, facts: { ...progress } });
  }
}

/**
 * The extract range of the month-end job: the period, plus up to `lookbackDays` after it (capped at the
 * as-of date), so sales the provider dated just after the cut-off, and status changes since, are in. What
 * lies before the period is the back-fill's (extract.historyStart), in whole months like every window.
 */
export function monthEndExtractRange(period: string, asOf: string, lookbackDays: number): { from: string; to: string } {
  const from = periodStart(period);
  const to = minDate(asOf, addDays(periodEnd(period), lookbackDays));
  // Asking for a period that has not begun is bad usage, not a job that failed.
  if (to < periodStart(period))
    throw new UsageError(
      `The period ${period} starts after the as-of date ${asOf}: pass an earlier --period or a later --as-of.`,
    );
  return { from, to };
}

export async function runMonthEnd(
  warehouse: Warehouse,
  config: Config,
  options: RunOptions,
  output: Output,
): Promise<RunSummary> {
  const asOf = options.asOf ?? todayIn(config.timezone);
  const extractRange = monthEndExtractRange(options.period, asOf, config.extract.lookbackDays);
  // A file named on the command line that is not there is a typo: bad usage, like `ledger import` says.
  if (options.ledger && !isFile(options.ledger)) {
    throw new UsageError(
      `The ledger file ${path.resolve(options.ledger)} (--ledger) does not exist. Pass the path of the exported ` +
        `ledger.`,
    );
  }
  const ledgerFile = options.ledger ?? config.ledger.path;
  const client = new PartnerApiClient(config.api);
  try {
    return await recordRun(
      warehouse,
      'run',
      { period: options.period, asOf, ledger: ledgerFile, email: Boolean(options.email) },
      async (run) => {
        const importFile = isFile(ledgerFile);
        if (!importFile && (await ledgerLinesPaidIn(warehouse, options.period, config.timezone)) === 0) {
          // Without a ledger every provider sale would be a missing_in_ledger finding: stop before extracting.
          throw new JobError(
            `No ledger for ${options.period}: no ledger file at ${path.resolve(ledgerFile)} (ledger.path), and the ` +
              `database holds no ledger line paid in ${options.period}.`,
            `Pass the exported ledger with --ledger FILE, or set ledger.path in the config to where the export is ` +
              `written.`,
          );
        }

        const reportStep = options.email ? 'report + email' : 'report';
        const plan = [
          ...(config.extract.historyStart ? ['back-fill'] : []),
          'extract',
          'ledger import',
          'reconcile',
          reportStep,
        ];
        const progress: RunProgress = { runId: run.runId, period: options.period, asOf, extractRange, steps: [] };
        const steps = progress.steps;
        // Recorded with the job's row whether it succeeds or fails.
        run.details = { extractRange, steps };
        const step = async <T>(name: string, work: () => Promise<T>, describe: (result: T) => string): Promise<T> => {
          output.info(`── ${name}`);
          const started = process.hrtime.bigint();
          const cpuBefore = process.cpuUsage();
          const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
          try {
            const result = await work();
            const cpu = process.cpuUsage(cpuBefore);
            steps.push({
              step: name,
              status: 'succeeded',
              seconds: seconds(),
              summary: describe(result),
              peakRssMiB: peakRssMiB(),
              cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100,
            });
            return result;
          } catch (error) {
            // Bad configuration or usage keeps its own error (and exit code 2); anything else ends the job here.
            if (error instanceof ConfigError || error instanceof UsageError) throw error;
            const failure = error instanceof Error ? error : new Error(String(error));
            steps.push({ step: name, status: 'failed', seconds: seconds(), summary: failure.message });
            for (const later of plan.slice(plan.indexOf(name) + 1))
              steps.push({ step: later, status: 'not run', seconds: 0, summary: '' });
            throw new MonthEndJobError(progress, failure);
          }
        };
        const parentRunId = run.runId;

        let backfill: RunSummary['backfill'];
        if (config.extract.historyStart) {
          backfill = await step(
            'back-fill',
            () => {
              const today = options.today ?? asOf;
              return backfillCreatedWindows(
                warehouse,
                config,
                { until: extractRange.from, client, parentRunId, today },
                output,
              );
            },
            (r) =>
              r
                ? `by creation ${r.from}..${r.to}: ` +
                  `${r.windows.fetched} windows fetched, ${r.windows.skipped} already done; ` +
                  `${r.records} records, ${r.newSales} new sales`
                : `nothing before ${extractRange.from} (extract.historyStart ${config.extract.historyStart})`,
          );
        }

        const extract = await step(
          'extract',
          // The lookback counts back from the as-of date: a month-end job re-run as of a past date still
          // re-fetches that date's recent windows, where statuses were still changing.
          () =>
            extractSales(
              warehouse,
              config,
              { ...extractRange, by: 'both', client, parentRunId, today: options.today ?? asOf },
              output,
            ),
          (r) =>
            `${r.windows.fetched} windows fetched, ${r.windows.skipped} already done; ${r.records} records, ` +
            `${r.newSales} new sales, ` +
            `${r.statusChanges} status changes, ${r.quarantined} quarantined; ${r.requests} requests, ${r.retries} ` +
            `retries, ${r.rateLimited} × 503`,
        );

        let ledger: RunSummary['ledger'];
        if (importFile) {
          ledger = await step(
            'ledger import',
            () => importLedger(warehouse, config, ledgerFile, { parentRunId }, output),
            (r) => `${r.lines} lines: ${r.accepted} accepted, ${r.rejected} rejected`,
          );
        } else {
          output.warn(
            `no ledger file at ${ledgerFile} (ledger.path): reconciling against the ledger lines already imported.`,
          );
          steps.push({ step: 'ledger import', status: 'skipped', seconds: 0, summary: `no file at ${ledgerFile}` });
        }
        // The import may have left the period without orders (a file of another month): never report every sale
        // missing.
        if ((await ledgerLinesPaidIn(warehouse, options.period, config.timezone)) === 0) {
          const failure = new JobError(
            `No ledger order paid in ${options.period} after importing ${path.resolve(ledgerFile)}: reconciling ` +
              `would report every provider sale as missing from the ledger.`,
            `Check that the file is the ledger of ${options.period} (its paid_at dates, ledger.dateFormat and the ` +
              `time zone), then run again.`,
          );
          for (const later of plan.slice(plan.indexOf('reconcile')))
            steps.push({ step: later, status: 'not run', seconds: 0, summary: '' });
          throw new MonthEndJobError(progress, failure);
        }

        const reconciled = await step(
          'reconcile',
          () =>
            reconcile(
              warehouse,
              config,
              { period: options.period, asOf, client, parentRunId, allowIncomplete: options.allowIncomplete },
              output,
            ),
          (r) =>
            `${r.exceptions} findings (${r.history.new} new, ${r.history.stillOpen} still open, ${r.history.cleared} ` +
            `cleared)` +
            (r.byType.missing_at_provider > 0 ? `; missing at provider: ${describeProof(r.proof)}` : ''),
        );
        // Issue 30: what is under reconciliation.materiality is decided accepted by the rule before the report.
        await applyMateriality(warehouse, config, options.period);
        const report = await step(
          reportStep,
          () =>
            writeReport(
              warehouse,
              config,
              {
                period: options.period,
                asOf,
                email: options.email,
                dryRun: options.dryRun,
                parentRunId,
                completeness: reconciled.completeness,
              },
              output,
            ),
          (r) =>
            `${r.workbook}` +
            `${r.email ? ` — ${r.email.status === 'sent' ? 'sent to' : 'written for'} ${r.email.to.join(', ')}` : ''}`,
        );

        run.counters.requests = client.stats.requests;
        run.counters.retries = client.stats.retries;
        run.counters.rateLimited = client.stats.rateLimited;
        return { ...progress, ...(backfill && { backfill }), extract, ledger, reconcile: reconciled, report };
      },
    );
  } finally {
    client.close();
  }
}

function peakRssMiB(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

/** Ledger lines already imported that were paid in the period (in the configured zone). */
async function ledgerLinesPaidIn(warehouse: Warehouse, period: string, timezone: string): Promise<number> {
  const row = await warehouse.one<{ lines: string }>(
    `SELECT count(*) AS lines FROM ledger WHERE ${inPeriodSql('paid_at', period, timezone)}`,
  );
  return Number(row?.lines ?? 0);
}
