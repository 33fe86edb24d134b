/**
 * The month the month-end and reconcile benchmarks share: the demo's data set at a partner's scale (seed 7, sales
 * created 2026-10-01..2026-11-23, every 2,500th served malformed) served by `pinrecon simulate-api` in a child
 * process, the demo's ledger of October with breaks of every kind planted, and `pinrecon` itself run as a child
 * process with its peak RSS measured at exit — each benchmark measures what a user runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../core/paths.js';
import { Warehouse } from '../core/warehouse.js';
import { plantFile, type MonthLedgerOptions, type MonthPlant } from './generators/month-ledger.js';
import { startSimulatorProcess, type SimulatorProcess } from './simulator-process.js';

export const period = '2026-10';
export const asOf = '2026-11-23';
export const timezone = 'America/Sao_Paulo';
const seed = 7;
const credentials = { identifier: 'bench-partner', secret: 'bench-secret-month' };
/** Every 2,500th sale served malformed, as in the demo. */
const malformedEvery = 2_500;

/** Sales in the data set: PINRECON_BENCH_MONTH_SALES, default 1,782,000 (~1,000,000 created in October). */
export function monthSales(): number {
  return Number(process.env.PINRECON_BENCH_MONTH_SALES ?? 1_782_000);
}

export interface Month {
  dir: string;
  sales: number;
  ledger: string;
  plant: MonthPlant;
  config: string;
  database: string;
  simulator: SimulatorProcess;
  generateSeconds: number;
}

/** Writes the ledger and its plant (in its own process: a 10M plant needs a large heap), starts the simulator. */
export async function prepareMonth(dir: string, sales = monthSales()): Promise<Month> {
  const dataset = { from: '2026-10-01', to: asOf, salesCount: sales, timezone, malformedEvery, seed };
  const ledger = path.join(dir, 'ledger.csv');
  const started = Date.now();
  const options: MonthLedgerOptions = { dataset, period, asOf, ledger, seed };
  const optionsFile = path.join(dir, 'month-ledger.options.json');
  writeFileSync(optionsFile, JSON.stringify(options));
  await spawnChecked(
    process.execPath,
    [
      '--max-old-space-size=16384',
      path.join(packageRoot(), 'dist', 'bench', 'generators', 'month-ledger.js'),
      optionsFile,
    ],
    dir,
  );
  const generateSeconds = (Date.now() - started) / 1000;
  const plant = JSON.parse(readFileSync(plantFile(ledger), 'utf8')) as MonthPlant;

  const simulator = await startSimulatorProcess({ dir, ...dataset, sales, seed, malformedEvery, ...credentials });
  const database = path.join(dir, 'pinrecon.duckdb');
  const config = path.join(dir, 'pinrecon.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      timezone,
      database,
      api: { baseUrl: simulator.url, ...credentials, maxRequestsPerSecond: 50 },
      // The simulator holds no sale created before its first day: the windows prove absence (0 look-ups),
      // as a partner with extract.historyStart set and back-filled would run.
      extract: { landingDir: path.join(dir, 'landing'), historyStart: dataset.from },
      reports: { outDir: path.join(dir, 'reports') },
    }),
  );
  return { dir, sales, ledger, plant, config, database, simulator, generateSeconds };
}

export interface PinreconRun<T> {
  json: T;
  seconds: number;
  peakRssMiB: number;
  /** CPU seconds of the child (user + system, all threads): what a busy machine's wall time hides. */
  cpuSeconds: number;
}

/** `pinrecon <args> --config <month config> --json` as a child process; its result, wall seconds and peak RSS. */
export async function runPinrecon<T>(month: Month, args: string[]): Promise<PinreconRun<T>> {
  const rssFile = path.join(month.dir, 'pinrecon.rss');
  const preload = pathToFileURL(path.join(packageRoot(), 'dist', 'bench', 'measures', 'peak-rss-at-exit.js')).href;
  const started = process.hrtime.bigint();
  const stdout = await spawnChecked(
    process.execPath,
    [
      '--import',
      preload,
      path.join(packageRoot(), 'dist', 'cli', 'main.js'),
      ...args,
      '--config',
      month.config,
      '--json',
    ],
    month.dir,
    { PINRECON_BENCH_RSS_FILE: rssFile },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (!existsSync(rssFile)) throw new Error(`pinrecon ${args[0]} did not report its peak RSS`);
  return {
    json: JSON.parse(stdout) as T,
    seconds,
    peakRssMiB: Math.round(Number(readFileSync(rssFile, 'utf8')) / 1024),
    cpuSeconds: Number(readFileSync(`${rssFile}.cpu`, 'utf8')),
  };
}

/** Spawns a command (stderr passed through, so progress lines show) and resolves with its stdout. */
function spawnChecked(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const stdout = Buffer.concat(chunks).toString('utf8');
      if (code === 0) resolve(stdout);
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
      `select exception_type || ' ' || trim(partner_reference) as k, trim(partner_reference) as r from recon_exceptions where period = $1`,
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
      `select count(*)::VARCHAR as n from sales where transaction_at >= TIMESTAMPTZ '2026-10-01 00:00:00-03' and transaction_at < TIMESTAMPTZ '2026-11-01 00:00:00-03'`,
    );
    return Number(row?.n ?? 0);
  } finally {
    warehouse.close();
  }
}

export function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
