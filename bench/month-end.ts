/**
 * `pinrecon run --period 2026-10 --as-of 2026-11-23` (historyStart 2026-09-01) as a million-sales partner runs it,
 * in its own process (peak RSS, CPU), against `pinrecon simulate-api` in another that renders every window before
 * the run (--keep-responses: the time is pinrecon's), on the demo's ledger of planted breaks (month-fixture.ts).
 * Checks the findings are exactly the planted ones. PINRECON_BENCH_MONTH_SALES sets the scale (default 1,782,000:
 * ~1M in October; 17,820,000 for the month-end-10m section). PINRECON_BENCH_KEEP=1 keeps the folder;
 * PINRECON_BENCH_DIR names one to use and keep (its ledger and rendered answers serve the next run: benchFolder).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { loadavg } from 'node:os';
import type { Config } from '../config/schema.js';
import { addMonths, periodStart } from '../core/calendar.js';
import { backfillRange } from '../pipelines/extract/backfill.js';
import { planWindows } from '../pipelines/extract/plan.js';
import { monthEndExtractRange } from '../pipelines/ops/month-end.js';
import type { BenchResult } from './harness.js';
import {
  asOf,
  benchFolder,
  checkFindings,
  measurePublishing,
  defaultMonthSales,
  monthSales,
  overBy,
  period,
  prepareMonth,
  round,
  rssByStep,
  runPinrecon,
  salesInPeriod,
} from './month-fixture.js';
import { cpuBound } from './measures/cpu-bound.js';
import { keptAnswers, type BenchWindow } from './simulator-process.js';
import { type FloorSeconds, measureFloor } from './duckdb-floor.js';

const sales = monthSales();
const big = sales > 5_000_000;
export const name = `month-end run (${sales.toLocaleString('en-US')} sales created 2026-10-01..2026-11-23)`;
/** A run at another scale (100k for the growth table, 10M) is recorded beside the 1M one, not over it. */
export const section = sales === defaultMonthSales ? 'month-end' : big ? 'month-end-10m' : `month-end-${sales}`;

/** Issue 33's targets: the 1M month (and smaller) in ≤ 20 s and ≤ 1 GiB; 10M in ≤ 15 min and ≤ 4 GiB. */
const target = big ? { seconds: 15 * 60, rssMiB: 4096 } : { seconds: 20, rssMiB: 1024 };
/** The job's steps that have a DuckDB floor (duckdb-floor.ts), as `run --json` names them. */
const flooredSteps = ['extract', 'ledger_import', 'reconcile', 'report'] as const;
const maxLookups = 100;
/** A small command (one decision) takes about a second of its own: its publish may add at most a tenth (issue 33). */
const spareTargetSeconds = 0.1;
/** The month before the period: the back-fill's one window proves what was created before October. */
const historyStart = '2026-09-01';

/** The windows `run` asks for: the back-fill's by creation, then the extract's by both. */
function windowsOfRun(config: Config): BenchWindow[] {
  const range = monthEndExtractRange(period, asOf, config.extract.lookbackDays);
  const backfill = backfillRange(config, range.from);
  const days = config.extract.maxWindowDays;
  return [
    ...(backfill ? planWindows(backfill.from, backfill.to, 'created', days) : []),
    ...planWindows(range.from, range.to, 'both', days),
  ];
}

interface RunJson {
  steps: { step: string; status: string; seconds: number; summary: string; peakRssMiB?: number; cpuSeconds?: number }[];
  extract: { records: number; requests: number; loadSeconds: number; downloadSeconds: number; quarantined: number };
  ledger?: { lines: number; accepted: number; rejected: number };
  reconcile: { exceptions: number; lookup: { references?: number; provenAbsent?: number; done: boolean } };
}

export async function run(): Promise<BenchResult> {
  const { dir, keep } = benchFolder('pinrecon-bench-month-end-');
  try {
    const month = await prepareMonth(dir, sales, { historyStart, renderFor: windowsOfRun });
    const kept = month.kept!;
    const loadAverage = loadavg()[0]!;
    let job;
    let renderedInRun;
    try {
      // Counted before and after: a kept folder may hold answers of other windows (another maxWindowDays).
      const answersBefore = keptAnswers(kept.dir);
      job = await runPinrecon<RunJson>(month, ['run', '--period', period, '--as-of', asOf, '--ledger', month.ledger]);
      renderedInRun = keptAnswers(kept.dir) - answersBefore;
    } finally {
      await month.simulator.stop();
    }
    const { json } = job;
    const findings = await checkFindings(month);
    // Issue 33 item 4: what publishing the analysts' snapshot costs at this size, against the run that triggers it.
    // Before the floor, which writes gigabytes at 10M: measured after it, the spare's publish took 1.322 s (0.079 s in
    // a run without the floor), likely the database read back from disk.
    const publishing = await measurePublishing(month.database);
    // Issue 33 item 1: the same work done by DuckDB alone, step by step, in the same hour.
    const floor = measureFloor({
      dir,
      landingDir: path.join(dir, 'landing'),
      ledger: month.ledger,
      from: periodStart(period),
      until: periodStart(addMonths(period, 1)),
    });
    const lookups = json.reconcile.lookup.references ?? 0;
    const stepSeconds = Object.fromEntries(json.steps.map((s) => [`${stepKey(s)}_s`, round(s.seconds)]));
    const stepRss = Object.fromEntries(json.steps.map((s) => [`peak_rss_MiB_after_${stepKey(s)}`, s.peakRssMiB ?? 0]));
    const stepCpu = Object.fromEntries(json.steps.map((s) => [`${stepKey(s)}_cpu_s`, round(s.cpuSeconds ?? 0)]));
    const sampled = await rssByStep(
      month,
      job.rssSamples,
      json.steps.map((s) => s.step),
    );
    const rssDuring = Object.fromEntries(Object.entries(sampled).map(([name, mib]) => [`rss_MiB_max_in_${name}`, mib]));
    return {
      metrics: {
        sales_in_data_set: sales,
        sales_in_period: await salesInPeriod(month),
        records_received: json.extract.records,
        quarantined_records: json.extract.quarantined,
        ledger_lines: month.plant.lines,
        findings: json.reconcile.exceptions,
        expected_findings: findings.expected,
        findings_about_malformed_sales: findings.aboutMalformed,
        requests: json.extract.requests,
        lookups,
        proven_absent_by_windows: json.reconcile.lookup.provenAbsent ?? 0,
        generate_ledger_s: round(month.generateSeconds),
        windows_rendered_before_run: kept.windows.length,
        render_windows_s: round(kept.renderSeconds),
        windows_generated_during_run: renderedInRun,
        load_average_1min_at_start: round(loadAverage),
        ...stepSeconds,
        ...stepCpu,
        ...Object.fromEntries(flooredSteps.map((step) => [`duckdb_floor_${step}_s`, round(floor[step])])),
        duckdb_floor_s: round(flooredSteps.reduce((sum, step) => sum + floor[step], 0)),
        duckdb_floor_cpu_s: round(floor.cpu),
        duckdb_floor_sales: floor.sales,
        duckdb_floor_ledger_lines: floor.ledgerLines,
        duckdb_floor_breaks: floor.breaks,
        extract_download_s: round(json.extract.downloadSeconds),
        extract_load_s: round(json.extract.loadSeconds),
        run_wall_s: round(job.seconds),
        run_cpu_s: round(job.cpuSeconds),
        simulator_cpu_during_run_s: round(job.simulatorCpuSeconds),
        run_peak_rss_MiB: job.peakRssMiB,
        database_MiB: publishing.fileMiB,
        publish_unchanged_s: publishing.unchanged,
        publish_copy_s: publishing.changed,
        publish_by_spare_s: publishing.bySpare,
        ...stepRss,
        ...rssDuring,
      },
      targets: [
        {
          label: `\`run\` wall time ≤ ${target.seconds} s, every window served pre-rendered (pinrecon's own time)`,
          measured:
            `${round(job.seconds)} s${overBy(job.seconds, target.seconds)} (${renderedInRun} windows generated ` +
            `during the run); by step against DuckDB alone doing the step's work: ${againstFloor(json.steps, floor)}` +
            cpuBound(job.seconds, job.cpuSeconds, target.seconds),
          ok: job.seconds <= target.seconds && renderedInRun === 0,
        },
        {
          label: `peak RSS of the pinrecon process ≤ ${target.rssMiB} MiB`,
          measured: `${job.peakRssMiB} MiB`,
          ok: job.peakRssMiB <= target.rssMiB,
        },
        {
          label: 'findings exactly the planted ones (type, reference; sales served malformed apart)',
          measured: `${findings.missing} missing, ${findings.unexpected} unexpected`,
          ok: findings.missing === 0 && findings.unexpected === 0,
        },
        { label: `individual lookups ≤ ${maxLookups}`, measured: String(lookups), ok: lookups <= maxLookups },
        {
          label: 'publishing the snapshot ≤ 10 % of the run; nothing copied when nothing changed',
          measured:
            `a copy of ${publishing.fileMiB} MiB: ${publishing.changed} s ` +
            `(${((publishing.changed / job.seconds) * 100).toFixed(1)} %); unchanged: ${publishing.unchanged} s`,
          ok: publishing.changed <= job.seconds * 0.1 && publishing.unchanged <= 0.05,
        },
        {
          label: `a small change published through the spare in ≤ ${spareTargetSeconds} s, exactly the file`,
          measured:
            `${publishing.bySpare} s (a whole copy: ${publishing.changed} s); ${
              publishing.spareExact ? 'byte for byte the file' : 'NOT the file'
            }` +
            // Why it misses: DuckDB does not say which blocks a checkpoint wrote, so both files are compared whole.
            (publishing.bySpare > spareTargetSeconds
              ? `; the file and the spare, ${publishing.fileMiB} MiB each, are read whole to find the blocks ` +
                'that differ'
              : ''),
          ok: publishing.bySpare <= spareTargetSeconds && publishing.spareExact,
        },
      ],
      notes:
        `\`pinrecon run --period ${period} --as-of ${asOf}\` with extract.historyStart ${historyStart} in its own ` +
        `process (peak RSS and CPU from its ` +
        `getrusage at exit), against \`pinrecon simulate-api\` in another (seed 7, ${sales.toLocaleString('en-US')} ` +
        `sales, every 2,500th malformed, 50 requests/s); ` +
        "the ledger is the demo's generator (breaks of every kind planted, one in 250 clean sales per kind). " +
        'Before the run the simulator renders ' +
        `the ${kept.windows.length} windows it will be asked for (--keep-responses, render_windows_s) and serves ` +
        `them from those files during the run, gzip-encoded as pinrecon asks (a provider that cannot sends ~6× the ` +
        'bytes, which pinrecon then reads without the gunzip; simulator_cpu_during_run_s is what serving cost on the ' +
        'shared cores), so run_wall_s is ' +
        "pinrecon's own time; run_cpu_s is its CPU. " +
        'Steps as the job records them; the ledger generation is not part of the job. ' +
        "duckdb_floor_*: DuckDB alone, in its own process on a fresh file, doing each step's core work on the same " +
        "inputs (bench/duckdb-floor.ts): the run's landed responses read and typed to one row per sale, the ledger " +
        "read and typed, one statement naming the breaks of the period written to Parquet, the period's sales " +
        'written out as CSV. The download (HTTP, PIN masking, gzip) and the workbook have no DuckDB counterpart.',
    };
  } finally {
    if (keep) process.stderr.write(`month-end bench: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** "extract 40.1 s (DuckDB 15.6 s, ×2.6), …": each floored step's time beside its floor. */
function againstFloor(steps: { step: string; seconds: number }[], floor: FloorSeconds): string {
  return flooredSteps
    .map((name) => {
      const step = steps.find((s) => stepKey(s) === name);
      if (!step) return `${name} not run`;
      const times = floor[name] > 0 ? `, ×${(step.seconds / floor[name]).toFixed(1)}` : '';
      return `${name.replace('_', ' ')} ${round(step.seconds)} s (DuckDB ${round(floor[name])} s${times})`;
    })
    .join(', ');
}

/** A step's name as a metric key: "ledger import" → "ledger_import". */
function stepKey(step: { step: string }): string {
  return step.step.replace(/\W+/g, '_');
}
