/**
 * `catalog`: takes a dated snapshot of the partner's catalog — the collection tree with products, prices and
 * costs, each product's info and stock — into the catalog_* tables. Every run adds a snapshot (none is
 * replaced), so analysts can diff any two. The raw responses are landed (gzip) before anything is written;
 * a product whose info or stock cannot be fetched is recorded in catalog_fetch_errors and counted, and the
 * snapshot's rows commit in one transaction, so a killed run leaves no partial snapshot.
 */
import path from 'node:path';
import type { Output } from '../../core/output.js';
import type { Config } from '../../config/schema.js';
import { describeClientEvent, PartnerApiClient, ProviderError } from '../../sources/partner-api/client.js';
import { todayIn } from '../../core/calendar.js';
import {
  flattenTree,
  writeSnapshot,
  type CatalogFetchError,
  type LandedFile,
  type ProductFetch,
  type SnapshotHeader,
} from './tables.js';
import { landGzip, landingRoot } from '../extract/landing.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';

export interface CatalogOptions {
  /** A client to share (e.g. with other steps); by default one is made and closed here. */
  client?: PartnerApiClient;
  parentRunId?: string;
}

/** What a snapshot run did: its catalog_snapshots row, plus what it counted on the way. */
export interface CatalogSummary extends SnapshotHeader {
  /** Product-in-collection rows (a product may be listed in several collections). */
  listings: number;
  productInfo: number;
  stock: number;
  firstFetchErrors: CatalogFetchError[];
  requests: number;
  retries: number;
  rateLimited: number;
  elapsedSeconds: number;
}

export async function snapshotCatalog(
  warehouse: Warehouse,
  config: Config,
  options: CatalogOptions,
  output: Output,
): Promise<CatalogSummary> {
  const started = Date.now();
  const { country, currency, language } = config.api;
  return recordRun(
    warehouse,
    'catalog',
    { country, currency, language },
    async (run) => {
      const client =
        options.client ??
        new PartnerApiClient(config.api, { onEvent: (event) => output.info(describeClientEvent(event)) });
      const before = { ...client.stats };
      try {
        const takenAt = new Date();
        const snapshotDate = todayIn(config.timezone, takenAt);
        const landingDir = path.join(landingRoot(config), 'catalog', snapshotDate, run.runId);

        output.info(`fetching the catalog tree (${country}/${currency}/${language})`);
        const tree = await client.catalogTree();
        const landed = [landJson(landingDir, 'catalogTree', tree)];
        const collections = flattenTree(tree);
        const listings = collections.flatMap((row) =>
          (row.collection.products ?? []).map((product) => ({ collectionId: row.collection.id, product })),
        );
        const productIds = [...new Set(listings.map((l) => l.product.id))];
        output.info(
          `${collections.length} collections, ${productIds.length} products: fetching each product's info and stock`,
        );

        const errors: CatalogFetchError[] = [];
        let done = 0;
        // Every product call waits in the client's request queue, behind any month-end work (catalog calls
        // have the lowest priority); the queue bounds how many are in flight.
        const fetched = await Promise.all(
          productIds.map(async (productId) => {
            const result: ProductFetch = { productId };
            result.info = await capture(client.productInfo(productId), productId, 'productInfo', errors);
            result.stock = await capture(client.productStock(productId), productId, 'productStock', errors);
            done++;
            output.progress({
              label: 'products',
              done,
              total: productIds.length,
              facts: { errors: errors.length, requests: client.stats.requests - before.requests },
            });
            return result;
          }),
        );
        output.progress({ label: 'products', done, total: productIds.length, facts: { errors: errors.length } }, true);
        // One file per operation: the answers in product order, each with the product it answers for.
        landed.push(
          landJson(
            landingDir,
            'productInfo',
            fetched.filter((f) => f.info).map((f) => ({ productId: f.productId, response: f.info })),
          ),
          landJson(
            landingDir,
            'productStock',
            fetched.filter((f) => f.stock).map((f) => ({ productId: f.productId, response: f.stock })),
          ),
        );

        const summary: CatalogSummary = {
          snapshotId: run.runId,
          takenAt: takenAt.toISOString(),
          snapshotDate,
          country,
          currency,
          language,
          collections: collections.length,
          products: productIds.length,
          listings: listings.length,
          productInfo: fetched.filter((f) => f.info).length,
          stock: fetched.filter((f) => f.stock).length,
          fetchErrors: errors.length,
          firstFetchErrors: errors.slice(0, 10),
          landingDir,
          requests: 0,
          retries: 0,
          rateLimited: 0,
          elapsedSeconds: 0,
        };
        const rows = await warehouse.transaction(() =>
          writeSnapshot(warehouse, summary, { collections, listings, fetched, errors, landed }),
        );
        for (const error of errors.slice(0, 5))
          output.warn(`product ${error.productId}: ${error.endpoint} failed: ${error.error}`);
        if (errors.length > 5)
          output.warn(`… and ${errors.length - 5} more failed product calls (see catalog_fetch_errors)`);

        summary.requests = client.stats.requests - before.requests;
        summary.retries = client.stats.retries - before.retries;
        summary.rateLimited = client.stats.rateLimited - before.rateLimited;
        summary.elapsedSeconds = (Date.now() - started) / 1000;
        Object.assign(run.counters, {
          requests: summary.requests,
          retries: summary.retries,
          rateLimited: summary.rateLimited,
          rowsLoaded: rows,
        });
        run.details = {
          snapshotId: summary.snapshotId,
          collections: summary.collections,
          products: summary.products,
          fetchErrors: summary.fetchErrors,
        };
        return summary;
      } catch (error) {
        Object.assign(run.counters, {
          requests: client.stats.requests - before.requests,
          retries: client.stats.retries - before.retries,
          rateLimited: client.stats.rateLimited - before.rateLimited,
        });
        throw error;
      } finally {
        if (!options.client) client.close();
      }
    },
    options.parentRunId,
  );
}

/** Keeps a response (re-serialized exactly as parsed) as gzip in the snapshot's landing folder. */
function landJson(dir: string, endpoint: string, value: unknown[]): LandedFile {
  const file = path.join(dir, `${endpoint}.json.gz`);
  const { fileBytes } = landGzip(file, JSON.stringify(value));
  return { path: file, endpoint, bytes: fileBytes, records: value.length, fetchedAt: new Date() };
}

/** Awaits a product call; an ProviderError becomes a recorded fetch error, anything else is a bug and throws. */
async function capture<T>(
  call: Promise<T>,
  productId: number,
  endpoint: CatalogFetchError['endpoint'],
  errors: CatalogFetchError[],
): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    errors.push({
      productId,
      endpoint,
      ...(error.status !== undefined ? { status: error.status } : {}),
      error: error.message,
    });
    return undefined;
  }
}
