/**
 * Reconcile's proof of absence (README "Proof of absence"): whether the stored by-creation windows prove that
 * a paid order no provider sale answers has none at the provider, and otherwise the individual look-up of its
 * reference (reconciliation.lookupMissing). Reads the models reconcile has built (int_provider__created_coverage,
 * int_recon_rows_classified); reconcile rebuilds them with what the look-ups loaded.
 */
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import { PartnerApiClient } from '../../sources/partner-api/client.js';
import { seconds } from '../../core/model-runner.js';
import { lookUpReferences, type ReferenceLookupSummary } from '../extract/lookup.js';
import type { PipelineRun } from '../../core/run-trace.js';

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

/** provenAbsent: would-be-missing orders not looked up because the by-creation windows prove them absent. */
export type LookupOutcome = {
  done: boolean;
  skippedBecause?: string;
  provenAbsent?: number;
} & Partial<ReferenceLookupSummary>;

/** Runs with more look-ups than this say that extract.historyStart (and its back-fill) would avoid them. */
export const manyLookups = 100;

export async function windowCoverage(warehouse: Warehouse): Promise<WindowCoverage> {
  const row = (await warehouse.one<Record<string, string | boolean | null>>(
    `SELECT history_start::VARCHAR AS history_start, covered_through::VARCHAR AS covered_through, proves_absence,
            uncovered_days, first_uncovered_day::VARCHAR AS first_uncovered_day,
            last_uncovered_day::VARCHAR AS last_uncovered_day
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

/**
 * Looks up individually the paid orders no provider sale answers, when the by-creation windows do not prove them
 * absent (or every one, with lookupScope 'all'), and says why when it does not. Sets `stages.lookup` when it asks.
 */
export async function lookUpUnproven(
  warehouse: Warehouse,
  config: Config,
  job: {
    client?: PartnerApiClient;
    lookupScope?: 'unproven' | 'all';
    run: PipelineRun;
    period: string;
    complete: boolean;
    coverage: WindowCoverage;
    stages: Record<string, number>;
  },
  output: Output,
): Promise<LookupOutcome> {
  const { run, coverage } = job;
  const lookup: LookupOutcome = { done: false };
  const wouldBeMissing = await wouldBeMissingReferences(warehouse);
  // When the windows prove absence nothing is asked: the only orders they leave unproven are those the
  // provider returned a record for that could not be loaded, and asking would return the same record.
  const references = job.lookupScope === 'all' || !coverage.provesAbsence ? wouldBeMissing.all : [];
  lookup.provenAbsent = coverage.provesAbsence ? wouldBeMissing.all.length - wouldBeMissing.quarantined : 0;
  if (lookup.provenAbsent > 0) {
    output.info(
      `${lookup.provenAbsent} of ${wouldBeMissing.all.length} paid orders without a provider sale proven absent ` +
        `by the by-creation windows (${coverage.historyStart}..${coverage.coveredThrough})`,
    );
  } else if (wouldBeMissing.all.length > 0) {
    output.info(`${wouldBeMissing.all.length} paid orders without a provider sale: ${describeCoverageGap(coverage)}`);
  }
  const skippedBecause = lookupSkippedBecause(config, job.client, references.length, lookup.provenAbsent, job.complete);
  if (skippedBecause) {
    lookup.skippedBecause = skippedBecause;
    if (references.length > 0) {
      const what = `individual lookup of ${references.length} would-be missing references skipped`;
      output.info(`${what}: ${skippedBecause}; their findings say proof unproven`);
    }
    return lookup;
  }
  const client = job.client ?? new PartnerApiClient(config.api);
  const statsBefore = { ...client.stats };
  const lookupStarted = Date.now();
  try {
    const found = await lookUpReferences(
      warehouse,
      config,
      client,
      references,
      { runId: run.runId, label: job.period },
      output,
    );
    Object.assign(lookup, found, { done: true });
  } finally {
    run.counters.requests += client.stats.requests - statsBefore.requests;
    run.counters.retries += client.stats.retries - statsBefore.retries;
    run.counters.rateLimited += client.stats.rateLimited - statsBefore.rateLimited;
    if (!job.client) client.close();
  }
  job.stages.lookup = seconds(lookupStarted);
  return lookup;
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

/** Why the windows do not prove absence, in words. */
function describeCoverageGap(c: WindowCoverage): string {
  if (!c.historyStart)
    return 'extract.historyStart is not set, so the windows prove no absence; only an individual look-up does';
  const gap =
    c.firstUncoveredDay === c.lastUncoveredDay
      ? `on ${c.firstUncoveredDay}`
      : `between ${c.firstUncoveredDay} and ${c.lastUncoveredDay}`;
  return (
    `the by-creation windows do not cover ${c.uncoveredDays} day(s) from extract.historyStart ${c.historyStart} to ` +
    `${c.coveredThrough} ` +
    `(${gap}), so they prove no absence`
  );
}

/** Said when a run needed more than `manyLookups` look-ups: what makes them unnecessary. */
export function manyLookupsAdvice(lookups: number, c: WindowCoverage): string {
  return c.historyStart
    ? `${lookups} individual look-ups were needed because the by-creation windows ` +
        `from extract.historyStart ${c.historyStart} ` +
        `to ${c.coveredThrough} have gaps (first: ${c.firstUncoveredDay}): \`pinrecon extract --from ` +
        `${c.firstUncoveredDay} ` +
        `--to ${c.lastUncoveredDay} --by created\` fills them, and the windows then prove absence without look-ups.`
    : `${lookups} individual look-ups were needed: ` +
        'set extract.historyStart (the date before which the provider holds no sale of ours; ' +
        'env PINRECON_HISTORY_START) and `pinrecon extract` / `pinrecon run` back-fill the by-creation windows from ' +
        'it once, ' +
        'so the windows prove absence without look-ups.';
}

function lookupSkippedBecause(
  config: Config,
  sharedClient: PartnerApiClient | undefined,
  references: number,
  provenAbsent: number,
  complete: boolean,
): string | undefined {
  if (references === 0) {
    return provenAbsent > 0
      ? `every paid ledger order without a provider sale (${provenAbsent}) is proven absent by the by-creation windows`
      : 'no paid ledger order of the period lacks a provider sale, or the windows speak for each';
  }
  // On a partial extraction most of them are only not fetched yet: asking one by one would flood the API.
  if (!complete) return 'the period is not completely extracted (verdict incomplete)';
  if (!config.reconciliation.lookupMissing) return 'reconciliation.lookupMissing is false';
  if (!sharedClient && !(config.api.identifier && config.api.secret)) {
    return (
      'no API credentials configured (api.identifier / api.secret, or PINRECON_API_IDENTIFIER / ' +
      'PINRECON_API_SECRET); ' +
      'those orders are reported missing_at_provider, unproven, without asking'
    );
  }
  return undefined;
}
