/**
 * `catalog`: takes a dated snapshot of the partner's catalog — the collection tree with products, prices and
 * costs, each product's info and stock — into the catalog_* tables. Every run adds a snapshot (none is
 * replaced), so analysts can diff any two. The raw responses are landed (gzip) before anything is written;
 * a product whose info or stock cannot be fetched is recorded in catalog_fetch_errors and counted, and the
 * snapshot's rows commit in one transaction, so a killed run leaves no partial snapshot.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Output } from '../core/output.js';
import type { Config } from '../config/schema.js';
import { describeClientEvent, PartnerApiClient, UpstreamError } from '../sources/partner-api/client.js';
import type { CatalogProduct, Collection, ProductDetail, StockStatus } from '../sources/partner-api/types.js';
import { todayIn } from '../core/calendar.js';
import { landingRoot } from './extract/landing.js';
import { recordRun } from './run-trace.js';
import type { Warehouse } from '../core/warehouse.js';

export interface CatalogOptions {
  /** A client to share (e.g. with other steps); by default one is made and closed here. */
  client?: PartnerApiClient;
  parentRunId?: string;
}

export interface CatalogFetchError {
  productId: number;
  endpoint: 'productInfo' | 'productStock';
  status?: number;
  error: string;
}

export interface CatalogSummary {
  snapshotId: string;
  takenAt: string;
  snapshotDate: string;
  country: string;
  currency: string;
  language: string;
  collections: number;
  /** Distinct products in the tree. */
  products: number;
  /** Product-in-collection rows (a product may be listed in several collections). */
  listings: number;
  productInfo: number;
  stock: number;
  /** Product calls that failed for good: products × 2 = productInfo + stock + fetchErrors. */
  fetchErrors: number;
  firstFetchErrors: CatalogFetchError[];
  landingDir: string;
  requests: number;
  retries: number;
  rateLimited: number;
  elapsedSeconds: number;
}

interface CollectionRow {
  collection: Collection;
  parentId: number | null;
  path: string;
  depth: number;
  position: number;
}

interface ProductFetch {
  productId: number;
  info?: ProductDetail;
  stock?: StockStatus;
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

/** The tree, depth first, each collection with its parent, path of names, depth and position among siblings. */
export function flattenTree(tree: Collection[]): CollectionRow[] {
  const rows: CollectionRow[] = [];
  const walk = (collections: Collection[], parent: CollectionRow | undefined) => {
    collections.forEach((collection, position) => {
      const row: CollectionRow = {
        collection,
        parentId: parent ? parent.collection.id : null,
        path: parent ? `${parent.path} > ${collection.name}` : collection.name,
        depth: parent ? parent.depth + 1 : 0,
        position,
      };
      rows.push(row);
      walk(collection.collections ?? [], row);
    });
  };
  walk(tree, undefined);
  return rows;
}

interface LandedFile {
  path: string;
  endpoint: string;
  bytes: number;
  records: number;
  fetchedAt: Date;
}

/** Keeps a response (re-serialized exactly as parsed) as gzip: temporary name, then rename. */
function landJson(dir: string, endpoint: string, value: unknown[]): LandedFile {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${endpoint}.json.gz`);
  const body = Buffer.from(JSON.stringify(value));
  writeFileSync(`${file}.part`, gzipSync(body));
  renameSync(`${file}.part`, file);
  return { path: file, endpoint, bytes: body.length, records: value.length, fetchedAt: new Date() };
}

/** Awaits a product call; an UpstreamError becomes a recorded fetch error, anything else is a bug and throws. */
async function capture<T>(
  call: Promise<T>,
  productId: number,
  endpoint: CatalogFetchError['endpoint'],
  errors: CatalogFetchError[],
): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    errors.push({
      productId,
      endpoint,
      ...(error.status !== undefined ? { status: error.status } : {}),
      error: error.message,
    });
    return undefined;
  }
}

/** Exact decimal text of an API number (JS prints the shortest text that reads back the same), or null. */
function decimal(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return value.trim();
  return null;
}

function nullable(value: unknown): string | null {
  return value === undefined || value === null ? null : String(value);
}

/** Inserts rows in multi-row statements (DuckDB casts the text of DECIMAL, JSON and TIMESTAMPTZ values). */
async function insertRows(warehouse: Warehouse, table: string, columns: string[], rows: unknown[][]): Promise<number> {
  const batch = Math.max(1, Math.floor(1_000 / columns.length));
  for (let start = 0; start < rows.length; start += batch) {
    const slice = rows.slice(start, start + batch);
    const placeholders = slice
      .map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
      .join(', ');
    await warehouse.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders}`, slice.flat() as never);
  }
  return rows.length;
}

async function writeSnapshot(
  warehouse: Warehouse,
  summary: CatalogSummary,
  data: {
    collections: CollectionRow[];
    listings: { collectionId: number; product: CatalogProduct }[];
    fetched: ProductFetch[];
    errors: CatalogFetchError[];
    landed: LandedFile[];
  },
): Promise<number> {
  const id = summary.snapshotId;
  let rows = await insertRows(
    warehouse,
    'catalog_snapshots',
    [
      'snapshot_id',
      'taken_at',
      'snapshot_date',
      'run_id',
      'country',
      'currency',
      'language',
      'collections',
      'products',
      'fetch_errors',
      'landing_dir',
    ],
    [
      [
        id,
        summary.takenAt,
        summary.snapshotDate,
        id,
        summary.country,
        summary.currency,
        summary.language,
        summary.collections,
        summary.products,
        summary.fetchErrors,
        summary.landingDir,
      ],
    ],
  );
  rows += await insertRows(
    warehouse,
    'catalog_collections',
    [
      'snapshot_id',
      'collection_id',
      'parent_collection_id',
      'name',
      'path',
      'depth',
      'position',
      'terms_and_conditions',
      'how_to_redeem',
      'tags',
    ],
    data.collections.map((r) => [
      id,
      r.collection.id,
      r.parentId,
      nullable(r.collection.name),
      r.path,
      r.depth,
      r.position,
      nullable(r.collection.termsAndConditions),
      nullable(r.collection.howToRedeem),
      JSON.stringify(r.collection.tags ?? []),
    ]),
  );
  rows += await insertRows(
    warehouse,
    'catalog_products',
    [
      'snapshot_id',
      'collection_id',
      'product_id',
      'name',
      'sales_price',
      'original_price',
      'discount_percent',
      'partner_cost_price',
      'partner_cost_percent',
      'country_code',
      'sales_currency_code',
      'sales_currency_symbol',
      'tags',
    ],
    data.listings.map(({ collectionId, product: p }) => [
      id,
      collectionId,
      p.id,
      nullable(p.name),
      decimal(p.salesPrice),
      decimal(p.originalPrice),
      decimal(p.discountPercent),
      decimal(p.partnerCostPrice),
      decimal(p.partnerCostPercent),
      nullable(p.countryCode),
      nullable(p.salesCurrencyCode),
      nullable(p.salesCurrencySymbol),
      JSON.stringify(p.tags ?? []),
    ]),
  );
  rows += await insertRows(
    warehouse,
    'catalog_product_info',
    [
      'snapshot_id',
      'product_id',
      'name',
      'description',
      'sales_price',
      'original_price',
      'discount_percent',
      'partner_cost_price',
      'country_code',
      'sales_currency_code',
      'sales_currency_symbol',
      'how_to_redeem',
      'terms_and_conditions',
      'collections',
    ],
    data.fetched.flatMap(({ productId, info: d }) =>
      d
        ? [
            [
              id,
              productId,
              nullable(d.name),
              nullable(d.description),
              decimal(d.salesPrice),
              decimal(d.originalPrice),
              decimal(d.discountPercent),
              decimal(d.partnerCostPrice),
              nullable(d.countryCode),
              nullable(d.salesCurrencyCode),
              nullable(d.salesCurrencySymbol),
              nullable(d.howToRedeem),
              nullable(d.termsAndConditions),
              JSON.stringify(d.collections ?? []),
            ],
          ]
        : [],
    ),
  );
  rows += await insertRows(
    warehouse,
    'catalog_stock',
    ['snapshot_id', 'product_id', 'has_stock', 'amount', 'unlimited'],
    data.fetched.flatMap(({ productId, stock }) =>
      stock
        ? [
            [
              id,
              productId,
              typeof stock.hasStock === 'boolean' ? stock.hasStock : null,
              Number.isInteger(stock.amount) ? stock.amount : null,
              stock.amount === -1,
            ],
          ]
        : [],
    ),
  );
  await insertRows(
    warehouse,
    'catalog_fetch_errors',
    ['snapshot_id', 'product_id', 'endpoint', 'status', 'error'],
    data.errors.map((e) => [id, e.productId, e.endpoint, e.status ?? null, e.error]),
  );
  await insertRows(
    warehouse,
    'landing_files',
    ['path', 'run_id', 'endpoint', 'fetched_at', 'bytes', 'records'],
    data.landed.map((f) => [f.path, id, f.endpoint, f.fetchedAt.toISOString(), f.bytes, f.records]),
  );
  return rows;
}
