/**
 * A year of history back-filled at a million sales a month: `pinrecon extract --from 2026-11-01 --to 2026-11-01
 * --by created` with extract.historyStart 2025-11-01 (twelve by-creation windows back-filled first) in its own
 * process (peak RSS, CPU) against `pinrecon simulate-api` in another serving 12,000,000 sales, every window rendered
 * before the run (--keep-responses: the time is pinrecon's own). Reports each window's load time (does the load
 * slow as `sales` grows?), the progress lines and the database's size. PINRECON_BENCH_BACKFILL_SALES sets the size;
 * the folder: benchFolder (PINRECON_BENCH_KEEP, PINRECON_BENCH_DIR).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Warehouse } from '../core/warehouse.js';
import { planWindows } from '../pipelines/extract/plan.js';
import type { BenchResult } from './harness.js';
import { benchFolder, round, runPinrecon, timezone, writeBenchConfig } from './month-fixture.js';
import { keptAnswers, renderWindows, startSimulatorProcess } from './simulator-process.js';

const sales = Number(process.env.PINRECON_BENCH_BACKFILL_SALES ?? 12_000_000);
const historyStart = '2025-11-01';
const lastCreated = '2026-10-31';
/** The day the command extracts itself: the back-fill is every by-creation window before it. */
const extractDay = '2026-11-01';
const credentials = { identifier: 'bench-partner', secret: 'bench-secret-backfill' };
const target = { seconds: 4 * 60, rssMiB: 1024 };

export const name =
  `back-fill of a year (${sales.toLocaleString('en-US')} ` + `sales created ${historyStart}..${lastCreated})`;

/** "window A..B (by created): N records, L loaded, Q quarantined; X s download, Y s load" */
const windowLine = new RegExp(
  String.raw`window (\S+)\.\.(\S+) \(by created\): (\d+) records, (\d+) loaded, (\d+) quarantined; ` +
    String.raw`([\d.]+) s download, ([\d.]+) s load`,
);

export async function run(): Promise<BenchResult> {
  const { dir, keep } = benchFolder('pinrecon-bench-backfill-');
  try {
    const keptDir = path.join(dir, 'kept-answers');
    const dataset = { from: historyStart, to: lastCreated, timezone, malformedEvery: 2_500, seed: 11 };
    const simulator = await startSimulatorProcess({
      dir,
      ...dataset,
      sales,
      ...credentials,
      keepResponsesDir: keptDir,
    });
    const { config, database } = writeBenchConfig(dir, simulator.url, credentials, historyStart);
    const windows = planWindows(historyStart, extractDay, 'created', 31);
    let job;
    let renderSeconds;
    let renderedInRun;
    const loadAverage = () => round(loadavg()[0]!);
    let loadAtStart;
    try {
      renderSeconds = await renderWindows(simulator, credentials, windows);
      loadAtStart = loadAverage();
      const args = ['extract', '--from', extractDay, '--to', extractDay, '--by', 'created'];
      const answersBefore = keptAnswers(keptDir);
      job = await runPinrecon({ dir, config, simulator }, args, { json: false });
      renderedInRun = keptAnswers(keptDir) - answersBefore;
    } finally {
      await simulator.stop();
    }

    const perWindow = job.stderr
      .split('\n')
      .map((line) => windowLine.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ start: m[1]!, records: Number(m[3]), loaded: Number(m[4]), load: Number(m[7]) }));
    const backfilled = perWindow.filter((w) => w.start < extractDay);
    const records = backfilled.reduce((sum, w) => sum + w.records, 0);
    const progressLines = job.stderr.split('\n').filter((line) => /back-fill windows \d+\/\d+ .*ETA/.test(line));
    // Off a terminal every line starts with its ISO time: the longest wait between two progress lines.
    const progressTimes = progressLines.map((line) => Date.parse(line.slice(0, line.indexOf(' '))));
    const longestGap = Math.max(0, ...progressTimes.slice(1).map((t, i) => (t - progressTimes[i]!) / 1000));
    const stored = await storedFacts(database);
    const databaseMiB = fileMiB(database) + fileMiB(`${database}.wal`);
    const loadPerMillion = backfilled.map((w) => round((w.load / Math.max(w.records, 1)) * 1e6));
    const firstHalf = average(loadPerMillion.slice(0, 6));
    const secondHalf = average(loadPerMillion.slice(6));

    return {
      metrics: {
        sales_in_data_set: sales,
        windows_backfilled: backfilled.length,
        records_received: records,
        sales_in_database: stored.sales,
        quarantined_records: stored.quarantined,
        render_windows_s: round(renderSeconds),
        windows_generated_during_run: renderedInRun,
        load_average_1min_at_start: loadAtStart,
        backfill_wall_s: round(job.seconds),
        backfill_cpu_s: round(job.cpuSeconds),
        simulator_cpu_during_run_s: round(job.simulatorCpuSeconds),
        backfill_peak_rss_MiB: job.peakRssMiB,
        load_s_per_million_by_window: loadPerMillion.join(' '),
        load_s_per_million_first_6_windows: round(firstHalf),
        load_s_per_million_last_6_windows: round(secondHalf),
        plain_progress_lines_with_eta: progressLines.length,
        longest_gap_between_progress_lines_s: round(longestGap),
        database_MiB: round(databaseMiB),
        database_bytes_per_sale: Math.round((databaseMiB * 2 ** 20) / Math.max(stored.sales, 1)),
        landing_MiB: round(folderMiB(path.join(dir, 'landing'))),
        load_average_1min_at_end: loadAverage(),
      },
      targets: [
        {
          label:
            `back-fill of ${sales.toLocaleString('en-US')} sales in ≤ ${target.seconds} s, ` +
            `every window served pre-rendered (pinrecon's own time)`,
          measured: `${round(job.seconds)} s (${renderedInRun} windows generated during the run)`,
          ok: job.seconds <= target.seconds && renderedInRun === 0,
        },
        {
          label: `peak RSS of the pinrecon process ≤ ${target.rssMiB} MiB`,
          measured: `${job.peakRssMiB} MiB`,
          ok: job.peakRssMiB <= target.rssMiB,
        },
        {
          label: 'every sale of the year received once and stored (12 windows; records = sales in the data set)',
          measured:
            `${backfilled.length} windows, ${records} records, ` +
            `${stored.sales} sales stored, ${stored.quarantined} quarantined`,
          ok:
            backfilled.length === 12 &&
            records === sales &&
            stored.sales === backfilled.reduce((sum, w) => sum + w.loaded, 0),
        },
        {
          label: 'progress off a terminal: plain lines with an ETA, never more than 15 s apart',
          measured: `${progressLines.length} lines in ${round(job.seconds)} s, at most ${round(longestGap)} s apart`,
          ok: (progressLines.length > 0 || job.seconds < 20) && longestGap <= 15,
        },
      ],
      notes:
        `\`pinrecon extract --from ${extractDay} --to ${extractDay} --by created\` with extract.historyStart ` +
        `${historyStart} (no --json, stderr not a ` +
        `terminal, as a scheduled job runs it) in its own process, peak RSS and CPU from its getrusage at exit; ` +
        `\`pinrecon simulate-api\` in another ` +
        `(seed 11, ${sales.toLocaleString('en-US')} sales, every 2,500th malformed, 50 requests/s) rendered the ` +
        `${windows.length} windows before the run ` +
        '(render_windows_s, excluded) and served them from its files, gzip-encoded as pinrecon asks ' +
        '(simulator_cpu_during_run_s: what serving cost ' +
        'on the shared cores). ' +
        'load_s_per_million_by_window: each ' +
        "window's load (DuckDB, its transaction with the checkpoint) per million records, in window order, " +
        'as `sales` grows from 0 to the whole year. database_MiB: the DuckDB file after the year (sales, status ' +
        'history, quarantine, ' +
        'landing records). Resuming after kill -9 is proven by test/cli/extract.test.ts (the back-fill killed with ' +
        'SIGKILL, re-run, ' +
        'fetches only what was not committed and ends with the clean result).',
    };
  } finally {
    if (keep) process.stderr.write(`backfill bench: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

async function storedFacts(database: string): Promise<{ sales: number; quarantined: number }> {
  const warehouse = await Warehouse.open(database, { timezone });
  try {
    const row = await warehouse.one<{ sales: string; quarantined: string }>(
      'select (select count(*) from sales)::VARCHAR as sales, (select count(*) from sales_quarantine)::VARCHAR as ' +
        'quarantined',
    );
    return { sales: Number(row?.sales ?? 0), quarantined: Number(row?.quarantined ?? 0) };
  } finally {
    warehouse.close();
  }
}

function fileMiB(file: string): number {
  try {
    return statSync(file).size / 2 ** 20;
  } catch {
    return 0;
  }
}

function folderMiB(folder: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return bytes / 2 ** 20;
}

function average(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
