/**
 * `pinrecon serve` (issue 32): the review page's server, on node:http (no framework: a dozen routes, and nothing to
 * update for years). Safe defaults after Datasette's: loopback only; a one-time token in the printed address,
 * traded on the first visit for an HttpOnly SameSite=Strict cookie; a CSRF token on every form; a Host check
 * against DNS rebinding; a strict Content-Security-Policy with the one bundled script and stylesheet; every page
 * with a `.json` twin. Requests run one at a time, each opening the database and closing it before the next
 * (routes.ts), so the page never holds the file a scheduled job needs.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import PQueue from 'p-queue';
import type { Config } from '../../config/schema.js';
import { reviewCss, reviewJs } from '../../reports/page/assets.js';
import type { ActorFor } from './acts.js';
import { route, type Answer } from './routes.js';

export interface ReviewOptions {
  config: Config;
  host: string;
  port: number;
  /** The name the page acts as (the identity's person, or the typed name). */
  actorName: string;
  actorFor: ActorFor;
  /** The period shown when the address names none (default: the latest reconciled). */
  period?: string;
}

export interface ReviewServer {
  /** The address to open, with the token: the first line `serve` prints. */
  url: string;
  close(): Promise<void>;
}

/**
 * The cookie's name carries the port: browsers keep cookies per host, not per port, so two pages on this machine
 * (the maker's and the checker's `serve`) under one name would each overwrite the other's token.
 */
const cookieNameFor = (port: number) => `pinrecon_review_${port}`;
const assets: Record<string, { type: string; body: string }> = {
  '/assets/review.css': { type: 'text/css; charset=utf-8', body: reviewCss },
  '/assets/review.js': { type: 'text/javascript; charset=utf-8', body: reviewJs },
};
const maxBodyBytes = 1024 * 1024;

/** Loopback addresses only: the page acts as a person, so nobody else on the network may reach it. */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}

export async function startReviewServer(options: ReviewOptions): Promise<ReviewServer> {
  const token = randomBytes(24).toString('base64url');
  const csrf = createHmac('sha256', token).update('csrf').digest('base64url');
  const queue = new PQueue({ concurrency: 1 });
  let allowedHosts = new Set<string>();
  let cookieName = '';
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        send(response, 500, 'text/plain; charset=utf-8', `Internal error: ${(error as Error).message}`);
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (!allowedHosts.has(request.headers.host ?? ''))
      return send(response, 403, 'text/plain; charset=utf-8', 'Forbidden: this page answers only on its own address.');
    const given = url.searchParams.get('token');
    if (given !== null && request.method === 'GET' && same(given, token)) {
      // The token leaves the address bar (and the history) at once: a cookie carries it from here on.
      url.searchParams.delete('token');
      response.setHeader('Set-Cookie', `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`);
      return redirect(response, `${url.pathname === '/' ? '/overview' : url.pathname}${url.search}`);
    }
    if (!same(cookieOf(request, cookieName) ?? '', token))
      return send(response, 401, 'text/plain; charset=utf-8', 'Unauthorized: open the address pinrecon serve printed.');
    const asset = assets[url.pathname];
    if (asset && request.method === 'GET') return send(response, 200, asset.type, asset.body);
    let form: URLSearchParams | undefined;
    if (request.method === 'POST') {
      const body = await readBody(request);
      if (body === undefined)
        return send(response, 413, 'text/plain; charset=utf-8', 'Payload too large: a form is at most 1 MiB.');
      form = new URLSearchParams(body);
      if (!same(form.get('csrf') ?? '', csrf) || !sameOrigin(request.headers.origin, allowedHosts))
        return send(response, 403, 'text/plain; charset=utf-8', 'Forbidden: the form lacks its CSRF token.');
    } else if (request.method !== 'GET') {
      return send(response, 405, 'text/plain; charset=utf-8', 'Method not allowed.');
    }
    const answer: Answer = await queue.add(() =>
      route({ ...options, csrf }, request.method as 'GET' | 'POST', url, form),
    );
    if (answer.redirect) return redirect(response, answer.redirect);
    const json = answer.json !== undefined;
    const body = json ? JSON.stringify(answer.json, jsonValue, 2) : answer.html!;
    send(response, answer.status, json ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8', body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = options.host === '::1' ? '[::1]' : options.host === 'localhost' ? '127.0.0.1' : options.host;
  allowedHosts = new Set([`${shown}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]);
  cookieName = cookieNameFor(port);
  return {
    url: `http://${shown}:${port}/?token=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Compares two secrets in constant time (of their digests, so lengths may differ). */
function same(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** A browser's Origin of a form post, when it sends one, is this page's own (Referrer-Policy same-origin keeps it). */
function sameOrigin(origin: string | undefined, hosts: Set<string>): boolean {
  if (origin === undefined) return true;
  try {
    return hosts.has(new URL(origin).host);
  } catch {
    return false;
  }
}

function cookieOf(request: IncomingMessage, cookieName: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookieName) return value.join('=');
  }
  return undefined;
}

/**
 * The request's body as text, or undefined past `maxBodyBytes` (answered 413, not an internal error). The rest is
 * read and dropped rather than the stream left early, which would destroy the socket before the answer is sent; only
 * a holder of the cookie gets here.
 */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= maxBodyBytes) chunks.push(chunk as Buffer);
  }
  return size > maxBodyBytes ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** BigInts and DuckDB values as text in the JSON twins (money stays exact decimal text). */
function jsonValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    value.constructor?.name?.startsWith('DuckDB')
  )
    return String(value);
  return value;
}

const securityHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
    "base-uri 'none'; frame-ancestors 'none'; connect-src 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...securityHeaders, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { ...securityHeaders, Location: location });
  response.end();
}
