/**
 * The upstream simulator over real HTTP on 127.0.0.1: auth, every operation, the 31-day rule, the rolling-
 * second limit, fault injection, mutations seen by later queries, custom paths, and a lazy million-sale set.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Collection,
  PreRedeemResponse,
  ProductDetail,
  ReversalResult,
  SalesRecord,
  TokenRecord,
} from '../../../sources/partner-api/types.js';
import { Dataset } from '../../../doubles/simulator/dataset.js';
import { FIRST_TRANSACTION_ID, generateSale } from '../../../doubles/simulator/sale-generator.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';
import { SlidingWindowLimiter } from '../../../doubles/simulator/traffic.js';

const CREDENTIALS = { identifier: 'test-partner', secret: 'test-secret' };
const DATASET = { from: '2026-01-01', to: '2026-02-28', salesCount: 6000, timezone: 'America/Sao_Paulo' };

async function post(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

async function get(url: string, token?: string): Promise<Response> {
  return fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(text) as T;
}

/** Asserts a refusal: the status, and a JSON body with a message and the expected code. */
async function expectRefusal(response: Response, code: string, status = 400): Promise<void> {
  const body = await json<{ message: string; code: string }>(response, status);
  expect(body.code).toBe(code);
  expect(body.message.length).toBeGreaterThan(5);
}

async function authenticate(sim: RunningSimulator): Promise<TokenRecord> {
  return json<TokenRecord>(await post(`${sim.url}/auth/token`, CREDENTIALS));
}

/** One request on a fresh connection (no keep-alive, no client retries): status, or 'dropped'. */
function rawGet(url: string): Promise<number | 'dropped'> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve('dropped'));
      res.on('aborted', () => resolve('dropped'));
    });
    req.on('error', () => resolve('dropped'));
    req.end();
  });
}

describe('simulator', () => {
  let sim: RunningSimulator;
  let token: string;

  beforeAll(async () => {
    sim = await startSimulator({ ...CREDENTIALS, seed: 7, dataset: DATASET, rateLimitPerSecond: 10_000 });
    token = (await authenticate(sim)).accessToken;
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('authentication', () => {
    it('issues a signed JWT with exp, and a token record with offset dates', async () => {
      const record = await authenticate(sim);
      expect(record.isAuthenticated).toBe(true);
      const [header, payload, signature] = record.accessToken.split('.');
      expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number; iat: number };
      expect(claims.exp - claims.iat).toBeGreaterThanOrEqual(3599);
      expect(signature!.length).toBeGreaterThan(20);
      expect(record.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
      expect(Date.parse(record.expiredAt) - Date.parse(record.createdAt)).toBe(3_600_000);
    });

    it('refuses wrong or missing credentials with 400 and a JSON body', async () => {
      await expectRefusal(
        await post(`${sim.url}/auth/token`, { ...CREDENTIALS, secret: 'nope' }),
        'invalid_credentials',
      );
      await expectRefusal(
        await post(`${sim.url}/auth/token`, { identifier: CREDENTIALS.identifier }),
        'invalid_request',
      );
      const malformed = await fetch(`${sim.url}/auth/token`, { method: 'POST', body: '{not json' });
      await expectRefusal(malformed, 'invalid_json');
      await expectRefusal(await post(`${sim.url}/auth/token`, null), 'invalid_request');
      await expectRefusal(await post(`${sim.url}/pre-redeem`, [1, 2], token), 'invalid_request');
    });

    it('refuses a missing, forged or tampered bearer token', async () => {
      await expectRefusal(await get(`${sim.url}/catalog`), 'missing_token');
      await expectRefusal(await get(`${sim.url}/catalog`, 'abc.def.ghi'), 'invalid_token');
      const [h, p, s] = token.split('.');
      const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
      const later = Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 1e6 })).toString('base64url');
      const tampered = `${h}.${later}.${s}`;
      await expectRefusal(await get(`${sim.url}/catalog`, tampered), 'invalid_token');
    });

    it('refreshes with accessToken + refreshToken, each refresh token once', async () => {
      const first = await authenticate(sim);
      const second = await json<TokenRecord>(
        await post(`${sim.url}/auth/refresh-token`, {
          accessToken: first.accessToken,
          refreshToken: first.refreshToken,
        }),
      );
      expect(second.accessToken).not.toBe(first.accessToken);
      await json(await get(`${sim.url}/catalog`, second.accessToken));
      await expectRefusal(
        await post(`${sim.url}/auth/refresh-token`, {
          accessToken: first.accessToken,
          refreshToken: first.refreshToken,
        }),
        'invalid_refresh_token',
      );
      // A refresh token belongs to its own access token.
      const other = await authenticate(sim);
      await expectRefusal(
        await post(`${sim.url}/auth/refresh-token`, {
          accessToken: other.accessToken,
          refreshToken: second.refreshToken,
        }),
        'invalid_refresh_token',
      );
      expect(sim.stats().refreshes).toBeGreaterThanOrEqual(1);
    });

    it('refuses an expired access token, which can still be refreshed', async () => {
      // The tokens' clock is the test's: it moves past expiredAt instead of waiting (no race with a busy machine).
      let now = Date.now();
      const shortLived = await startSimulator({
        ...CREDENTIALS,
        dataset: DATASET,
        tokenLifetimeSeconds: 4,
        tokenClock: () => now,
      });
      try {
        const record = await authenticate(shortLived);
        await json(await get(`${shortLived.url}/catalog`, record.accessToken));
        now = Date.parse(record.expiredAt) + 1;
        await expectRefusal(await get(`${shortLived.url}/catalog`, record.accessToken), 'token_expired');
        const renewed = await json<TokenRecord>(await post(`${shortLived.url}/auth/refresh-token`, record));
        await json(await get(`${shortLived.url}/catalog`, renewed.accessToken));
      } finally {
        await shortLived.close();
      }
    });

    it('revokeAllTokens invalidates every access and refresh token; new logins work', async () => {
      const own = await startSimulator({ ...CREDENTIALS, dataset: DATASET });
      try {
        const record = await authenticate(own);
        own.revokeAllTokens();
        await expectRefusal(await get(`${own.url}/catalog`, record.accessToken), 'token_revoked');
        await expectRefusal(await post(`${own.url}/auth/refresh-token`, record), 'token_revoked');
        await json(await get(`${own.url}/catalog`, (await authenticate(own)).accessToken));
      } finally {
        await own.close();
      }
    });

    it('revokes every token every N seconds when asked', async () => {
      const own = await startSimulator({ ...CREDENTIALS, dataset: DATASET });
      try {
        const record = await authenticate(own);
        own.setFaults({ revokeEverySeconds: 0.2 });
        await new Promise((resolve) => setTimeout(resolve, 350));
        await expectRefusal(await get(`${own.url}/catalog`, record.accessToken), 'token_revoked');
        expect(own.stats().revocations).toBeGreaterThanOrEqual(1);
      } finally {
        await own.close();
      }
    });
  });

  describe('catalog', () => {
    it('serves the tree, the collections-only listing and the partner collections', async () => {
      const tree = await json<Collection[]>(await get(`${sim.url}/catalog`, token));
      const products = tree.flatMap(function all(c: Collection): Collection['products'] {
        return [...c.products, ...c.collections.flatMap(all)];
      });
      expect(products.length).toBeGreaterThanOrEqual(25);
      expect(products.every((p) => p.salesCurrencyCode === 'BRL' && p.countryCode === 'BR')).toBe(true);
      for (const p of products) {
        // partnerCostPrice = price × (1 − discount%) to the cent
        expect(p.partnerCostPrice).toBeCloseTo(
          Math.round(p.salesPrice * 100 * (1 - p.discountPercent! / 100)) / 100,
          10,
        );
      }
      const listing = await json<Collection[]>(await get(`${sim.url}/catalog/collections`, token));
      expect(listing.map((c) => c.id)).toEqual(tree.map((c) => c.id));
      expect(
        listing.every((c) => c.products.length === 0 && c.collections.every((child) => child.products.length === 0)),
      ).toBe(true);
      expect(listing.some((c) => c.collections.length > 0)).toBe(true);
      const partner = await json<Collection[]>(await get(`${sim.url}/catalog/partner/collections`, token));
      expect(partner.length).toBeGreaterThan(listing.length);
    });

    it('honours country and currency, and language', async () => {
      const us = await json<Collection[]>(await get(`${sim.url}/catalog?country=US&currency=USD&language=en`, token));
      const products = us.flatMap((c) => [...c.products, ...c.collections.flatMap((child) => child.products)]);
      expect(products.length).toBeGreaterThanOrEqual(2);
      expect(products.every((p) => p.salesCurrencyCode === 'USD' && p.salesCurrencySymbol === 'US$')).toBe(true);
      expect(us[0]!.termsAndConditions).toMatch(/Single-use/);
      expect(await json<Collection[]>(await get(`${sim.url}/catalog?country=AR&currency=ARS`, token))).toEqual([]);
    });

    it('serves one collection, a collection with its products, product info and stock', async () => {
      const playstation = await json<Collection>(await get(`${sim.url}/catalog/collections/11`, token));
      expect(playstation.name).toBe('PlayStation');
      expect(playstation.products[0]).toMatchObject({
        partnerCostPercent: expect.any(Number),
        image: expect.stringMatching(/^https:/),
      });
      const withProducts = await json<Collection[]>(await get(`${sim.url}/catalog/collections/11/products`, token));
      expect(withProducts[0]!.products.map((p) => p.id)).toEqual(playstation.products.map((p) => p.id));
      const detail = await json<ProductDetail>(await get(`${sim.url}/catalog/products/3101`, token));
      expect(detail).toMatchObject({ id: 3101, salesPrice: 30, partnerCostPrice: 28.8, salesCurrencyCode: 'BRL' });
      expect(detail.collections[0]).toMatchObject({ id: 11, collection: { id: 10 } });
      expect(await json(await get(`${sim.url}/catalog/products/3101/stock`, token))).toEqual({
        hasStock: true,
        amount: -1,
      });
      await expectRefusal(await get(`${sim.url}/catalog/collections/999`, token), 'unknown_collection');
      await expectRefusal(await get(`${sim.url}/catalog/products/999`, token), 'unknown_product');
      await expectRefusal(await get(`${sim.url}/catalog/products/4001`, token), 'product_not_available');
      await json(await get(`${sim.url}/catalog/products/4001?country=US&currency=USD`, token));
      await expectRefusal(await get(`${sim.url}/catalog/products/abc`, token), 'invalid_request');
    });
  });

  describe('sales', () => {
    it('lists a period by payment date or by creation date, the same as the data set', async () => {
      for (const byCreate of [false, true]) {
        const served = await json<SalesRecord[]>(
          await get(`${sim.url}/sales/period/2026-02-01/2026-02-03?searchIsByCreateDate=${byCreate}`, token),
        );
        const expected = [...sim.dataset.salesInPeriod('2026-02-01', '2026-02-03', byCreate)].map(
          (s) => s.transactionId,
        );
        expect(served.map((s) => s.transactionId)).toEqual(expected);
        expect(served.length).toBeGreaterThan(250);
      }
      const byPaid = await json<SalesRecord[]>(await get(`${sim.url}/sales/period/2026-02-01/2026-02-01`, token));
      const byCreated = await json<SalesRecord[]>(
        await get(`${sim.url}/sales/period/2026-02-01/2026-02-01?searchIsByCreateDate=true`, token),
      );
      expect(byPaid.map((s) => s.transactionId)).not.toEqual(byCreated.map((s) => s.transactionId));
    });

    it('enforces the 31-day rule and refuses malformed dates', async () => {
      await json(await get(`${sim.url}/sales/period/2026-01-01/2026-01-31`, token));
      await expectRefusal(await get(`${sim.url}/sales/period/2026-01-01/2026-02-01`, token), 'period_too_long');
      await expectRefusal(await get(`${sim.url}/sales/period/2026-02-30/2026-03-01`, token), 'invalid_date');
      await expectRefusal(await get(`${sim.url}/sales/period/01-02-2026/2026-02-03`, token), 'invalid_date');
      await expectRefusal(await get(`${sim.url}/sales/period/2026-02-03/2026-02-01`, token), 'invalid_period');
      await expectRefusal(
        await get(`${sim.url}/sales/period/2026-02-01/2026-02-03?searchIsByCreateDate=maybe`, token),
        'invalid_request',
      );
    });

    it('finds sales by transaction id, partner reference and buyer document', async () => {
      const sale = sim.dataset.sale(100);
      const byId = await json<SalesRecord>(await get(`${sim.url}/sales/transaction/${sale.transactionId}`, token));
      expect(byId).toMatchObject({
        transactionId: sale.transactionId,
        partnerReference: sale.partnerReference,
        key: sale.key,
      });
      await expectRefusal(
        await get(`${sim.url}/sales/transaction/${FIRST_TRANSACTION_ID + 10_000_000}`, token),
        'unknown_transaction',
      );
      const byReference = await json<SalesRecord[]>(
        await get(`${sim.url}/sales/partner-reference/${encodeURIComponent(sale.partnerReference)}`, token),
      );
      expect(byReference.map((s) => s.transactionId)).toEqual([sale.transactionId]);
      expect(await json(await get(`${sim.url}/sales/partner-reference/PO-2026-9999999`, token))).toEqual([]);
      const byDocument = await json<SalesRecord[]>(await get(`${sim.url}/sales/document/${sale.buyerDocument}`, token));
      expect(byDocument.map((s) => s.transactionId)).toContain(sale.transactionId);
      expect(byDocument.length).toBe(3);
      expect(await json(await get(`${sim.url}/sales/document/12345678901`, token))).toEqual([]);
      await expectRefusal(await get(`${sim.url}/sales/document/123.456.789-01`, token), 'invalid_document');
    });

    it('pre-redeem and reversals are seen by every later sales query', async () => {
      const response = await post(
        `${sim.url}/pre-redeem`,
        {
          productId: 3104,
          partnerReference: 'PO-TEST-1',
          customer: { document: '52998224725', name: 'Maria Silva', bornAt: '1990-05-01' },
        },
        token,
      );
      const booked = await json<PreRedeemResponse>(response);
      expect(booked.status).toBe('delivered');
      expect(booked.transaction.redirectLink).toBe(`${sim.url}/redeem/${booked.transaction.transactionId}`);
      expect(booked.transaction.key).toMatch(/^[A-Z0-9-]{16,20}$/);
      expect(await json(await get(`${sim.url}/catalog/products/3104/stock`, token))).toEqual({
        hasStock: true,
        amount: 4999,
      });

      await expectRefusal(
        await post(`${sim.url}/pre-redeem`, { productId: 3104, partnerReference: 'PO-TEST-1' }, token),
        'duplicate_partner_reference',
      );
      await expectRefusal(
        await post(`${sim.url}/pre-redeem`, { productId: 1, partnerReference: 'PO-TEST-2' }, token),
        'unknown_product',
      );
      await expectRefusal(
        await post(`${sim.url}/pre-redeem`, { partnerReference: 'PO-TEST-2' }, token),
        'invalid_request',
      );
      await expectRefusal(
        await post(
          `${sim.url}/pre-redeem`,
          { productId: 3101, partnerReference: 'PO-TEST-2', customer: { bornAt: '31/12/1990' } },
          token,
        ),
        'invalid_customer',
      );
      await expectRefusal(
        await post(`${sim.url}/pre-redeem`, { productId: 4001, partnerReference: 'PO-TEST-2' }, token),
        'product_not_available',
      );
      // A generated reference is taken too.
      await expectRefusal(
        await post(
          `${sim.url}/pre-redeem`,
          { productId: 3101, partnerReference: sim.dataset.sale(5).partnerReference },
          token,
        ),
        'duplicate_partner_reference',
      );

      const today = sim.dataset.plan.clock.localDate(Date.now());
      const todays = await json<SalesRecord[]>(
        await get(`${sim.url}/sales/period/${today}/${today}?searchIsByCreateDate=true`, token),
      );
      expect(todays.find((s) => s.transactionId === booked.transaction.transactionId)).toMatchObject({
        status: 'delivered',
        partnerReference: 'PO-TEST-1',
        productId: 3104,
      });
      expect(
        (await json<SalesRecord[]>(await get(`${sim.url}/sales/document/52998224725`, token))).map(
          (s) => s.partnerReference,
        ),
      ).toEqual(['PO-TEST-1']);

      // The customer completes a second booking on the redeem page.
      const other = await json<PreRedeemResponse>(
        await post(`${sim.url}/pre-redeem`, { productId: 3101, partnerReference: 'PO-TEST-3' }, token),
      );
      expect((await fetch(other.transaction.redirectLink!)).status).toBe(200);
      await json(await fetch(other.transaction.redirectLink!, { method: 'POST' }));
      expect(
        (await json<SalesRecord>(await get(`${sim.url}/sales/transaction/${other.transaction.transactionId}`, token)))
          .status,
      ).toBe('Redeemed by Client');

      const reversed = await json<ReversalResult>(
        await post(`${sim.url}/reversal`, { transactionId: booked.transaction.transactionId }, token),
      );
      expect(reversed).toMatchObject({ status: 'Canceled in stock', transactionId: booked.transaction.transactionId });
      expect(await json(await get(`${sim.url}/catalog/products/3104/stock`, token))).toEqual({
        hasStock: true,
        amount: 5000,
      });
      await expectRefusal(
        await post(`${sim.url}/reversal`, { transactionId: booked.transaction.transactionId }, token),
        'already_reversed',
      );
      await expectRefusal(await post(`${sim.url}/reversal`, { transactionId: 5 }, token), 'unknown_transaction');
      const afterReversal = await json<SalesRecord[]>(await get(`${sim.url}/sales/partner-reference/PO-TEST-1`, token));
      expect(afterReversal[0]!.status).toBe('Canceled in stock');

      // Reversal by reference of a generated sale shows in the period list.
      const generated = [...sim.dataset.salesInPeriod('2026-02-10', '2026-02-10', true)].find(
        (s) => s.status === 'Redeemed by Client',
      )!;
      const byReference = await json<ReversalResult>(
        await post(
          `${sim.url}/reversal/partner-reference/${encodeURIComponent(generated.partnerReference)}`,
          {},
          token,
        ),
      );
      expect(byReference.transactionId).toBe(generated.transactionId);
      const period = await json<SalesRecord[]>(
        await get(`${sim.url}/sales/period/2026-02-10/2026-02-10?searchIsByCreateDate=true`, token),
      );
      expect(period.find((s) => s.transactionId === generated.transactionId)!.status).toBe('Canceled in stock');
      await expectRefusal(
        await post(`${sim.url}/reversal/partner-reference/PO-NOPE`, {}, token),
        'unknown_partner_reference',
      );
    });
  });

  it('answers unknown paths with 404 and a JSON body', async () => {
    await expectRefusal(await get(`${sim.url}/no/such/path`, token), 'not_found', 404);
  });
});

describe('rate limit', () => {
  it('answers 503 beyond 50 requests in any rolling second, and never serves more', async () => {
    const sim = await startSimulator({ ...CREDENTIALS, dataset: DATASET, rateLimitPerSecond: 50 });
    try {
      const responses = await Promise.all(Array.from({ length: 200 }, () => fetch(`${sim.url}/catalog/collections`)));
      const statuses = responses.map((r) => r.status);
      const limited = responses.filter((r) => r.status === 503);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) await expectRefusal(r, 'rate_limited', 503);
      for (const r of responses.filter((r) => r.status !== 503)) await r.text();
      const stats = sim.stats();
      expect(stats.maxInAnyRollingSecond).toBeLessThanOrEqual(50);
      expect(stats.rateLimited).toBe(limited.length);
      expect(statuses.filter((s) => s === 400).length).toBe(200 - limited.length); // accepted → 400 (no token)
    } finally {
      await sim.close();
    }
  });

  it('counts a sliding second, not clock seconds', () => {
    let now = 0;
    const limiter = new SlidingWindowLimiter(50, 1000, () => now);
    now = 900;
    for (let k = 0; k < 50; k++) expect(limiter.tryAccept()).toBe(true);
    now = 1100; // a fixed window would have reset at 1000
    expect(limiter.tryAccept()).toBe(false);
    now = 1900.5;
    expect(limiter.tryAccept()).toBe(true);
    expect(limiter.maxInAnyWindow).toBe(50);
  });
});

describe('fault injection', () => {
  async function outcomes(seed: number, count: number): Promise<(number | 'dropped')[]> {
    const sim = await startSimulator({
      ...CREDENTIALS,
      seed,
      dataset: DATASET,
      faults: { error503Rate: 0.15, error500Rate: 0.15, dropRate: 0.2 },
    });
    try {
      const seen: (number | 'dropped')[] = [];
      for (let k = 0; k < count; k++) seen.push(await rawGet(`${sim.url}/catalog/collections`));
      sim.setFaults({});
      seen.push(await rawGet(`${sim.url}/catalog/collections`)); // faults off: the real answer (400, no token)
      const stats = sim.stats();
      expect(stats.injected503 + stats.injected500 + stats.dropped).toBe(seen.filter((s) => s !== 400).length);
      return seen;
    } finally {
      await sim.close();
    }
  }

  it('replays the same faults for the same seed, and different ones for another', async () => {
    const first = await outcomes(3, 40);
    expect(await outcomes(3, 40)).toEqual(first);
    expect(await outcomes(4, 40)).not.toEqual(first);
    expect(first).toContain(503);
    expect(first).toContain(500);
    expect(first).toContain('dropped');
    expect(first).toContain(400);
    expect(first.at(-1)).toBe(400);
  });

  it('delays slow responses', async () => {
    const sim = await startSimulator({ ...CREDENTIALS, dataset: DATASET, faults: { slowRate: 1, slowMs: 300 } });
    try {
      const started = performance.now();
      expect(await rawGet(`${sim.url}/catalog/collections`)).toBe(400);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect(sim.stats().slowed).toBe(1);
    } finally {
      await sim.close();
    }
  });

  it('drops a streamed sales list mid-response', async () => {
    const sim = await startSimulator({ ...CREDENTIALS, dataset: DATASET });
    try {
      const record = await authenticate(sim);
      sim.setFaults({ dropRate: 1 });
      const outcome = await fetch(`${sim.url}/sales/period/2026-01-01/2026-01-31`, {
        headers: { Authorization: `Bearer ${record.accessToken}` },
      })
        .then((r) => r.text())
        .then(
          () => 'complete',
          () => 'failed',
        );
      expect(outcome).toBe('failed');
    } finally {
      await sim.close();
    }
  });
});

describe('custom endpoint templates', () => {
  it('serves the operations at the configured paths only', async () => {
    const sim = await startSimulator({
      ...CREDENTIALS,
      dataset: DATASET,
      endpoints: {
        getToken: 'POST /v2/login',
        salesByPeriod: 'GET /v2/vendas/{finishDate}/{startDate}',
        salesByDocument: 'GET /v2/sales?doc={documentNumber}',
      },
    });
    try {
      await expectRefusal(await post(`${sim.url}/auth/token`, CREDENTIALS), 'not_found', 404);
      const { accessToken } = await json<TokenRecord>(await post(`${sim.url}/v2/login`, CREDENTIALS));
      const sales = await json<SalesRecord[]>(await get(`${sim.url}/v2/vendas/2026-01-05/2026-01-04`, accessToken));
      expect(sales.map((s) => s.transactionId)).toEqual(
        [...sim.dataset.salesInPeriod('2026-01-04', '2026-01-05', false)].map((s) => s.transactionId),
      );
      const document = sim.dataset.sale(0).buyerDocument;
      expect((await json<SalesRecord[]>(await get(`${sim.url}/v2/sales?doc=${document}`, accessToken))).length).toBe(3);
      await json(await get(`${sim.url}/catalog/collections/10`, accessToken)); // the others keep their defaults
    } finally {
      await sim.close();
    }
    await expect(startSimulator({ endpoints: { salesByPeriod: 'GET /sales/{startDate}' } })).rejects.toThrow(
      /endpoints\.salesByPeriod.*\{finishDate\}/,
    );
  });
});

describe('data set', () => {
  it('is deterministic from the seed and realistic', () => {
    const options = { from: '2026-01-01', to: '2026-01-31', salesCount: 20_000, malformedEvery: 1000 };
    const a = new Dataset({ ...options, seed: 5 });
    const b = new Dataset({ ...options, seed: 5 });
    const c = new Dataset({ ...options, seed: 6 });
    expect(b.sale(1234)).toEqual(a.sale(1234));
    expect(c.sale(1234).key).not.toBe(a.sale(1234).key);

    const sales = [...a.sales()];
    expect(sales).toHaveLength(20_000);
    const share = (predicate: (s: (typeof sales)[number]) => boolean) => sales.filter(predicate).length / sales.length;
    expect(share((s) => s.status === 'Redeemed by Client')).toBeGreaterThan(0.85);
    expect(share((s) => s.status === 'delivered')).toBeGreaterThan(0.04);
    expect(sales.some((s) => s.status === 'delivered' && !s.keySentToCustomer)).toBe(true);
    expect(share((s) => s.status === 'Canceled in stock')).toBeGreaterThan(0.02);
    expect(sales.some((s) => s.status === 'Pending review')).toBe(true);
    expect(share((s) => s.salesCurrencyCode === 'USD')).toBeGreaterThan(0);
    expect(share((s) => s.salesCurrencyCode === 'USD')).toBeLessThan(0.03);
    expect(sales.some((s) => s.partnerReference !== s.partnerReference.trim())).toBe(true);
    expect(sales.every((s) => /^\s?PO-2026-\d{7}\s?$/.test(s.partnerReference))).toBe(true);
    expect(sales.every((s) => s.key.length >= 16 && s.key.length <= 20)).toBe(true);
    expect(share((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$/.test(s.transactionDate))).toBeGreaterThan(0.5);
    expect(share((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(s.transactionDate))).toBeGreaterThan(0.15);
    expect(share((s) => /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/.test(s.transactionDate))).toBeGreaterThan(0.1);
    // Creation times grow with the index and span the range; payment precedes creation.
    expect(sales.every((s, k) => k === 0 || s.createdAt >= sales[k - 1]!.createdAt)).toBe(true);
    expect(sales.every((s) => s.paidAt <= s.createdAt)).toBe(true);
    expect(sales.some((s) => s.paidAt.getTime() < a.plan.startMs)).toBe(true); // paid in December, created in January
    // Malformed: every 1000th, alternating a missing field and a bad date.
    const malformed = sales.filter((s) => s.malformation);
    expect(malformed.map((s) => s.transactionId - FIRST_TRANSACTION_ID + 1)).toEqual(
      Array.from({ length: 20 }, (_, k) => (k + 1) * 1000),
    );
    expect(malformed[0]!.malformation).toEqual({ kind: 'missing-field', field: 'partnerCostPrice' });
    expect(malformed[1]!.malformation).toMatchObject({ kind: 'bad-date' });
    expect(generateSale(a.plan, 999).malformation).toEqual(malformed[0]!.malformation);
  });

  it('answers period queries exactly as a full scan would', () => {
    const dataset = new Dataset({ from: '2026-01-25', to: '2026-03-05', salesCount: 8000, seed: 9 });
    const all = [...dataset.sales()];
    const from = dataset.plan.clock.startOfDay('2026-02-01');
    const to = dataset.plan.clock.startOfDay('2026-03-01');
    for (const byCreate of [false, true]) {
      const scanned = all.filter((s) => {
        const at = (byCreate ? s.createdAt : s.paidAt).getTime();
        return at >= from && at < to;
      });
      expect([...dataset.salesInPeriod('2026-02-01', '2026-02-28', byCreate)].map((s) => s.transactionId)).toEqual(
        scanned.map((s) => s.transactionId),
      );
    }
  });

  it('serves a one-day window of a million-sale data set without generating the rest', async () => {
    const sim = await startSimulator({
      ...CREDENTIALS,
      dataset: { from: '2026-01-01', to: '2026-12-31', salesCount: 1_000_000 },
    });
    try {
      const [lo, hi] = sim.dataset.indexRange(
        sim.dataset.plan.clock.startOfDay('2026-07-01'),
        sim.dataset.plan.clock.startOfDay('2026-07-02'),
      );
      expect(hi - lo).toBeLessThan(2800); // one day's share of 1,000,000 over 365 days, plus a slot of margin
      const { accessToken } = await authenticate(sim);
      const sales = await json<SalesRecord[]>(
        await get(`${sim.url}/sales/period/2026-07-01/2026-07-01?searchIsByCreateDate=true`, accessToken),
      );
      expect(sales.length).toBeGreaterThan(2600);
      expect(
        sales.every((s) => s.transactionId >= FIRST_TRANSACTION_ID + lo && s.transactionId < FIRST_TRANSACTION_ID + hi),
      ).toBe(true);
      const last = await json<SalesRecord>(
        await get(`${sim.url}/sales/transaction/${FIRST_TRANSACTION_ID + 999_999}`, accessToken),
      );
      expect(last.partnerReference).toBe('PO-2026-1000000');
    } finally {
      await sim.close();
    }
  });
});
