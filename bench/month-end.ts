/**
 * The month-end job as a partner with a million sales a month runs it: `pinrecon run --period 2026-10
 * --as-of 2026-11-23` in its own process (peak RSS measured there) against `pinrecon simulate-api` in
 * another, on a ledger with the demo's mix of planted breaks. Reports each step's seconds, the requests and
 * lookups, and checks that the findings are exactly the planted ones.
 *
 * Scale: PINRECON_BENCH_MONTH_SALES sales created 2026-10-01..2026-11-23 (default 1,782,000, which puts
 * ~1,000,000 in October). The 10M figure of BENCHMARKS.md is this bench with 17,820,000, run once:
 *   PINRECON_BENCH_MONTH_SALES=17820000 npm run bench -- month-end
 * PINRECON_BENCH_KEEP=1 keeps the folder (database, landing files, ledger, config) and prints its path,
 * to look into a run afterwards.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../core/paths.js';
import { Warehouse } from '../core/warehouse.js';
import { plantFile, type MonthLedgerOptions, type MonthPlant } from './generators/month-ledger.js';
import { timed, type BenchResult } from './harness.js';
import { startSimulatorProcess } from './simulator-process.js';

const sales = Number(process.env.PINRECON_BENCH_MONTH_SALES ?? 1_782_000);
const big = sales > 5_000_000;
export const name = `month-end run (${sales.toLocaleString('en-US')} sales created 2026-10-01..2026-11-23)`;

const period = '2026-10';
const asOf = '2026-11-23';
const timezone = 'America/Sao_Paulo';
const seed = 7;
const credentials = { identifier: 'bench-partner', secret: 'bench-secret-month-end' };
/** The targets: 1M in ≤ 60 s and ≤ 1 GiB; 10M in ≤ 15 min and ≤ 4 GiB. */
const target = big ? { seconds: 15 * 60, rssMiB: 4096 } : { seconds: 60, rssMiB: 1024 };

interface RunStep {
  step: string;
  status: string;
  seconds: number;
  summary: string;
}

interface RunJson {
  steps: RunStep[];
  extract: { records: number; requests: number; loadSeconds: number; downloadSeconds: number };
  ledger?: { lines: number; accepted: number; rejected: number };
  reconcile: { exceptions: number; lookup: { references?: number; provenAbsent?: number; done: boolean } };
}

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-month-end-'));
  try {
    const dataset = { from: '2026-10-01', to: asOf, salesCount: sales, timezone, malformedEvery: 2_500, seed };
    const ledger = path.join(dir, 'ledger.csv');
    const generated = await timed(() => generateMonthLedger({ dataset, period, asOf, ledger, seed }, dir));
    const plant = JSON.parse(readFileSync(plantFile(ledger), 'utf8')) as MonthPlant;

    const simulator = await startSimulatorProcess({ dir, ...dataset, sales, seed, ...credentials });
    let job: { seconds: number; value: { json: RunJson; peakRssMiB: number } };
    try {
      const config = path.join(dir, 'pinrecon.config.json');
      writeFileSync(
        config,
        JSON.stringify({
          timezone,
          database: path.join(dir, 'pinrecon.duckdb'),
          api: { baseUrl: simulator.url, ...credentials, maxRequestsPerSecond: 50 },
          extract: { landingDir: path.join(dir, 'landing') },
          reports: { outDir: path.join(dir, 'reports') },
        }),
      );
      job = await timed(() => runPinrecon(['run', '--period', period, '--as-of', asOf, '--ledger', ledger, '--config', config, '--json'], dir));
    } finally {
      await simulator.stop();
    }
    const { json, peakRssMiB } = job.value;
    const mismatches = await compareFindings(path.join(dir, 'pinrecon.duckdb'), plant);
    const stepSeconds = Object.fromEntries(json.steps.map((s) => [`${s.step.replace(/\W+/g, '_')}_s`, round(s.seconds)]));
    const inPeriod = await salesInPeriod(path.join(dir, 'pinrecon.duckdb'));
    return {
      metrics: {
        sales_in_data_set: sales,
        sales_in_period: inPeriod,
        records_received: json.extract.records,
        ledger_lines: plant.lines,
        findings: json.reconcile.exceptions,
        expected_findings: plant.findings.length,
        malformed_sales: plant.malformed.length,
        findings_about_malformed_sales: mismatches.aboutMalformed,
        requests: json.extract.requests,
        lookups: json.reconcile.lookup.references ?? 0,
        proven_absent_by_windows: json.reconcile.lookup.provenAbsent ?? 0,
        generate_ledger_s: round(generated.seconds),
        ...stepSeconds,
        extract_download_s: round(json.extract.downloadSeconds),
        extract_load_s: round(json.extract.loadSeconds),
        run_wall_s: round(job.seconds),
        run_peak_rss_MiB: peakRssMiB,
      },
      targets: [
        {
          label: `\`run\` wall time ≤ ${target.seconds} s`,
          measured: `${round(job.seconds)} s`,
          ok: job.seconds <= target.seconds,
        },
        { label: `peak RSS of the pinrecon process ≤ ${target.rssMiB} MiB`, measured: `${peakRssMiB} MiB`, ok: peakRssMiB <= target.rssMiB },
        {
          label: 'findings exactly the planted ones (type, reference; sales served malformed apart)',
          measured: `${mismatches.missing} missing, ${mismatches.unexpected} unexpected`,
          ok: mismatches.missing === 0 && mismatches.unexpected === 0,
        },
        { label: 'individual lookups ≤ 100', measured: String(json.reconcile.lookup.references ?? 0), ok: (json.reconcile.lookup.references ?? 0) <= 100 },
      ],
      notes:
        `\`pinrecon run --period ${period} --as-of ${asOf}\` in its own process (peak RSS from its getrusage at exit), against \`pinrecon simulate-api\` ` +
        `in another (seed ${seed}, ${sales.toLocaleString('en-US')} sales, every 2,500th malformed, 50 requests/s); the ledger is the demo's generator ` +
        '(breaks of every kind planted, one in 250 clean sales per kind). Steps as the job records them; the ledger generation is not part of the job.',
    };
  } finally {
    if (process.env.PINRECON_BENCH_KEEP === '1') process.stderr.write(`month-end bench: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the ledger generator in its own process with the heap a 10M-sales plant needs. */
async function generateMonthLedger(options: MonthLedgerOptions, dir: string): Promise<void> {
  const file = path.join(dir, 'month-ledger.options.json');
  writeFileSync(file, JSON.stringify(options));
  const script = path.join(packageRoot(), 'dist', 'bench', 'generators', 'month-ledger.js');
  await spawnChecked(process.execPath, ['--max-old-space-size=16384', script, file], dir);
}

/** `pinrecon <args>` with its peak RSS measured at exit; resolves with its --json result. */
async function runPinrecon(args: string[], dir: string): Promise<{ json: RunJson; peakRssMiB: number }> {
  const rssFile = path.join(dir, 'run.rss');
  const preload = pathToFileURL(path.join(packageRoot(), 'dist', 'bench', 'measures', 'peak-rss-at-exit.js')).href;
  const stdout = await spawnChecked(process.execPath, ['--import', preload, path.join(packageRoot(), 'dist', 'cli', 'main.js'), ...args], dir, {
    PINRECON_BENCH_RSS_FILE: rssFile,
  });
  if (!existsSync(rssFile)) throw new Error('the pinrecon process did not report its peak RSS');
  return { json: JSON.parse(stdout) as RunJson, peakRssMiB: Math.round(Number(readFileSync(rssFile, 'utf8')) / 1024) };
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
      else reject(new Error(`${path.basename(args.find((a) => a.endsWith('.js')) ?? command)} ${args.slice(-8).join(' ')} exited ${code ?? signal}:\n${stdout.slice(-4000)}`));
    });
  });
}

/** Findings of the period against the plant, by (type, trimmed reference). */
async function compareFindings(database: string, plant: MonthPlant): Promise<{ missing: number; unexpected: number; aboutMalformed: number }> {
  const warehouse = await Warehouse.open(database, { timezone });
  try {
    const found = await warehouse.all<{ k: string; r: string }>(
      `select exception_type || ' ' || trim(partner_reference) as k, trim(partner_reference) as r from recon_exceptions where period = $1`,
      [period],
    );
    // Findings about a sale served malformed depend on what quarantine made of it: counted apart, not compared.
    const malformed = new Set(plant.malformed);
    const expected = new Map<string, number>();
    for (const [type, reference] of plant.findings) {
      if (!malformed.has(reference)) expected.set(`${type} ${reference}`, (expected.get(`${type} ${reference}`) ?? 0) + 1);
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
    return { missing, unexpected, aboutMalformed };
  } finally {
    warehouse.close();
  }
}

async function salesInPeriod(database: string): Promise<number> {
  const warehouse = await Warehouse.open(database, { timezone });
  try {
    const row = await warehouse.one<{ n: string }>(
      `select count(*)::VARCHAR as n from sales where transaction_at >= TIMESTAMPTZ '2026-10-01 00:00:00-03' and transaction_at < TIMESTAMPTZ '2026-11-01 00:00:00-03'`,
    );
    return Number(row?.n ?? 0);
  } finally {
    warehouse.close();
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
