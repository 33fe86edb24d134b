/**
 * `pinrecon catalog` against the simulator over real HTTP, into a real DuckDB file: dated snapshots that
 * add up, exact money, raw responses landed, failed product calls kept and counted, the CLI end to end.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../../cli/output.js';
import { configSchema, type Config } from '../../../config/schema.js';
import { snapshotCatalog } from '../../../pipelines/catalog/catalog.js';
import { type Warehouse, withWarehouse } from '../../../core/warehouse.js';
import { PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';

let simulator: RunningSimulator;
const silent = new ConsoleOutput(true);

beforeAll(async () => {
  simulator = await startSimulator({
    seed: 7,
    identifier: 'catalog-test',
    secret: 'catalog-secret',
    dataset: { from: '2024-01-01', to: '2024-01-02', salesCount: 10 },
  });
});
afterAll(async () => {
  await simulator.close();
});

function testConfig(overrides: Record<string, unknown> = {}): Config {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-catalog-'));
  return configSchema.parse({
    database: path.join(dir, 'pinrecon.duckdb'),
    api: {
      baseUrl: simulator.url,
      identifier: 'catalog-test',
      secret: 'catalog-secret',
      maxRequestsPerSecond: 200,
      ...overrides,
    },
  });
}

function clientFor(config: Config): PartnerApiClient {
  return new PartnerApiClient(config.api, { limiter: new RateLimiter(200) });
}

describe('snapshotCatalog', () => {
  it('snapshots the tree, prices and costs exactly, product info and stock, and keeps every snapshot', async () => {
    const config = testConfig();
    const client = clientFor(config);
    try {
      await withWarehouse(config.database, { timezone: config.timezone }, async (warehouse) => {
        const first = await snapshotCatalog(warehouse, config, { client }, silent);
        const second = await snapshotCatalog(warehouse, config, { client }, silent);
        expect(second.snapshotId).not.toBe(first.snapshotId);

        const expected = simulator.dataset.catalog.available({ country: 'BR', currency: 'BRL' });
        expect(first.products).toBe(expected.length);
        expect(first.productInfo + first.stock + first.fetchErrors).toBe(first.products * 2);
        expect(first.fetchErrors).toBe(0);

        const snapshots = await warehouse.all(
          `SELECT snapshot_id, run_id, products, collections, snapshot_date::VARCHAR AS d FROM catalog_snapshots ` +
            `ORDER BY taken_at`,
        );
        expect(snapshots.map((s) => s.snapshot_id)).toEqual([first.snapshotId, second.snapshotId]);
        expect(snapshots[0]).toMatchObject({
          run_id: first.snapshotId,
          products: String(expected.length),
          d: first.snapshotDate,
        });

        // Costs land as exact DECIMALs equal to the simulator's cents.
        const products = await warehouse.all<{
          product_id: string;
          sales_price: string;
          partner_cost_price: string;
          tags: string;
        }>(
          `SELECT DISTINCT product_id, sales_price::VARCHAR AS sales_price, partner_cost_price::VARCHAR AS
            partner_cost_price, tags::VARCHAR AS tags
           FROM catalog_products WHERE snapshot_id = $1 ORDER BY product_id`,
          [first.snapshotId],
        );
        expect(products).toHaveLength(expected.length);
        for (const spec of expected) {
          const row = products.find((p) => Number(p.product_id) === spec.id)!;
          const listing = simulator.dataset.catalog.listingProduct(spec);
          expect(row.sales_price).toBe(listing.salesPrice.toFixed(4));
          expect(row.partner_cost_price).toBe(listing.partnerCostPrice.toFixed(4));
          expect(JSON.parse(row.tags)).toEqual(listing.tags);
        }
        const types = await warehouse.all(
          `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'catalog_products' AND ` +
            `column_name LIKE '%price'`,
        );
        expect(new Set(types.map((t) => t.data_type))).toEqual(new Set(['DECIMAL(18,4)']));

        // The tree: every collection's parent exists in the same snapshot; every listing's collection too.
        const orphans = await warehouse.all(
          `SELECT c.collection_id FROM catalog_collections c
           LEFT JOIN catalog_collections p ON p.snapshot_id = c.snapshot_id AND p.collection_id = c.parent_collection_id
           WHERE c.parent_collection_id IS NOT NULL AND p.collection_id IS NULL`,
        );
        expect(orphans).toEqual([]);
        const nested = await warehouse.one<{ n: string }>(
          `SELECT count(*) AS n FROM catalog_collections WHERE snapshot_id = $1 AND depth > 0`,
          [first.snapshotId],
        );
        expect(Number(nested!.n)).toBeGreaterThan(0);

        const stock = await warehouse.all<{ product_id: string; amount: string; unlimited: boolean }>(
          `SELECT product_id, amount, unlimited FROM catalog_stock WHERE snapshot_id = $1`,
          [first.snapshotId],
        );
        expect(stock).toHaveLength(expected.length);
        for (const row of stock)
          expect(Number(row.amount)).toBe(simulator.dataset.stock(Number(row.product_id)).amount);
        const info = await warehouse.one<{ n: string }>(
          `SELECT count(*) AS n FROM catalog_product_info WHERE snapshot_id = $1 AND description IS NOT NULL`,
          [first.snapshotId],
        );
        expect(Number(info!.n)).toBe(expected.length);

        // Two identical snapshots: nothing to diff; the current view shows the latest one.
        expect(await warehouse.all(`SELECT * FROM catalog_product_changes`)).toEqual([]);
        const current = await warehouse.all(`SELECT DISTINCT taken_at FROM catalog_current_products`);
        expect(current).toHaveLength(1);

        // Raw responses landed and registered.
        const landed = await warehouse.all<{ path: string; endpoint: string; records: string; bytes: string }>(
          `SELECT path, endpoint, records, bytes FROM landing_files WHERE run_id = $1 ORDER BY endpoint`,
          [first.snapshotId],
        );
        expect(landed.map((l) => l.endpoint)).toEqual(['catalogTree', 'productInfo', 'productStock']);
        // bytes: the landed file's size on disk, as for every other landing file.
        for (const file of landed) expect(Number(file.bytes)).toBe(statSync(file.path).size);
        const tree = JSON.parse(gunzipSync(readFileSync(landed[0]!.path)).toString()) as unknown[];
        expect(tree).toEqual(
          simulator.dataset.catalog.tree({ country: 'BR', currency: 'BRL', language: 'pt-BR' }, true),
        );
        expect(path.dirname(landed[0]!.path)).toBe(
          path.join(path.dirname(config.database), 'landing', 'catalog', first.snapshotDate, first.snapshotId),
        );

        const run = await warehouse.one<{ status: string; requests: string; rows_loaded: string }>(
          `SELECT status, requests, rows_loaded FROM pipeline_runs WHERE run_id = $1`,
          [first.snapshotId],
        );
        expect(run).toMatchObject({ status: 'succeeded', requests: String(first.requests) });
        expect(first.requests).toBeGreaterThanOrEqual(1 + 2 * expected.length);
      });
    } finally {
      client.close();
    }
  });

  it('keeps failed product calls as rows, counted, and still completes the snapshot', async () => {
    const config = testConfig({ endpoints: { productStock: 'GET /no-such-stock/{productId}' }, maxRetries: 0 });
    const client = clientFor(config);
    try {
      await withWarehouse(config.database, { timezone: config.timezone }, async (warehouse) => {
        const summary = await snapshotCatalog(warehouse, config, { client }, silent);
        expect(summary.fetchErrors).toBe(summary.products);
        expect(summary.productInfo + summary.stock + summary.fetchErrors).toBe(summary.products * 2);
        const errors = await warehouse.all<{ endpoint: string; status: number; error: string }>(
          `SELECT endpoint, status, error FROM catalog_fetch_errors WHERE snapshot_id = $1`,
          [summary.snapshotId],
        );
        expect(errors).toHaveLength(summary.products);
        expect(errors[0]).toMatchObject({ endpoint: 'productStock', status: 404 });
        expect(errors[0]!.error).toMatch(/productStock \(GET \/no-such-stock\/\{productId\}\) answered 404/);
        expect(await warehouse.one(`SELECT fetch_errors FROM catalog_snapshots`)).toEqual({
          fetch_errors: String(summary.products),
        });
      });
    } finally {
      client.close();
    }
  });

  it('writes nothing but a failed run when the tree cannot be fetched', async () => {
    const config = testConfig({ secret: 'wrong' });
    const client = clientFor(config);
    try {
      await withWarehouse(config.database, { timezone: config.timezone }, async (warehouse: Warehouse) => {
        await expect(snapshotCatalog(warehouse, config, { client }, silent)).rejects.toThrow(
          /getToken.*refused to log in/,
        );
        expect(await warehouse.all(`SELECT * FROM catalog_snapshots`)).toEqual([]);
        const run = await warehouse.one<{ status: string; error: string }>(`SELECT status, error FROM pipeline_runs`);
        expect(run!.status).toBe('failed');
        expect(run!.error).not.toContain('wrong');
      });
    } finally {
      client.close();
    }
  });
});
