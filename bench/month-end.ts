/**
 * The month-end job at a million sales a month: `pinrecon run --period 2026-10 --as-of 2026-11-23` in its own
 * process (peak RSS measured there) against `pinrecon simulate-api` in another (bench/month-fixture.ts). Reports
 * each step's seconds, requests and lookups, and checks the findings are exactly the planted ones.
 * PINRECON_BENCH_MONTH_SALES sets the scale (default 1,782,000: ~1M in October; 17,820,000 for the 10M section);
 * PINRECON_BENCH_KEEP=1 keeps the folder. docs/BENCHMARKS.md says how to run the 10M figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchResult } from './harness.js';
import {
  asOf,
  checkFindings,
  monthSales,
  period,
  prepareMonth,
  round,
  runPinrecon,
  salesInPeriod,
} from './month-fixture.js';

const sales = monthSales();
const big = sales > 5_000_000;
export const name = `month-end run (${sales.toLocaleString('en-US')} sales created 2026-10-01..2026-11-23)`;
/** The 10M run is recorded beside the 1M one, not over it. */
export const section = big ? 'month-end-10m' : 'month-end';

/** The targets: 1M in ≤ 60 s and ≤ 1 GiB; 10M in ≤ 15 min and ≤ 4 GiB. */
const target = big ? { seconds: 15 * 60, rssMiB: 4096 } : { seconds: 60, rssMiB: 1024 };
const maxLookups = 100;

interface RunJson {
  steps: { step: string; status: string; seconds: number; summary: string; peakRssMiB?: number }[];
  extract: { records: number; requests: number; loadSeconds: number; downloadSeconds: number; quarantined: number };
  ledger?: { lines: number; accepted: number; rejected: number };
  reconcile: { exceptions: number; lookup: { references?: number; provenAbsent?: number; done: boolean } };
}

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-month-end-'));
  try {
    const month = await prepareMonth(dir, sales);
    let job;
    try {
      job = await runPinrecon<RunJson>(month, ['run', '--period', period, '--as-of', asOf, '--ledger', month.ledger]);
    } finally {
      await month.simulator.stop();
    }
    const { json } = job;
    const findings = await checkFindings(month);
    const lookups = json.reconcile.lookup.references ?? 0;
    const step = (s: { step: string }) => s.step.replace(/\W+/g, '_');
    const stepSeconds = Object.fromEntries(json.steps.map((s) => [`${step(s)}_s`, round(s.seconds)]));
    const stepRss = Object.fromEntries(json.steps.map((s) => [`peak_rss_MiB_after_${step(s)}`, s.peakRssMiB ?? 0]));
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
        ...stepSeconds,
        extract_download_s: round(json.extract.downloadSeconds),
        extract_load_s: round(json.extract.loadSeconds),
        run_wall_s: round(job.seconds),
        run_peak_rss_MiB: job.peakRssMiB,
        ...stepRss,
      },
      targets: [
        {
          label: `\`run\` wall time ≤ ${target.seconds} s`,
          measured: `${round(job.seconds)} s`,
          ok: job.seconds <= target.seconds,
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
      ],
      notes:
        `\`pinrecon run --period ${period} --as-of ${asOf}\` in its own process (peak RSS from its getrusage at exit), against \`pinrecon simulate-api\` ` +
        `in another (seed 7, ${sales.toLocaleString('en-US')} sales, every 2,500th malformed, 50 requests/s); the ledger is the demo's generator ` +
        '(breaks of every kind planted, one in 250 clean sales per kind). Steps as the job records them; the ledger generation is not part of the job.',
    };
  } finally {
    if (process.env.PINRECON_BENCH_KEEP === '1') process.stderr.write(`month-end bench: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
