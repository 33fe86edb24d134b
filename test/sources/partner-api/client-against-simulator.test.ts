/**
 * The upstream client against the simulator over real HTTP: all 16 operations, custom paths on both sides,
 * token refresh and revocation, writes under injected faults (never booked twice), and pacing under the
 * simulator's own 50-in-any-rolling-second limit.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, it } from 'vitest';
import { configSchema, type ApiConfig } from '../../../config/schema.js';
import { PartnerApiClient, type ClientEvent } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { startSimulator, type SimulatorOptions } from '../../../doubles/simulator/server.js';
import { maxInAnyRollingSecond } from '../../../bench/measures/rolling-second.js';

const identifier = 'sim-partner';
const secret = 'sim-secret-123';
const open: { close(): unknown }[] = [];
// Cases run side by side (describe.concurrent), each with its own simulator: their waits (token lifetimes, back-offs,
// pacing) overlap; so every simulator is stopped once all are done, not after each (issue 27).
afterAll(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function setup(
  simulatorOptions: SimulatorOptions = {},
  api: Record<string, unknown> = {},
  rate = 500,
  limiter = new RateLimiter(rate),
) {
  const simulator = await startSimulator({
    seed: 11,
    identifier,
    secret,
    dataset: { from: '2024-01-01', to: '2024-02-29', salesCount: 3_000, timezone: 'America/Sao_Paulo' },
    ...simulatorOptions,
  });
  open.push(simulator);
  const events: ClientEvent[] = [];
  const config: ApiConfig = configSchema.parse({ api: { baseUrl: simulator.url, identifier, secret, ...api } }).api;
  const client = new PartnerApiClient(config, { limiter, onEvent: (e) => events.push(e) });
  open.push(client);
  return { simulator, client, events };
}

function count(iterable: Iterable<unknown>): number {
  let n = 0;
  for (const _ of iterable) n++;
  return n;
}

describe.concurrent('PartnerApiClient against the simulator', () => {
  it('calls all 16 operations', async ({ expect }) => {
    const { simulator, client } = await setup();
    const tree = await client.catalogTree();
    expect(tree.length).toBeGreaterThan(0);
    expect((await client.partnerCollections()).every((c) => c.products.length === 0)).toBe(true);
    const listed = await client.listCollections();
    expect(listed.map((c) => c.id)).toEqual(tree.map((c) => c.id));
    const collectionId = tree[0]!.collections[0]?.id ?? tree[0]!.id;
    expect((await client.getCollection(collectionId)).id).toBe(collectionId);
    expect((await client.collectionProducts(collectionId))[0]!.id).toBe(collectionId);
    const product = simulator.dataset.catalog.available({})[0]!;
    expect((await client.productInfo(product.id)).id).toBe(product.id);
    expect(await client.productStock(product.id)).toEqual(simulator.dataset.stock(product.id));

    const paid = await client.salesByPeriod('2024-01-01', '2024-01-31', false);
    expect(paid.length).toBe(count(simulator.dataset.salesInPeriod('2024-01-01', '2024-01-31', false)));
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-sim-')), 'created.json.gz');
    const download = await client.downloadSalesByPeriod('2024-01-01', '2024-01-31', true, file);
    expect(download.records).toBe(count(simulator.dataset.salesInPeriod('2024-01-01', '2024-01-31', true)));
    expect((JSON.parse(gunzipSync(readFileSync(file)).toString()) as unknown[]).length).toBe(download.records);

    const known = paid.find((s) => typeof s.transactionId === 'number' && typeof s.partnerReference === 'string')!;
    expect((await client.salesByTransactionId(known.transactionId))?.transactionId).toBe(known.transactionId);
    expect(await client.salesByTransactionId(1)).toBeUndefined();
    expect((await client.salesByPartnerReference(known.partnerReference)).map((s) => s.transactionId)).toContain(
      known.transactionId,
    );
    expect(await client.salesByPartnerReference('no-such-reference')).toEqual([]);
    expect(Array.isArray(await client.salesByDocument('12345678909'))).toBe(true);

    const booked = await client.preRedeem({ productId: product.id, partnerReference: 'PO-SIM-1' });
    expect(booked.transaction.partnerReference).toBe('PO-SIM-1');
    expect(booked.transaction.redirectLink).toMatch(/^http/);
    expect((await client.reverseByTransactionId(booked.transaction.transactionId)).status).toMatch(/cancel/i);
    const second = await client.preRedeem({ productId: product.id, partnerReference: 'PO-SIM-2' });
    expect((await client.reverseByPartnerReference('PO-SIM-2')).transactionId).toBe(second.transaction.transactionId);

    await expect(client.salesByPeriod('2024-01-01', '2024-02-15', false)).rejects.toThrow(
      /salesByPeriod .* answered 400: a body of \d+ bytes, sha256 [0-9a-f]{16}/,
    );
    expect(simulator.stats().tokensIssued).toBe(client.stats.authentications + client.stats.refreshes);
  });

  it('uses custom endpoint paths configured the same way on both sides', async ({ expect }) => {
    const endpoints = {
      salesByPeriod: 'GET /v9/vendas/{startDate}/{finishDate}',
      getToken: 'POST /v9/login',
      productStock: 'GET /v9/estoque/{productId}',
    };
    const { simulator, client } = await setup({ endpoints }, { endpoints });
    expect((await client.salesByPeriod('2024-02-01', '2024-02-10', false)).length).toBeGreaterThan(0);
    const product = simulator.dataset.catalog.available({})[0]!;
    expect((await client.productStock(product.id)).hasStock).toBeTypeOf('boolean');
    expect(simulator.stats().byEndpoint).toMatchObject({ salesByPeriod: 1, getToken: 1, productStock: 1 });
  });

  it('refreshes short-lived tokens before they expire, and logs in again when the refresh is refused', async ({
    expect,
  }) => {
    const { simulator, client, events } = await setup({ tokenLifetimeSeconds: 2 }, { refreshMarginSeconds: 1 });
    for (let i = 0; i < 6; i++) {
      await client.productStock(simulator.dataset.catalog.available({})[0]!.id);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(simulator.stats().refreshes).toBeGreaterThanOrEqual(2);
    expect(client.stats.refreshes).toBe(simulator.stats().refreshes);
    expect(client.stats.authentications).toBe(1);
    // A revocation also voids the refresh token: the next renewal falls back to a login.
    simulator.revokeAllTokens();
    await new Promise((r) => setTimeout(r, 1_100));
    await Promise.all(Array.from({ length: 10 }, () => client.catalogTree()));
    expect(client.stats.authentications).toBe(2);
    expect(events).toContainEqual({ type: 'authenticated', reason: 'refresh_failed' });
    const all = JSON.stringify(events);
    expect(all).not.toContain(secret);
    expect(all).not.toMatch(/eyJ/);
  });

  it('re-authenticates once when a valid-looking token was revoked, shared by concurrent callers', async ({
    expect,
  }) => {
    const { simulator, client, events } = await setup();
    await client.catalogTree();
    simulator.revokeAllTokens();
    const trees = await Promise.all(Array.from({ length: 10 }, () => client.catalogTree()));
    expect(trees.every((t) => t.length > 0)).toBe(true);
    expect(client.stats.authentications).toBe(2);
    expect(events.filter((e) => e.type === 'reauthenticated').length).toBeGreaterThanOrEqual(1);
    expect(events).toContainEqual({ type: 'authenticated', reason: 'rejected' });
    expect(JSON.stringify(events)).not.toMatch(/eyJ|sim-secret/);
  });

  it('never books a pre-redeem twice under dropped connections, 500s and 503s', async ({ expect }) => {
    const { simulator, client } = await setup(
      { faults: { dropRate: 0.25, error500Rate: 0.1, error503Rate: 0.1 } },
      { maxRetries: 12 },
    );
    const product = simulator.dataset.catalog.available({})[0]!;
    const references = Array.from({ length: 25 }, (_, i) => `PO-FAULT-${i}`);
    const results = await Promise.all(
      references.map((partnerReference) => client.preRedeem({ productId: product.id, partnerReference })),
    );
    for (const [i, reference] of references.entries()) {
      const booked = simulator.dataset.salesByPartnerReference(reference);
      expect(booked).toHaveLength(1);
      expect(results[i]!.transaction.transactionId).toBe(booked[0]!.transactionId);
    }
    const stats = simulator.stats();
    expect(stats.dropped + stats.injected500).toBeGreaterThan(0);
    expect(client.stats.retries + client.stats.rateLimited).toBeGreaterThan(0);
  });

  it('keeps downloads whole under dropped connections (before and mid-body) and 500s', async ({ expect }) => {
    const { simulator, client } = await setup({ faults: { dropRate: 0.4, error500Rate: 0.1 } }, { maxRetries: 15 });
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-sim-'));
    const windows = [
      ['2024-01-01', '2024-01-15'],
      ['2024-01-16', '2024-01-31'],
      ['2024-02-01', '2024-02-15'],
      ['2024-02-16', '2024-02-29'],
    ] as const;
    for (const [start, finish] of windows) {
      for (const byCreateDate of [false, true]) {
        const file = path.join(dir, `${start}-${byCreateDate}.json.gz`);
        const result = await client.downloadSalesByPeriod(start, finish, byCreateDate, file);
        expect(result.records).toBe(count(simulator.dataset.salesInPeriod(start, finish, byCreateDate)));
        expect((JSON.parse(gunzipSync(readFileSync(file)).toString()) as unknown[]).length).toBe(result.records);
      }
    }
    expect(simulator.stats().dropped).toBeGreaterThan(0);
    expect(client.stats.retries).toBeGreaterThan(0);
  });

  it('paces 120 concurrent calls at 50/s: no rolling second starts more than 50, and any 503 is waited out', async ({
    expect,
  }) => {
    // The client decides when a request starts, not when it arrives: on a loaded machine (server and client share
    // this process) requests started a steady 20 ms apart can reach the server bunched, and it may answer one with
    // 503. So the pacing is checked where the client keeps it, at the starts, and the 503s by their recovery.
    const starts: number[] = [];
    class RecordingLimiter extends RateLimiter {
      override async acquire(): Promise<void> {
        await super.acquire();
        starts.push(performance.now());
      }
    }
    const { simulator, client } = await setup({}, {}, 50, new RecordingLimiter(50));
    const product = simulator.dataset.catalog.available({})[0]!;
    const answers = await Promise.all(Array.from({ length: 120 }, () => client.productStock(product.id)));
    expect(answers).toHaveLength(120);
    expect(maxInAnyRollingSecond(starts)).toBeLessThanOrEqual(50);
    // Every 503 the server gave was seen, waited out and sent again: one token call, 120 calls, and the repeats.
    const served = simulator.stats();
    expect(served.maxInAnyRollingSecond).toBeLessThanOrEqual(50);
    expect(client.stats.rateLimited).toBe(served.rateLimited);
    // (a timeout on a starved machine is repeated too, and counted as a retry)
    const repeats = served.rateLimited + client.stats.retries;
    expect(client.stats.requests).toBe(121 + repeats);
    expect(starts).toHaveLength(121 + repeats);
  });
});
