/**
 * Looks partner references up individually at the provider (salesByPartnerReference, through the client's
 * request queue and rate limit) and loads what comes back into `sales` exactly as extract does: the answers are landed
 * first (one gzip JSON array per lookup batch under the landing directory), then upserted by extract's loader.
 * Reconcile uses it before it concludes `missing_at_provider`. Every question and whether the provider held
 * anything is kept in `provider_lookups` (with the run), in the same transaction as what was loaded: a finding
 * proven by `lookup` points at the row that shows when the provider said it had nothing.
 */
import path from 'node:path';
import { JobError } from '../../core/errors.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { ProviderError, type PartnerApiClient } from '../../sources/partner-api/client.js';
import type { ReceivedSale } from '../../sources/partner-api/client.js';
import { guardLoneSurrogates } from '../../sources/partner-api/lone-surrogates.js';
import { landGzip, landingRoot, writeLandingRecord } from './landing.js';
import { protectKeysInText } from '../../core/key-protection.js';
import { keyProtectionFor } from './key-mode.js';
import { loadLandedSales } from './load.js';
import type { Warehouse } from '../../core/warehouse.js';

/** References handed to the request queue at a time (a failure stops the asking after its batch). */
const lookupBatch = 200;

export interface ReferenceLookupSummary {
  /** References asked about. */
  references: number;
  /** Of those, the ones the provider knew. */
  found: number;
  /** Sales records received (a reference can hold several). */
  records: number;
  /** Sales upserted into `sales` (records minus the ones quarantined as unloadable). */
  loaded: number;
  /** The landed file, when anything was received. */
  landingPath?: string;
}

/**
 * Asks the provider for each reference and loads the answers. `label` names the batch in the landing path
 * (e.g. the period). Fails with a JobError naming the reference when the provider cannot be asked.
 */
export async function lookUpReferences(
  warehouse: Warehouse,
  config: Config,
  client: PartnerApiClient,
  references: string[],
  options: { runId: string; label: string },
  output: Output,
): Promise<ReferenceLookupSummary> {
  const summary: ReferenceLookupSummary = { references: references.length, found: 0, records: 0, loaded: 0 };
  const answers: ReceivedSale[][] = new Array(references.length);
  let foreign = 0;
  const answeredAt: string[] = new Array(references.length);
  const started = Date.now();
  let done = 0;
  // All of a batch go to the client's request queue at once (it bounds and paces them); batches only let
  // a failure stop the asking early.
  for (let first = 0; first < references.length; first += lookupBatch) {
    const batch = references.slice(first, first + lookupBatch);
    await Promise.all(
      batch.map(async (reference, offset) => {
        try {
          // Issue 34: only records of the reference asked count as its answer; others are left out, and said.
          const read = await client.readByPartnerReference(reference);
          answers[first + offset] = read.sales;
          foreign += read.foreign;
        } catch (error) {
          const where = error instanceof ProviderError ? ` at ${error.endpoint}` : '';
          throw new JobError(
            `Looking up partner reference "${reference}" at the provider failed${where}: ${(error as Error).message}`,
            'Re-run when the provider answers again, or set reconciliation.lookupMissing to false to report such ' +
              'orders as missing without asking.',
            { cause: error },
          );
        }
        answeredAt[first + offset] = new Date().toISOString();
        if (answers[first + offset]!.length > 0) summary.found++;
        done++;
        output.progress(
          { label: 'reference lookups', done, total: references.length, facts: { found: summary.found } },
          done === references.length,
        );
      }),
    );
  }
  // In reference order, whatever order the answers came in: the landed file is the same on every run.
  const received = answers.flat().map((sale) => sale.raw);
  output.clearProgress();
  if (foreign > 0)
    output.warn(
      `the provider answered ${foreign} record(s) of another partner reference than the one asked: not loaded, and ` +
        `not taken as found`,
    );
  summary.records = received.length;
  const asked = references.map((reference, i) => ({ reference, askedAt: answeredAt[i]!, records: answers[i]!.length }));
  if (received.length === 0) {
    await recordLookups(warehouse, asked, options.runId);
    return summary;
  }

  const landed = await landAndLoadSales(warehouse, config, received, {
    runId: options.runId,
    endpoint: 'salesByPartnerReference',
    file: `by-reference_${options.label}_${options.runId}`,
    withLoad: () => recordLookups(warehouse, asked, options.runId),
  });
  summary.landingPath = landed.landingPath;
  summary.loaded = landed.loaded;
  if (landed.quarantined > 0) {
    output.warn(
      `${landed.quarantined} of the ${landed.records} sales found by reference could not be loaded as they are; ` +
        `see sales_quarantine (landing_path ${landed.landingPath})`,
    );
  }
  output.info(
    `looked up ${references.length} references individually in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
      `${summary.found} found, ${summary.loaded} sales loaded`,
  );
  return summary;
}

/**
 * Lands sales read one by one from the provider (a lookup's answers, or the sales `actions execute` reads) as
 * one gzip JSON array under landing/sales/lookups/<file>.json.gz, then upserts them into `sales` with extract's
 * loader, so the next reconcile sees them exactly as if a window had brought them.
 */
export async function landAndLoadSales(
  warehouse: Warehouse,
  config: Config,
  /** Each record's JSON text as received: an id above 2^53 stays exact (JSON.stringify of a parse rounds it). */
  received: string[],
  options: {
    runId: string;
    endpoint: 'salesByPartnerReference' | 'salesByTransactionId';
    file: string;
    withLoad?: () => Promise<void>;
  },
): Promise<{ landingPath: string; records: number; loaded: number; quarantined: number }> {
  const fetchedAt = new Date();
  const file = path.join(landingRoot(config), 'sales', 'lookups', `${options.file}.json.gz`);
  // In hash and drop mode the PINs are masked before the answers are written.
  // Lone surrogates made text as in a window's download (issue 34), so one record cannot refuse the file.
  const answers = guardLoneSurrogates(`[${received.join(',\n')}]`);
  const text = protectKeysInText(answers, await keyProtectionFor(warehouse, config));
  const { fileBytes } = landGzip(file, text);
  const counts = await warehouse.transaction(async () => {
    const loaded = await loadLandedSales(warehouse, config, {
      path: file,
      runId: options.runId,
      endpoint: options.endpoint,
      fetchedAt,
      bytes: fileBytes,
    });
    // What else must commit with these sales (a lookup's questions, the proof they give).
    await options.withLoad?.();
    return loaded;
  });
  writeLandingRecord(file, { endpoint: options.endpoint, runId: options.runId, fetchedAt: fetchedAt.toISOString() });
  return { landingPath: file, records: counts.records, loaded: counts.loaded, quarantined: counts.quarantined };
}

/** The run's questions, one row each, into `provider_lookups` (one statement, however many). */
async function recordLookups(
  warehouse: Warehouse,
  asked: { reference: string; askedAt: string; records: number }[],
  runId: string,
): Promise<void> {
  if (asked.length === 0) return;
  await warehouse.run(
    `INSERT INTO provider_lookups (partner_reference, run_id, asked_at, found, records)
     SELECT a.reference, $2, a.askedAt::TIMESTAMPTZ, a.records > 0, a.records
     FROM (SELECT unnest(json_transform($1, '[{"reference":"VARCHAR","askedAt":"VARCHAR","records":"BIGINT"}]')) AS a)`,
    [JSON.stringify(asked), runId],
  );
}
