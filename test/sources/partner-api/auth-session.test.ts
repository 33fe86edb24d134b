import { describeClientEvent, PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { afterAll, describe, it } from 'vitest';
import {
  closeScripted,
  running,
  type Handler,
  Upstream,
  json,
  authorized,
  sale,
  apiConfig,
  setup,
  expectNoSecrets,
  failure,
} from '../../support/scripted-upstream.js';

// Cases run side by side (describe.concurrent): their waits (token lifetimes, renewal back-offs) overlap; so every
// upstream is stopped once all are done, not after each (issue 27).
afterAll(closeScripted);

describe.concurrent('auth session', () => {
  const stock: Handler = (hit, res, up) => {
    if (authorized(hit, res, up)) json(res, 200, { hasStock: true, amount: 3 });
  };

  it('refreshes before expiry, and concurrent callers share one refresh', async ({ expect }) => {
    const { upstream, client, events } = await setup(stock, { refreshMarginSeconds: 1 });
    upstream.tokenLifetimeMs = 2_500;
    await client.productStock(1);
    expect(upstream.issued).toBe(1);
    // The renewed token lives long: however slowly a loaded machine runs the 20 callers, none needs another.
    upstream.tokenLifetimeMs = 3_600_000;
    await new Promise((r) => setTimeout(r, 1_700)); // inside the 1 s margin of the first token
    await Promise.all(Array.from({ length: 20 }, () => client.productStock(1)));
    expect(upstream.refreshed).toBe(1);
    expect(upstream.issued).toBe(2); // the login plus the one refresh
    expect(client.stats).toMatchObject({ authentications: 1, refreshes: 1 });
    expect(upstream.hits.every((h) => h.path.startsWith('/auth') || upstream.valid.has(h.token!) || h.token)).toBe(
      true,
    );
    expect(events.filter((e) => e.type === 'refreshed')).toHaveLength(1);
  });

  it('logs in again when the refresh is refused', async ({ expect }) => {
    const { upstream, client, events } = await setup(stock, { refreshMarginSeconds: 1 });
    upstream.tokenLifetimeMs = 1_200;
    await client.productStock(1);
    upstream.refuseRefresh = true;
    await new Promise((r) => setTimeout(r, 700));
    await client.productStock(1);
    expect(client.stats.authentications).toBe(2);
    expect(events).toContainEqual({ type: 'authenticated', reason: 'refresh_failed' });
  });

  it('re-authenticates once after a revoked token and succeeds', async ({ expect }) => {
    const { upstream, client, events } = await setup(stock);
    await client.productStock(1);
    upstream.revokeAll();
    await Promise.all([client.productStock(1), client.productStock(2), client.productStock(3)]);
    expect(client.stats.authentications).toBe(2); // one re-login shared by the three callers
    expect(events.filter((e) => e.type === 'reauthenticated').length).toBeGreaterThanOrEqual(1);
    expectNoSecrets(
      upstream,
      events.map((e) => JSON.stringify(e)),
    );
  });

  it(
    'reports a request refused with a valid token at once: one ' +
      'request and one canary, no re-login, the redacted body quoted',
    async ({ expect }) => {
      const { upstream, client, events } = await setup((hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        if (hit.path === '/catalog/products/9')
          return json(res, 400, { message: `nope for ${hit.token}`, accessToken: hit.token });
        json(res, 200, []);
      });
      const error = await failure(client.productInfo(9));
      expect(error.endpoint).toBe('productInfo');
      expect(error.status).toBe(400);
      // Issue 34: the body is said by its size and digest only, never quoted.
      expect(error.body).toMatch(/^a body of \d+ bytes, sha256 [0-9a-f]{16}$/);
      expect(error.message).toContain('productInfo (GET /catalog/products/{productId})');
      expect(upstream.hitsOn('/catalog/products/9')).toHaveLength(1);
      expect(upstream.hitsOn('/catalog/partner/collections')).toHaveLength(1); // the canary: the token was alive
      expect(client.stats.authentications).toBe(1);
      expect(events.filter((e) => e.type === 'reauthenticated')).toEqual([]);
      expectNoSecrets(upstream, [
        error.message,
        error.body ?? '',
        error.hint ?? '',
        ...events.map((e) => JSON.stringify(e)),
        ...events.map(describeClientEvent),
      ]);
    },
  );

  it(
    'renews a rejected token at most 3 times, a second or ' + 'more apart, then says the token kept being rejected',
    async ({ expect }) => {
      const { upstream, client, events } = await setup((hit, res) =>
        json(res, 400, { message: `nope for ${hit.token}`, accessToken: hit.token }),
      );
      const started = Date.now();
      const error = await failure(client.salesByPeriod('2024-03-01', '2024-03-31', false));
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000); // 1 s before the 2nd and before the 3rd renewal
      expect(error.message).toMatch(
        new RegExp(
          /kept rejecting the token — 4 tokens in a row, 3 of them fresh, were refused \(last /.source +
            /answer 400: a body of \d+ bytes, sha256/.source,
        ),
      );
      expect(error.hint).not.toMatch(/at most 31/); // a 31-day window: the 31-day rule is not the reason
      expect(client.stats.authentications).toBe(4);
      expect(upstream.hitsOn('/sales/period/2024-03-01/2024-03-31')).toHaveLength(4);
      expect(events.filter((e) => e.type === 'reauthenticated')).toHaveLength(3);
      expectNoSecrets(upstream, [
        error.message,
        error.body ?? '',
        error.hint ?? '',
        ...events.map(describeClientEvent),
      ]);
    },
  );

  it('names the 31-day rule only for a window longer than 31 days', async ({ expect }) => {
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path.startsWith('/sales/')) return json(res, 400, { message: 'period too long' });
      json(res, 200, []);
    });
    const long = await failure(client.salesByPeriod('2024-03-01', '2024-04-01', false));
    expect(long.hint).toMatch(/32 days; the provider allows at most 31/);
    const short = await failure(client.salesByPeriod('2024-03-01', '2024-03-31', false));
    expect(short.hint).not.toMatch(/at most 31/);
    expect(short.hint).toMatch(/extract\.maxWindowDays/); // a provider may allow fewer days
    expect(client.stats.authentications).toBe(1);
  });

  it(
    'answers an unknown reference after one request: a ' + 'batch of "not found" 400s is proven real by one canary',
    async ({ expect }) => {
      const { upstream, client } = await setup((hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        if (hit.path.startsWith('/sales/partner-reference/')) return json(res, 400, { message: 'no such reference' });
        json(res, 200, []);
      });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => client.salesByPartnerReference(`GHOST-${i}`)),
      );
      expect(answers).toEqual(Array.from({ length: 20 }, () => []));
      expect(upstream.hits.filter((h) => h.path.startsWith('/sales/partner-reference/'))).toHaveLength(20);
      // Canaries are shared by the refusals of a short while (how many depends on timing, never one each).
      expect(upstream.hitsOn('/catalog/partner/collections').length).toBeLessThanOrEqual(10);
      expect(client.stats.authentications).toBe(1);
    },
  );

  it('asks again, with a fresh token, the references refused while the token was revoked', async ({ expect }) => {
    const { upstream, client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/sales/partner-reference/PO-1') return json(res, 200, [sale(1, 'PO-1')]);
      if (hit.path.startsWith('/sales/')) return json(res, 400, { message: 'no such reference' });
      json(res, 200, []);
    });
    await client.salesByPartnerReference('PO-1');
    upstream.revokeAll();
    const [found, ghost] = await Promise.all([
      client.salesByPartnerReference('PO-1'),
      client.salesByPartnerReference('GHOST'),
    ]);
    expect(found.map((s) => s.transactionId)).toEqual([1]);
    expect(ghost).toEqual([]);
    expect(client.stats.authentications).toBe(2);
  });

  it('renews again when the fresh token was itself revoked while it waited out 503s', async ({ expect }) => {
    let calls = 0;
    const { upstream, client } = await setup((hit, res, up) => {
      calls++;
      if (calls === 1) {
        up.revokeAll();
        return json(res, 400, { message: 'token revoked' });
      }
      if (calls <= 4) {
        up.revokeAll(); // revoked again while the client waits out the rate limit
        return json(res, 503, { message: 'slow down' });
      }
      if (authorized(hit, res, up)) json(res, 200, { hasStock: true, amount: 3 });
    });
    await expect(client.productStock(1)).resolves.toEqual({ hasStock: true, amount: 3 });
    expect(client.stats.rateLimited).toBe(3);
    expect(upstream.issued).toBe(2); // the first token and its renewal, once the canary got through the 503s
  });

  it('reports refused credentials without quoting them', async ({ expect }) => {
    const upstream = await new Upstream(() => undefined).start();
    running.push(upstream);
    const client = new PartnerApiClient(apiConfig(upstream.url, { secret: 'wrong-secret-999' }), {
      limiter: new RateLimiter(1000),
    });
    running.push(client);
    const error = await failure(client.catalogTree());
    expect(error.message).toMatch(/getToken.*refused to log in/);
    expect(error.hint).toMatch(/api\.identifier and api\.secret/);
    expect(`${error.message} ${error.hint}`).not.toContain('wrong-secret-999');
  });
});
