/**
 * Reconciling a big month as it really looks: the month of bench/month-fixture.ts (~1,000,000 sales in October,
 * the lookback's November sales too, both windows' flags, ~11 % of sales with a finding, ~6 % unredeemed keys,
 * sales served malformed in quarantine), extracted and imported by pinrecon itself; then `pinrecon reconcile
 * --period 2026-10` timed as a user runs it (its own process, peak RSS at exit), once and again (the re-run adds
 * identity and history). Target (issue 33): ≤ 5 s and ≤ 1 GiB on the 2-core machine. Issue 29: ~0.6 % of its clean
 * orders misspelled (generators/near-miss-ledger.ts), the proposals counted, the suggestions' share printed.
 */
import { rmSync } from 'node:fs';
import type { BenchResult } from './harness.js';
import { countProposals, misspellLedger, suggestionSeconds } from './generators/near-miss-ledger.js';
import {
  asOf,
  benchFolder,
  checkFindings,
  monthSales,
  overBy,
  period,
  prepareMonth,
  round,
  runPinrecon,
  salesInPeriod,
} from './month-fixture.js';
import { cpuBound } from './measures/cpu-bound.js';

export const name = 'reconcile (the month-end bench month: ~1,000,000 sales in the period)';

const targetSeconds = 5;
const targetRssMiB = 1024;

interface ReconcileJson {
  exceptions: number;
  byType: Record<string, number>;
  stages: Record<string, number>;
  lookup: { references?: number; provenAbsent?: number };
  models: Record<string, number>;
  elapsedSeconds: number;
}

/** The suggestions may add at most this much to reconcile (issue 29). */
const targetSuggestSeconds = 2;

/**
 * Why a run missed the target, from its own summary: its stages, the three slowest models, and what the process
 * spent outside them (start-up, opening the file, inputs, the summary). Empty when it met the target.
 */
export function whereTimeWent(run: { seconds: number; json: ReconcileJson }, target: number): string {
  if (run.seconds <= target) return '';
  const { stages, models } = run.json;
  const named: Record<string, string> = { intermediate: 'intermediate models', tests: 'data tests' };
  const slowest = Object.entries(models)
    .filter(([name]) => name.startsWith('int_'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, s]) => `${name.replace(/^int_(recon_)?/, '')} ${round(s)}`);
  const parts = Object.entries(stages)
    .filter(([, s]) => s >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(
      ([stage, s]) =>
        `${named[stage] ?? stage} ${round(s)} s${stage === 'intermediate' ? ` (${slowest.join(', ')})` : ''}`,
    );
  const outside = run.seconds - Object.values(stages).reduce((sum, s) => sum + s, 0);
  return `; ${[...parts, `the rest ${round(outside)} s`].join(', ')}`;
}

export async function run(): Promise<BenchResult> {
  const { dir, keep } = benchFolder('pinrecon-bench-reconcile-');
  try {
    const prepared = await prepareMonth(dir, monthSales());
    const nearMiss = await misspellLedger(prepared);
    const month = { ...prepared, plant: nearMiss.plant };
    let first;
    let second;
    try {
      await runPinrecon(month, ['extract', '--from', '2026-09-30', '--to', asOf, '--by', 'both']);
      await runPinrecon(month, ['ledger', 'import', nearMiss.ledger]);
      first = await runPinrecon<ReconcileJson>(month, ['reconcile', '--period', period, '--as-of', asOf]);
      second = await runPinrecon<ReconcileJson>(month, ['reconcile', '--period', period, '--as-of', asOf]);
    } finally {
      await month.simulator.stop();
    }
    const findings = await checkFindings(month);
    const proposals = await countProposals(month, nearMiss.planted);
    const suggestS = suggestionSeconds(first.json.models);
    const suggestShare = Math.round((suggestS / first.json.elapsedSeconds) * 1000) / 10;
    process.stderr.write(
      `reconcile bench: suggestions ${round(suggestS)} s of ${round(first.json.elapsedSeconds)} s ` +
        `(${suggestShare} %); ` +
        `${proposals.proposals} proposals: ${proposals.plantedAtRank1}/${proposals.planted} misspellings at rank 1, ` +
        `${proposals.falseWithAnotherSale} with another sale, ${proposals.falseFromRandomReferences} from random ` +
        'references\n',
    );
    const inPeriod = await salesInPeriod(month);
    const unredeemed = first.json.byType.unredeemed_key ?? 0;
    const stageMetrics = Object.fromEntries(
      Object.entries(first.json.stages).map(([stage, s]) => [`${stage}_s`, Math.round(s * 100) / 100]),
    );
    return {
      metrics: {
        sales_in_database: month.sales,
        sales_in_period: inPeriod,
        ledger_lines: month.plant.lines,
        findings: first.json.exceptions,
        findings_per_sale_in_period_pct: Math.round((first.json.exceptions / inPeriod) * 1000) / 10,
        unredeemed_keys_pct: Math.round((unredeemed / inPeriod) * 1000) / 10,
        lookups: first.json.lookup.references ?? 0,
        reconcile_s: round(first.seconds),
        reconcile_cpu_s: round(first.cpuSeconds),
        reconcile_peak_rss_MiB: first.peakRssMiB,
        rerun_s: round(second.seconds),
        rerun_cpu_s: round(second.cpuSeconds),
        rerun_peak_rss_MiB: second.peakRssMiB,
        suggest_s: round(suggestS),
        suggest_candidates_s: Math.round((first.json.models.int_recon_match_candidates ?? 0) * 100) / 100,
        suggest_mart_s: Math.round((first.json.models.recon_match_suggestions ?? 0) * 100) / 100,
        suggest_share_pct: suggestShare,
        suggest_proposals: proposals.proposals,
        suggest_planted: proposals.planted,
        suggest_planted_at_rank1: proposals.plantedAtRank1,
        suggest_false_with_another_sale: proposals.falseWithAnotherSale,
        suggest_false_from_random_references: proposals.falseFromRandomReferences,
        ...stageMetrics,
      },
      targets: [
        {
          label: `reconcile of ~1M sales in ≤ ${targetSeconds} s`,
          measured:
            `${round(first.seconds)} s${overBy(first.seconds, targetSeconds)}` +
            whereTimeWent(first, targetSeconds) +
            cpuBound(first.seconds, first.cpuSeconds, targetSeconds),
          ok: first.seconds <= targetSeconds,
        },
        {
          label: `re-run (identity, history) in ≤ ${targetSeconds} s`,
          measured:
            `${round(second.seconds)} s${overBy(second.seconds, targetSeconds)}` +
            whereTimeWent(second, targetSeconds) +
            cpuBound(second.seconds, second.cpuSeconds, targetSeconds),
          ok: second.seconds <= targetSeconds,
        },
        {
          label: `peak RSS of the reconcile process ≤ ${targetRssMiB} MiB`,
          measured: `${Math.max(first.peakRssMiB, second.peakRssMiB)} MiB`,
          ok: Math.max(first.peakRssMiB, second.peakRssMiB) <= targetRssMiB,
        },
        {
          label: `suggested matches (candidates and their mart) add ≤ ${targetSuggestSeconds} s to reconcile`,
          measured: `${round(suggestS)} s (${suggestShare} % of ${round(first.json.elapsedSeconds)} s)`,
          ok: suggestS <= targetSuggestSeconds,
        },
        {
          label: 'every misspelled order proposed with its own sale at rank 1',
          measured: `${proposals.plantedAtRank1} of ${proposals.planted}`,
          ok: proposals.plantedAtRank1 === proposals.planted,
        },
        {
          label: 'no proposal for an order that was not misspelled',
          measured:
            `${proposals.falseFromRandomReferences} ` +
            `(and ${proposals.falseWithAnotherSale} misspelled orders proposed with another sale)`,
          ok: proposals.falseFromRandomReferences === 0,
        },
        {
          label: 'findings exactly the planted ones (type, reference; sales served malformed apart)',
          measured: `${findings.missing} missing, ${findings.unexpected} unexpected`,
          ok: findings.missing === 0 && findings.unexpected === 0,
        },
      ],
      notes:
        `The month of the month-end bench (${month.sales.toLocaleString('en-US')} sales created ` +
        `2026-10-01..2026-11-23, ledger of October with every ` +
        `kind of break planted, ${nearMiss.planted.size} clean orders typed with a near-miss reference), ` +
        'extracted by `pinrecon extract --by both` and imported by `pinrecon ledger import`; ' +
        'then `pinrecon reconcile ' +
        `--period ${period} --as-of ${asOf} --json\` twice, each in its own process; ` +
        "seconds are the process's wall time (start-up included), " +
        "CPU seconds its user + system time (all of DuckDB's threads), stages from its own summary of the first run. " +
        'Where the time goes: the intermediate models (each a hash join or window over the ~2M rows of the scope ' +
        'keyed by the reference text: rows classified, the classified ledger and sales, the scope union, bridge ' +
        'items, matched pairs), then the conservation tests and publishing. Issue 33 asks ≤ 5 s: fewer, wider models ' +
        'are left to try (integer reference ids were tried: slower). The proposals for orders not misspelled are ' +
        'chance neighbours: a reference one digit from a sale of the same day, which no score can tell from a typo. ' +
        "Not measured here: the edge candidates (sales of the days just outside the period), since this month's " +
        'ledger holds October only and a sale outside the period is a candidate only on a day the ledger reaches.',
    };
  } finally {
    if (keep) process.stderr.write(`reconcile bench: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
