/**
 * The month the month-end and reconcile benchmarks share: the demo's data set at a partner's scale (seed 7, sales
 * created 2026-10-01..2026-11-23, every 2,500th served malformed) served by `pinrecon simulate-api` in a child
 * process, the demo's ledger of October with breaks of every kind planted, and `pinrecon` itself run as a child
 * process with its peak RSS measured at exit — each benchmark measures what a user runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { packageRoot } from '../core/paths.js';
import { sparePath } from '../core/snapshot-copy.js';
import { publishSnapshot, snapshotPath, Warehouse } from '../core/warehouse.js';
import { timed } from './harness.js';
import { plantFile, type MonthLedgerOptions, type MonthPlant } from './generators/month-ledger.js';
import {
  cpuSecondsOf,
  renderWindows,
  startSimulatorProcess,
  type BenchWindow,
  type SimulatorProcess,
} from './simulator-process.js';

export const period = '2026-10';
export const asOf = '2026-11-23';
export const timezone = 'America/Sao_Paulo';
const seed = 7;
const credentials = { identifier: 'bench-partner', secret: 'bench-secret-month' };
/** Every 2,500th sale served malformed, as in the demo. */
const malformedEvery = 2_500;

/** ~1,000,000 sales created in October. */
export const defaultMonthSales = 1_782_000;

/** Sales in the data set: PINRECON_BENCH_MONTH_SALES, default 1,782,000. */
export function monthSales(): number {
  return Number(process.env.PINRECON_BENCH_MONTH_SALES ?? defaultMonthSales);
}

/**
 * The bench's folder: a fresh one under the temp dir, removed after the bench unless PINRECON_BENCH_KEEP=1; or
 * PINRECON_BENCH_DIR, kept, whose ledger and rendered answers a later run of the same data set uses again (a 10M
 * month's ledger takes 12–77 minutes to write) — its database, landing files and reports are removed first.
 */
export function benchFolder(prefix: string): { dir: string; keep: boolean } {
  const given = process.env.PINRECON_BENCH_DIR;
  if (!given) {
    return { dir: mkdtempSync(path.join(tmpdir(), prefix)), keep: process.env.PINRECON_BENCH_KEEP === '1' };
  }
  mkdirSync(given, { recursive: true });
  for (const earlier of ['pinrecon.duckdb', 'pinrecon.duckdb.wal', 'pinrecon.duckdb.tmp', 'landing', 'reports']) {
    rmSync(path.join(given, earlier), { recursive: true, force: true });
  }
  return { dir: given, keep: true };
}

export interface Month {
  dir: string;
  sales: number;
  ledger: string;
  plant: MonthPlant;
  config: string;
  database: string;
  simulator: SimulatorProcess;
  /** Writing the ledger and its plant; 0 when a kept folder's ledger of the same options was used again. */
  generateSeconds: number;
  /** With `renderFor`: where the simulator keeps its answers, the windows rendered, and how long that took. */
  kept?: { dir: string; windows: BenchWindow[]; renderSeconds: number };
}

export interface MonthOptions {
  /** extract.historyStart of the config (default: the simulator's first day). */
  historyStart?: string;
  /** The windows the timed command will ask for: rendered by the simulator before it (excluded from its time). */
  renderFor?: (config: Config) => BenchWindow[];
}

/** Writes the ledger and its plant (in its own process: a 10M plant needs a large heap), starts the simulator. */
export async function prepareMonth(dir: string, sales = monthSales(), options: MonthOptions = {}): Promise<Month> {
  const dataset = { from: '2026-10-01', to: asOf, salesCount: sales, timezone, malformedEvery, seed };
  const ledger = path.join(dir, 'ledger.csv');
  const started = Date.now();
  const ledgerOptions: MonthLedgerOptions = { dataset, period, asOf, ledger, seed };
  const optionsFile = path.join(dir, 'month-ledger.options.json');
  const written =
    existsSync(ledger) &&
    existsSync(plantFile(ledger)) &&
    existsSync(optionsFile) &&
    readFileSync(optionsFile, 'utf8') === JSON.stringify(ledgerOptions);
  if (!written) {
    // The options are written last when done: a generation cut short is never taken for a finished one.
    rmSync(optionsFile, { force: true });
    const pending = `${optionsFile}.pending`;
    writeFileSync(pending, JSON.stringify(ledgerOptions));
    await spawnChecked(
      process.execPath,
      [
        '--max-old-space-size=16384',
        path.join(packageRoot(), 'dist', 'bench', 'generators', 'month-ledger.js'),
        pending,
      ],
      dir,
    );
    writeFileSync(optionsFile, JSON.stringify(ledgerOptions));
    rmSync(pending, { force: true });
  }
  const generateSeconds = written ? 0 : (Date.now() - started) / 1000;
  const plant = JSON.parse(readFileSync(plantFile(ledger), 'utf8')) as MonthPlant;

  const keptDir = options.renderFor ? path.join(dir, 'kept-answers') : undefined;
  const simulator = await startSimulatorProcess({
    dir,
    ...dataset,
    sales,
    seed,
    malformedEvery,
    ...credentials,
    ...(keptDir && { keepResponsesDir: keptDir }),
  });
  // The simulator holds no sale created before its first day: the windows prove absence (0 look-ups),
  // as a partner with extract.historyStart set and back-filled would run.
  const { config, database } = writeBenchConfig(dir, simulator.url, credentials, options.historyStart ?? dataset.from);
  const month: Month = { dir, sales, ledger, plant, config, database, simulator, generateSeconds };
  if (keptDir && options.renderFor) {
    const windows = options.renderFor(loadConfig({ file: config, env: {} }).config);
    month.kept = { dir: keptDir, windows, renderSeconds: await renderWindows(simulator, credentials, windows) };
  }
  return month;
}

/** A bench's pinrecon config in `dir`: its database, landing and reports there, the simulator at `apiUrl`. */
export function writeBenchConfig(
  dir: string,
  apiUrl: string,
  apiCredentials: { identifier: string; secret: string },
  historyStart: string,
): { config: string; database: string } {
  const database = path.join(dir, 'pinrecon.duckdb');
  const config = path.join(dir, 'pinrecon.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      timezone,
      database,
      api: { baseUrl: apiUrl, ...apiCredentials, maxRequestsPerSecond: 50 },
      extract: { landingDir: path.join(dir, 'landing'), historyStart },
      reports: { outDir: path.join(dir, 'reports') },
    }),
  );
  return { config, database };
}

export interface PinreconRun<T> {
  json: T;
  seconds: number;
  peakRssMiB: number;
  /** CPU seconds of the child (user + system, all threads): what a busy machine's wall time hides. */
  cpuSeconds: number;
  /** CPU seconds of the simulator while the child ran (serving, on the same cores). */
  simulatorCpuSeconds: number;
  /** The process's resident set every ~200 ms (from /proc, so its peaks between samples can be missed). */
  rssSamples: RssSample[];
  /** What it wrote on stderr (also passed through). */
  stderr: string;
}

/** Where a measured pinrecon runs: its folder, config and the simulator it talks to. */
export type PinreconTarget = Pick<Month, 'dir' | 'config' | 'simulator'>;

export interface RssSample {
  atMs: number;
  rssMiB: number;
}

/**
 * `pinrecon <args> --config <config> --json` as a child process; its result, wall seconds, peak RSS and CPU.
 * With `json: false`, no --json: the progress lines a user sees off a terminal are in `stderr`, `json` is null.
 */
export async function runPinrecon<T>(
  month: PinreconTarget,
  args: string[],
  options: { json?: boolean } = {},
): Promise<PinreconRun<T>> {
  const json = options.json ?? true;
  const rssFile = path.join(month.dir, 'pinrecon.rss');
  const preload = pathToFileURL(path.join(packageRoot(), 'dist', 'bench', 'measures', 'peak-rss-at-exit.js')).href;
  const simulatorPid = month.simulator.child.pid!;
  const simulatorCpuBefore = cpuSecondsOf(simulatorPid);
  const started = process.hrtime.bigint();
  const rssSamples: RssSample[] = [];
  const { stdout, stderr } = await spawnChecked(
    process.execPath,
    [
      '--import',
      preload,
      path.join(packageRoot(), 'dist', 'cli', 'main.js'),
      ...args,
      '--config',
      month.config,
      ...(json ? ['--json'] : []),
    ],
    month.dir,
    { PINRECON_BENCH_RSS_FILE: rssFile },
    (pid) => sampleRss(pid, rssSamples),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const simulatorCpuSeconds = cpuSecondsOf(simulatorPid) - simulatorCpuBefore;
  if (!existsSync(rssFile)) throw new Error(`pinrecon ${args[0]} did not report its peak RSS`);
  return {
    json: (json ? JSON.parse(stdout) : null) as T,
    seconds,
    peakRssMiB: Math.round(Number(readFileSync(rssFile, 'utf8')) / 1024),
    cpuSeconds: Number(readFileSync(`${rssFile}.cpu`, 'utf8')),
    simulatorCpuSeconds,
    rssSamples,
    stderr,
  };
}

/** Reads a process's VmRSS every 200 ms into `samples` until it exits; returns the stop function. */
function sampleRss(pid: number, samples: RssSample[]): () => void {
  const timer = setInterval(() => {
    try {
      const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (kib) samples.push({ atMs: Date.now(), rssMiB: Math.round(Number(kib) / 1024) });
    } catch {
      // exited between two samples
    }
  }, 200);
  return () => clearInterval(timer);
}

/**
 * The highest sampled RSS within each step of a job, the steps timed by their own pipeline_runs rows (children
 * of the job, in start order) and named after `names` when there are as many of them, else by command.
 */
export async function rssByStep(
  month: Month,
  samples: RssSample[],
  names: string[] = [],
): Promise<Record<string, number>> {
  const warehouse = await Warehouse.open(month.database, { timezone });
  try {
    const steps = await warehouse.all<{ command: string; started: string; finished: string | null }>(
      `select command, epoch_ms(started_at)::VARCHAR as started, epoch_ms(finished_at)::VARCHAR as finished
       from pipeline_runs where parent_run_id is not null order by started_at`,
    );
    const byStep: Record<string, number> = {};
    steps.forEach((step, i) => {
      const name = (steps.length === names.length ? names[i]! : step.command).replace(/\W+/g, '_');
      const [from, to] = [Number(step.started), step.finished === null ? Infinity : Number(step.finished)];
      const inStep = samples.filter((sample) => sample.atMs >= from && sample.atMs <= to).map((s) => s.rssMiB);
      byStep[name] = Math.max(byStep[name] ?? 0, ...inStep, 0);
    });
    return byStep;
  } finally {
    warehouse.close();
  }
}

/** Spawns a command (stderr passed through, so progress lines show, and kept) and resolves with its output. */
function spawnChecked(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  watch?: (pid: number) => () => void,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const unwatch = watch && child.pid !== undefined ? watch(child.pid) : undefined;
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      errors.push(chunk);
      process.stderr.write(chunk);
    });
    child.once('error', reject);
    // 'close': stdout and stderr have ended too.
    child.once('close', (code, signal) => {
      unwatch?.();
      const stdout = Buffer.concat(chunks).toString('utf8');
      if (code === 0) resolve({ stdout, stderr: Buffer.concat(errors).toString('utf8') });
      else
        reject(
          new Error(
            `${args
              .filter((a) => !a.startsWith('--import') && !a.startsWith('file:'))
              .slice(0, 6)
              .join(' ')} exited ${code ?? signal}:\n${stdout.slice(-4000)}`,
          ),
        );
    });
  });
}

export interface FindingsCheck {
  expected: number;
  found: number;
  /** Planted findings the run did not report. */
  missing: number;
  /** Findings the plant does not expect. */
  unexpected: number;
  /** Findings about sales served malformed: what quarantine makes of them is not planted, so not compared. */
  aboutMalformed: number;
}

/** The period's findings against the plant, by (type, trimmed reference). */
export async function checkFindings(month: Month): Promise<FindingsCheck> {
  const warehouse = await Warehouse.open(month.database, { timezone });
  try {
    const found = await warehouse.all<{ k: string; r: string }>(
      `select exception_type || ' ' || trim(partner_reference) as k, trim(partner_reference) as r from ` +
        `recon_exceptions where period = $1`,
      [period],
    );
    const malformed = new Set(month.plant.malformed);
    const expected = new Map<string, number>();
    for (const [type, reference] of month.plant.findings) {
      if (!malformed.has(reference))
        expected.set(`${type} ${reference}`, (expected.get(`${type} ${reference}`) ?? 0) + 1);
    }
    let unexpected = 0;
    let aboutMalformed = 0;
    for (const { k, r } of found) {
      if (malformed.has(r)) {
        aboutMalformed++;
        continue;
      }
      const left = expected.get(k) ?? 0;
      if (left === 0) unexpected++;
      else expected.set(k, left - 1);
    }
    const missing = [...expected.values()].reduce((a, b) => a + b, 0);
    return { expected: month.plant.findings.length, found: found.length, missing, unexpected, aboutMalformed };
  } finally {
    warehouse.close();
  }
}

/** Sales in the database dated in the period (local time). */
export async function salesInPeriod(month: Month): Promise<number> {
  const warehouse = await Warehouse.open(month.database, { timezone });
  try {
    const row = await warehouse.one<{ n: string }>(
      `select count(*)::VARCHAR as n from sales where transaction_at >= TIMESTAMPTZ '2026-10-01 00:00:00-03' and ` +
        `transaction_at < TIMESTAMPTZ '2026-11-01 00:00:00-03'`,
    );
    return Number(row?.n ?? 0);
  } finally {
    warehouse.close();
  }
}

export function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

/** ": 90.8 s over (×5.5)" when `seconds` misses `target`, else nothing. */
export function overBy(seconds: number, target: number): string {
  if (seconds <= target) return '';
  return `: ${round(seconds - target)} s over (×${(seconds / target).toFixed(1)})`;
}

/** A size in MiB, to a tenth. */
export const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * publishSnapshot timed on `database`: with nothing new since the last publish; after one new row with no usable
 * spare (a whole copy, which keeps the replaced snapshot as the spare); after another, through that spare (its
 * changed blocks written, then swapped in; the snapshot then checked to be the file, byte for byte).
 */
export async function measurePublishing(database: string) {
  const warehouse = await Warehouse.open(database, { applySchema: false });
  try {
    await publishSnapshot(warehouse);
    const unchanged = await timed(() => publishSnapshot(warehouse));
    rmSync(sparePath(snapshotPath(database)), { force: true });
    await warehouse.run('CREATE OR REPLACE TABLE bench_publish_marker AS SELECT now() AS at');
    const changed = await timed(() => publishSnapshot(warehouse));
    await warehouse.run('CREATE OR REPLACE TABLE bench_publish_marker AS SELECT now() AS at');
    const bySpare = await timed(() => publishSnapshot(warehouse));
    return {
      unchanged: Number(unchanged.seconds.toFixed(3)),
      changed: Number(changed.seconds.toFixed(3)),
      bySpare: Number(bySpare.seconds.toFixed(3)),
      spareExact: readFileSync(snapshotPath(database)).equals(readFileSync(database)),
      fileMiB: mib(statSync(database).size),
    };
  } finally {
    warehouse.close();
  }
}
