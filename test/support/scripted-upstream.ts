/**
 * A scripted upstream for the partner-API client's tests: a small real HTTP server on 127.0.0.1 that issues
 * tokens itself and hands every other request to the test's handler, so each test misbehaves exactly as it
 * needs (revoked tokens, 503s, 500s, drops, stalls, truncated bodies). `setup` starts one with a client;
 * `closeScripted` (from afterEach) stops them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { configSchema, type ApiConfig } from '../../config/schema.js';
import { PartnerApiClient, ProviderError, type ClientEvent } from '../../sources/partner-api/client.js';
import { RateLimiter } from '../../sources/partner-api/rate-limiter.js';
import type { SalesRecord } from '../../sources/partner-api/types.js';

export const IDENTIFIER = 'partner-ident-7781';
export const SECRET = 'top-secret-value-42';

export interface Hit {
  method: string;
  path: string;
  query: URLSearchParams;
  token?: string;
  body: Record<string, unknown>;
  /** The body as sent (a number above 2^53 exact). */
  text: string;
  /** The request's Accept-Encoding header, if any. */
  acceptEncoding?: string;
}

export type Handler = (hit: Hit, res: ServerResponse, upstream: Upstream) => void | Promise<void>;

/** A scripted upstream: issues tokens itself (unless told otherwise) and hands every other request to `handler`. */
export class Upstream {
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
    const hit: Hit = {
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      token,
      body: text ? JSON.parse(text) : {},
      text,
      ...(req.headers['accept-encoding'] && { acceptEncoding: req.headers['accept-encoding'] }),
    };
    this.hits.push(hit);
    if (hit.path === '/auth/token') {
      if (hit.body.identifier !== IDENTIFIER || hit.body.secret !== SECRET)
        return json(res, 400, { message: 'bad credentials' });
      return json(res, 200, this.issue());
    }
    if (hit.path === '/auth/refresh-token') {
      if (this.refuseRefresh || !this.valid.has(String(hit.body.accessToken)))
        return json(res, 400, { message: 'cannot refresh' });
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

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Answers 400 with an echo of the token, so redaction is tested too. */
export function authorized(hit: Hit, res: ServerResponse, upstream: Upstream): boolean {
  if (hit.token && upstream.valid.has(hit.token)) return true;
  json(res, 400, { message: `invalid token ${hit.token ?? ''}`, accessToken: hit.token ?? null });
  return false;
}

export function sale(transactionId: number, partnerReference: string, status = 'Redeemed by Client'): SalesRecord {
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

export function apiConfig(baseUrl: string, overrides: Record<string, unknown> = {}): ApiConfig {
  return configSchema.parse({ api: { baseUrl, identifier: IDENTIFIER, secret: SECRET, ...overrides } }).api;
}

/** What the tests started (upstreams, clients, servers of their own): `closeScripted` stops them all. */
export const running: { close(): unknown }[] = [];

/** Stops every upstream and client `setup` started: call it from the test file's afterEach. */
export async function closeScripted(): Promise<void> {
  for (const thing of running.splice(0)) await thing.close();
}

export async function setup(handler: Handler, overrides: Record<string, unknown> = {}) {
  const upstream = await new Upstream(handler).start();
  running.push(upstream);
  const events: ClientEvent[] = [];
  const client = new PartnerApiClient(apiConfig(upstream.url, overrides), {
    limiter: new RateLimiter(1000),
    onEvent: (e) => events.push(e),
  });
  running.push(client);
  return { upstream, client, events };
}

/** Everything a test saw leave the client: no credential or token may be in it. */
export function expectNoSecrets(upstream: Upstream, texts: string[]): void {
  const all = texts.join('\n');
  expect(all).not.toContain(SECRET);
  expect(all).not.toContain(IDENTIFIER);
  for (const token of upstream.valid) expect(all).not.toContain(token);
  expect(all).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  expect(all).not.toMatch(/refresh-\d+-/);
}

export async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
