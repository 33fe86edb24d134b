/**
 * The upstream client against small real HTTP servers on 127.0.0.1 that this file starts and stops, each
 * scripted to misbehave exactly as a test needs (revoked tokens, 503s, 500s, drops, stalls, truncated bodies).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.js';
import { configSchema, type ApiConfig } from '../../../config/schema.js';
import { describeClientEvent, PartnerApiClient, UpstreamError, type ClientEvent } from '../../../sources/partner-api/client.js';
import { expandEndpoint, parseEndpoint } from '../../../sources/partner-api/endpoints.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import type { SalesRecord } from '../../../sources/partner-api/types.js';

const IDENTIFIER = 'partner-ident-7781';
const SECRET = 'top-secret-value-42';

interface Hit {
  method: string;
  path: string;
  query: URLSearchParams;
  token?: string;
  body: Record<string, unknown>;
}

type Handler = (hit: Hit, res: ServerResponse, upstream: Upstream) => void | Promise<void>;

/** A scripted upstream: issues tokens itself (unless told otherwise) and hands every other request to `handler`. */
class Upstream {
  readonly hits: Hit[] = [];
  readonly valid = new Set<string>();
  issued = 0;
  refreshed = 0;
  tokenLifetimeMs = 3_600_000;
  refuseRefresh = false;
  url = '';
  private server: Server | undefined;

  constructor(private readonly handler: Handler) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  hitsOn(pathname: string): Hit[] {
    return this.hits.filter((h) => h.path === pathname);
  }

  revokeAll(): void {
    this.valid.clear();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', 'http://x');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const hit: Hit = { method: req.method ?? '', path: url.pathname, query: url.searchParams, token, body: text ? JSON.parse(text) : {} };
    this.hits.push(hit);
    if (hit.path === '/auth/token') {
      if (hit.body.identifier !== IDENTIFIER || hit.body.secret !== SECRET) return json(res, 400, { message: 'bad credentials' });
      return json(res, 200, this.issue());
    }
    if (hit.path === '/auth/refresh-token') {
      if (this.refuseRefresh || !this.valid.has(String(hit.body.accessToken))) return json(res, 400, { message: 'cannot refresh' });
      this.refreshed++;
      return json(res, 200, this.issue());
    }
    await this.handler(hit, res, this);
  }

  private issue(): Record<string, unknown> {
    const n = ++this.issued;
    const accessToken = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.sig-${n}-${Math.random().toString(36).slice(2)}`;
    this.valid.add(accessToken);
    const now = Date.now();
    return {
      accessToken,
      refreshToken: `refresh-${n}-${Math.random().toString(36).slice(2)}`,
      createdAt: new Date(now).toISOString(),
      expiredAt: new Date(now + this.tokenLifetimeMs).toISOString(),
      isAuthenticated: true,
    };
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Answers 400 with an echo of the token, so redaction is tested too. */
function authorized(hit: Hit, res: ServerResponse, upstream: Upstream): boolean {
  if (hit.token && upstream.valid.has(hit.token)) return true;
  json(res, 400, { message: `invalid token ${hit.token ?? ''}`, accessToken: hit.token ?? null });
  return false;
}

function sale(transactionId: number, partnerReference: string, status = 'Redeemed by Client'): SalesRecord {
  return {
    transactionId,
    partnerReference,
    salesPrice: 10,
    partnerCostPrice: 8.5,
    productId: 7,
    productName: 'Gift card',
    status,
    transactionDate: '2024-03-01T10:00:00-03:00',
    countryCode: 'BR',
    salesCurrencyCode: 'BRL',
    salesCurrencySymbol: 'R$',
    key: 'AAAA-BBBB-CCCC-1234',
    keySentToCustomer: true,
  };
}

function apiConfig(baseUrl: string, overrides: Record<string, unknown> = {}): ApiConfig {
  return configSchema.parse({ api: { baseUrl, identifier: IDENTIFIER, secret: SECRET, ...overrides } }).api;
}

const running: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of running.splice(0)) await thing.close();
});

async function setup(handler: Handler, overrides: Record<string, unknown> = {}) {
  const upstream = await new Upstream(handler).start();
  running.push(upstream);
  const events: ClientEvent[] = [];
  const client = new PartnerApiClient(apiConfig(upstream.url, overrides), { limiter: new RateLimiter(1000), onEvent: (e) => events.push(e) });
  running.push(client);
  return { upstream, client, events };
}

/** Everything a test saw leave the client: no credential or token may be in it. */
function expectNoSecrets(upstream: Upstream, texts: string[]): void {
  const all = texts.join('\n');
  expect(all).not.toContain(SECRET);
  expect(all).not.toContain(IDENTIFIER);
  for (const token of upstream.valid) expect(all).not.toContain(token);
  expect(all).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  expect(all).not.toMatch(/refresh-\d+-/);
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('endpoint templates', () => {
  it('expands parameters URL-encoded, keeping the base URL path', () => {
    const endpoint = parseEndpoint('salesByPartnerReference', 'GET /v2/sales/ref/{partnerReferenceId}');
    const url = expandEndpoint('http://h:1/api/', endpoint, { partnerReferenceId: 'PO 12/3?x=ü' }, { flag: true, skip: undefined });
    expect(url.href).toBe('http://h:1/api/v2/sales/ref/PO%2012%2F3%3Fx%3D%C3%BC?flag=true');
  });

  it('rejects templates that miss or invent parameters, naming the config key', () => {
    expect(() => parseEndpoint('salesByPeriod', 'GET /sales/{startDate}')).toThrow(/api\.endpoints\.salesByPeriod.*lacks \{finishDate\}/);
    expect(() => parseEndpoint('catalogTree', 'GET /catalog/{country}')).toThrow(/api\.endpoints\.catalogTree.*unknown \{country\}/);
    expect(() => parseEndpoint('preRedeem', 'pre-redeem')).toThrow(ConfigError);
  });

  it('calls configured custom paths with the common catalog query from config unless overridden', async () => {
    const { upstream, client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/x/stock/55') return json(res, 200, { hasStock: true, amount: -1 });
      if (hit.path === '/x/sales/2024-03-01/2024-03-31') return json(res, 200, [sale(1, 'PO-1')]);
      json(res, 404, {});
    }, {
      country: 'PT',
      currency: 'EUR',
      language: 'pt-PT',
      endpoints: { productStock: 'GET /x/stock/{productId}', salesByPeriod: 'GET /x/sales/{startDate}/{finishDate}' },
    });
    expect(await client.productStock(55)).toEqual({ hasStock: true, amount: -1 });
    expect(await client.productStock(55, { currency: 'USD' })).toEqual({ hasStock: true, amount: -1 });
    expect(await client.salesByPeriod('2024-03-01', '2024-03-31', true)).toHaveLength(1);
    const [first, second] = upstream.hitsOn('/x/stock/55');
    expect(Object.fromEntries(first!.query)).toEqual({ country: 'PT', currency: 'EUR', language: 'pt-PT' });
    expect(Object.fromEntries(second!.query)).toEqual({ country: 'PT', currency: 'USD', language: 'pt-PT' });
    expect(upstream.hitsOn('/x/sales/2024-03-01/2024-03-31')[0]!.query.get('searchIsByCreateDate')).toBe('true');
  });

  it('says which credential is missing, naming the key and the environment variable', () => {
    const api = configSchema.parse({ api: { identifier: IDENTIFIER } }).api;
    expect(() => new PartnerApiClient(api, { limiter: new RateLimiter(10) })).toThrow(ConfigError);
    expect(() => new PartnerApiClient(api, { limiter: new RateLimiter(10) })).toThrow(/api\.secret.*PINRECON_API_SECRET/);
    const none = configSchema.parse({}).api;
    expect(() => new PartnerApiClient(none, { limiter: new RateLimiter(10) })).toThrow(/api\.identifier.*PINRECON_API_IDENTIFIER/);
  });
});

describe('auth session', () => {
  const stock: Handler = (hit, res, up) => {
    if (authorized(hit, res, up)) json(res, 200, { hasStock: true, amount: 3 });
  };

  it('refreshes before expiry, and concurrent callers share one refresh', async () => {
    const { upstream, client, events } = await setup(stock, { refreshMarginSeconds: 1 });
    upstream.tokenLifetimeMs = 2_500;
    await client.productStock(1);
    expect(upstream.issued).toBe(1);
    await new Promise((r) => setTimeout(r, 1_700)); // inside the 1 s margin, token still valid
    await Promise.all(Array.from({ length: 20 }, () => client.productStock(1)));
    expect(upstream.refreshed).toBe(1);
    expect(upstream.issued).toBe(2); // the login plus the one refresh
    expect(client.stats).toMatchObject({ authentications: 1, refreshes: 1 });
    expect(upstream.hits.every((h) => h.path.startsWith('/auth') || upstream.valid.has(h.token!) || h.token)).toBe(true);
    expect(events.filter((e) => e.type === 'refreshed')).toHaveLength(1);
  });

  it('logs in again when the refresh is refused', async () => {
    const { upstream, client, events } = await setup(stock, { refreshMarginSeconds: 1 });
    upstream.tokenLifetimeMs = 1_200;
    await client.productStock(1);
    upstream.refuseRefresh = true;
    await new Promise((r) => setTimeout(r, 700));
    await client.productStock(1);
    expect(client.stats.authentications).toBe(2);
    expect(events).toContainEqual({ type: 'authenticated', reason: 'refresh_failed' });
  });

  it('re-authenticates once after a revoked token and succeeds', async () => {
    const { upstream, client, events } = await setup(stock);
    await client.productStock(1);
    upstream.revokeAll();
    await Promise.all([client.productStock(1), client.productStock(2), client.productStock(3)]);
    expect(client.stats.authentications).toBe(2); // one re-login shared by the three callers
    expect(events.filter((e) => e.type === 'reauthenticated').length).toBeGreaterThanOrEqual(1);
    expectNoSecrets(upstream, events.map((e) => JSON.stringify(e)));
  });

  it('treats a second 400 as a real error carrying endpoint, status and the redacted body', async () => {
    const { upstream, client, events } = await setup((hit, res) => json(res, 400, { message: `nope for ${hit.token}`, accessToken: hit.token }));
    const error = await failure(client.productInfo(9));
    expect(error.endpoint).toBe('productInfo');
    expect(error.status).toBe(400);
    expect(error.body).toContain('nope for');
    expect(error.message).toContain('productInfo (GET /catalog/products/{productId})');
    expect(upstream.hitsOn('/catalog/products/9')).toHaveLength(2);
    expect(client.stats.authentications).toBe(2);
    expectNoSecrets(upstream, [error.message, error.body ?? '', error.hint ?? '', ...events.map((e) => JSON.stringify(e)), ...events.map(describeClientEvent)]);
    expect(events.map(describeClientEvent)).toContain('productInfo: answered 400; the token may have been revoked, renewing it and trying once more');
  });

  it('renews again when the fresh token was itself revoked while it waited out 503s', async () => {
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
    expect(upstream.issued).toBe(3); // the first token, its renewal, and one more after the long wait
  }, 20_000);

  it('reports refused credentials without quoting them', async () => {
    const upstream = await new Upstream(() => undefined).start();
    running.push(upstream);
    const client = new PartnerApiClient(apiConfig(upstream.url, { secret: 'wrong-secret-999' }), { limiter: new RateLimiter(1000) });
    running.push(client);
    const error = await failure(client.catalogTree());
    expect(error.message).toMatch(/getToken.*refused to log in/);
    expect(error.hint).toMatch(/api\.identifier and api\.secret/);
    expect(`${error.message} ${error.hint}`).not.toContain('wrong-secret-999');
  });
});

describe('retries', () => {
  it.each([503, 429])('waits at least a second after a %i and counts it apart', async (status) => {
    let calls = 0;
    const { client, events } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (++calls === 1) return json(res, status, { message: 'slow down' });
      json(res, 200, []);
    });
    const started = Date.now();
    expect(await client.catalogTree()).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(client.stats).toMatchObject({ rateLimited: 1, retries: 0, requests: 3 });
    expect(events.find((e) => e.type === 'rate_limited')).toMatchObject({ endpoint: 'catalogTree' });
  });

  it('backs off after 500, a dropped connection, a stall and a truncated body, then succeeds', async () => {
    let calls = 0;
    const { client, events } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        calls++;
        if (calls === 1) return json(res, 500, { message: 'boom' });
        if (calls === 2) return void res.socket?.destroy();
        if (calls === 3) return; // never answers: the 300 ms timeout fires
        if (calls === 4) {
          res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
          return void res.end('[{"id":1,"na');
        }
        json(res, 200, [{ id: 1, name: 'ok', collections: [], products: [], tags: [], termsAndConditions: '', howToRedeem: null }]);
      },
      { timeoutMs: 300 },
    );
    expect(await client.catalogTree()).toHaveLength(1);
    expect(client.stats.retries).toBe(4);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { reason: string }).reason)).toEqual([
      expect.stringMatching(/500/),
      expect.stringMatching(/dropped|closed/),
      expect.stringMatching(/no answer for 300 ms/),
      expect.stringMatching(/not valid JSON/),
    ]);
  });

  it('gives up after api.maxRetries with an error naming the endpoint', async () => {
    const { upstream, client } = await setup((hit, res, up) => {
      if (authorized(hit, res, up)) json(res, 502, { message: 'bad gateway' });
    }, { maxRetries: 2 });
    const error = await failure(client.salesByPeriod('2024-01-01', '2024-01-31', false));
    expect(error.message).toMatch(/salesByPeriod \(GET \/sales\/period\/\{startDate\}\/\{finishDate\}\).*failed after 2 retries.*502/);
    expect(error.status).toBe(502);
    expect(upstream.hitsOn('/sales/period/2024-01-01/2024-01-31')).toHaveLength(3);
    expect(client.stats.retries).toBe(2);
  });

  it('names the timeout and the setting to change', async () => {
    const { client } = await setup(() => undefined, { maxRetries: 1, timeoutMs: 150 });
    const error = await failure(client.productStock(1));
    expect(error.message).toMatch(/productStock \(GET .*\) at http:\/\/127\.0\.0\.1:\d+ gave no answer within api\.timeoutMs \(150 ms\), 2 times/);
    expect(error.hint).toMatch(/api\.timeoutMs/);
  });
});

describe('writes are never blindly repeated', () => {
  it('looks a pre-redeem up after a dropped answer instead of sending it again', async () => {
    const booked: SalesRecord[] = [];
    const { upstream, client, events } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/pre-redeem') {
        booked.push({ ...sale(900 + booked.length, String(hit.body.partnerReference), 'delivered'), key: 'ZZZZ-9876' });
        return void res.socket?.destroy(); // processed, but the answer is lost
      }
      if (hit.path.startsWith('/sales/partner-reference/')) {
        const reference = decodeURIComponent(hit.path.split('/').pop()!);
        return json(res, 200, booked.filter((s) => s.partnerReference === reference));
      }
      json(res, 404, {});
    });
    const result = await client.preRedeem({ productId: 7, partnerReference: 'PO 77/1' });
    expect(upstream.hitsOn('/pre-redeem')).toHaveLength(1);
    expect(result).toEqual({ status: 'delivered', transaction: { transactionId: 900, key: 'ZZZZ-9876', partnerReference: 'PO 77/1' } });
    expect(events).toContainEqual({ type: 'write_checked', endpoint: 'preRedeem', found: true });
  });

  it('sends a pre-redeem again when the lookup shows it never arrived, and retries a 503 without lookup', async () => {
    let attempts = 0;
    const { upstream, client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/pre-redeem') {
        attempts++;
        if (attempts === 1) return json(res, 503, {});
        if (attempts === 2) return json(res, 500, {}); // failed before booking
        return json(res, 200, { status: 'delivered', transaction: { transactionId: 5, key: 'K-1', partnerReference: 'PO-2', redirectLink: 'http://r' } });
      }
      if (hit.path.startsWith('/sales/partner-reference/')) return json(res, 200, []);
      json(res, 404, {});
    });
    const result = await client.preRedeem({ productId: 7, partnerReference: 'PO-2' });
    expect(result.transaction.transactionId).toBe(5);
    expect(upstream.hitsOn('/pre-redeem')).toHaveLength(3);
    expect(upstream.hits.filter((h) => h.path.startsWith('/sales/partner-reference/'))).toHaveLength(1);
    expect(client.stats).toMatchObject({ rateLimited: 1, retries: 1 });
  });

  it('confirms a reversal by transaction id through a lookup after a 500', async () => {
    let status = 'Redeemed by Client';
    const { upstream, client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/reversal') {
        status = 'Canceled in stock';
        return json(res, 500, { message: 'gateway trouble' });
      }
      if (hit.path === '/sales/transaction/31') return json(res, 200, sale(31, 'PO-31', status));
      json(res, 404, {});
    });
    const result = await client.reverseByTransactionId(31);
    expect(result).toMatchObject({ status: 'Canceled in stock', transactionId: 31 });
    expect(upstream.hitsOn('/reversal')).toHaveLength(1);
    expect(upstream.hitsOn('/reversal')[0]!.body).toEqual({ transactionId: 31 });
  });
});

describe('reversal by partner reference', () => {
  it('is confirmed by a lookup after a timeout, not sent twice', async () => {
    let status = 'delivered';
    const { upstream, client, events } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        if (hit.path.startsWith('/reversal/partner-reference/')) {
          status = 'Canceled in stock';
          return; // processed, but the answer never comes: the 200 ms timeout fires
        }
        if (hit.path === '/sales/partner-reference/PO%2F9') return json(res, 200, [sale(77, 'PO/9', status)]);
        json(res, 404, {});
      },
      { timeoutMs: 200 },
    );
    const result = await client.reverseByPartnerReference('PO/9');
    expect(result).toMatchObject({ transactionId: 77, status: 'Canceled in stock' });
    expect(upstream.hitsOn('/reversal/partner-reference/PO%2F9')).toHaveLength(1);
    expect(events.map(describeClientEvent)).toContain('reverseByPartnerReference: after an unclear failure, looked the write up: it went through, not sending it again');
  });
});

describe('lookups', () => {
  it('reads "not found" answers as empty', async () => {
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path.startsWith('/sales/transaction/')) return json(res, 400, { message: 'transaction not found' });
      if (hit.path.startsWith('/sales/document/')) return json(res, 404, {});
      return json(res, 200, []);
    });
    expect(await client.salesByTransactionId(404)).toBeUndefined();
    expect(await client.salesByDocument('123.456')).toEqual([]);
    expect(await client.salesByPartnerReference('none')).toEqual([]);
  });
});

describe('downloadSalesByPeriod', () => {
  it('streams the body gzip-compressed to the file, retrying a body cut off mid-way', async () => {
    const records = Array.from({ length: 5_000 }, (_, i) => sale(i + 1, `PO-${i + 1}`));
    const body = JSON.stringify(records);
    let attempts = 0;
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      attempts++;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (attempts === 1) {
        res.write(body.slice(0, 100_000));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.end(body);
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    const file = path.join(dir, 'landing', 'sales.json.gz');
    const result = await client.downloadSalesByPeriod('2024-03-01', '2024-03-31', false, file);
    expect(result).toMatchObject({ bytes: Buffer.byteLength(body), records: 5_000 });
    expect(result.fetchedAt).toBeInstanceOf(Date);
    expect(gunzipSync(readFileSync(file)).toString()).toBe(body);
    expect(readdirSync(path.dirname(file))).toEqual(['sales.json.gz']);
    expect(client.stats.retries).toBe(1);
  });

  it('never lands a body that ends before its JSON array does', async () => {
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end('[{"transactionId":1},{"transactionId":2}');
    }, { maxRetries: 1 });
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    const file = path.join(dir, 'sales.json.gz');
    const error = await failure(client.downloadSalesByPeriod('2024-03-01', '2024-03-31', true, file));
    expect(error.message).toMatch(/salesByPeriod.*before its JSON array was complete/);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('credentials in transit and oversized answers', () => {
  /** A loopback server answering every request with what it received; `answer` shapes the reply. */
  async function echoServer(answer: (received: string, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => answer(Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const handle = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
    running.push(handle);
    return handle;
  }

  it('redacts the credentials also when the upstream echoes them JSON-escaped, \\u-escaped or URL-encoded', async () => {
    const identifier = 'ident/"quoted"\\42';
    const secret = 'sé"cr\\et/ 42&x=y+z';
    const upstream = await echoServer((received, res) => {
      const asciiJson = JSON.stringify(received).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(
        [`raw ${received}`, `json ${JSON.stringify({ echo: received })}`, `ascii ${asciiJson}`, `slashes ${JSON.stringify(received).replaceAll('/', '\\/')}`,
          `uri ${encodeURIComponent(JSON.parse(received).secret)} ${encodeURIComponent(JSON.parse(received).identifier)}`,
          `form ${new URLSearchParams(JSON.parse(received)).toString()}`].join('\n'),
      );
    });
    const client = new PartnerApiClient(apiConfig(upstream.url, { identifier, secret }), { limiter: new RateLimiter(1000) });
    running.push(client);
    const error = await failure(client.catalogTree());
    const shown = `${error.message} ${error.hint} ${error.body}`;
    expect(shown).toContain('raw {');
    expect(shown).toContain('form ');
    for (const value of [identifier, secret]) {
      const escaped = JSON.stringify(value).slice(1, -1);
      for (const form of [value, escaped, JSON.stringify(escaped).slice(1, -1), escaped.replaceAll('/', '\\/'), encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]) {
        expect(shown).not.toContain(form);
      }
    }
    expect(shown).not.toContain('cr\\\\');
    expect(shown).not.toContain('s\\u00e9');
    expect(shown).not.toContain('42%26x');
  });

  it('refuses an endless token answer once it passes api.maxAnswerBytes, reading no more of it', async () => {
    let sent = 0;
    const upstream = await echoServer((_received, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.write('{"accessToken":"');
      const pump = () => {
        while (!res.destroyed && sent < 2_000_000_000) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => undefined);
      pump();
    });
    const client = new PartnerApiClient(apiConfig(upstream.url, { maxAnswerBytes: 1024 * 1024 }), { limiter: new RateLimiter(1000) });
    running.push(client);
    const error = await failure(client.catalogTree());
    expect(error.message).toMatch(/getToken.*answered more than api\.maxAnswerBytes \(1048576 bytes\)/);
    expect(error.hint).toMatch(/api\.baseUrl/);
    // The connection was closed soon after the cap: the server could not push much more than socket buffers hold.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});
