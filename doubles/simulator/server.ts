/**
 * A local server of the whole Partner PIN Redemption API for tests, benchmarks and `pinrecon demo`: the 16
 * operations at configurable paths, JWT auth with refresh and revocation, the rolling-second limit (503), the
 * 31-day rule and seeded fault injection. Refusals are 400 `{ "message", "code" }`; sales lists are streamed
 * with backpressure, so a million-sale window keeps memory flat; a pre-redeem's `redirectLink` points at a
 * minimal redeem page outside the rate limit.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { EndpointName } from '../../config/schema.js';
import { Dataset } from './dataset.js';
import { defaultDatasetOptions, type DatasetOptions } from './sale-generator.js';
import { Rejection } from './rejection.js';
import { Router } from './routes.js';
import { TokenAuthority } from './tokens.js';
import { FaultInjector, SlidingWindowLimiter, type FaultDecision, type FaultOptions } from './traffic.js';
import { ZonedClock } from '../../core/zoned-time.js';
import { escapeHtml } from '../../core/text-safety.js';
import { readJsonBody, sendJson, streamSales } from './http-wire.js';
import { simulatorOperations, type Call, type Reply } from './operations.js';
import { KeptResponses } from './kept-responses.js';

export type { FaultOptions } from './traffic.js';
export { Dataset } from './dataset.js';
export { generateSale, wireRecord, type DatasetOptions, type SimulatedSale } from './sale-generator.js';

export interface SimulatorOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Seeds the data set and the fault sequence. Default 1. */
  seed?: number;
  /** Default 'demo-partner'. */
  identifier?: string;
  /** Default 'demo-secret'. */
  secret?: string;
  /** "METHOD /path/{param}" per operation, as config `api.endpoints` (default: `defaultEndpoints`). */
  endpoints?: Partial<Record<EndpointName, string>>;
  /** Default: from the first day of last month to today, 400 sales a day. */
  dataset?: DatasetOptions;
  /** Access-token lifetime. Default 3600. */
  tokenLifetimeSeconds?: number;
  /** Refresh-token lifetime. Default max(86400, 2 × tokenLifetimeSeconds). */
  refreshTokenLifetimeSeconds?: number;
  /** The clock tokens expire by, in epoch ms (default Date.now): a test moves it instead of waiting. */
  tokenClock?: () => number;
  /** Requests accepted in any rolling second; beyond → 503. Default 50. */
  rateLimitPerSecond?: number;
  /** Longest sales period, days inclusive. Default 31. */
  maxPeriodDays?: number;
  /** All rates default to 0. */
  faults?: FaultOptions;
  /** Called once per request after it is answered (no headers, so no tokens). */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * Milliseconds a reversal's answer waits after the reversal took effect (default 0): a test kills the
   * client inside that wait to see a crash between "the provider reversed" and "we recorded it".
   */
  reversalAnswerDelayMs?: number;
  /** Folder where salesByPeriod answers are kept (kept-responses.ts); default none: every answer generated. */
  keepResponsesDir?: string;
}

export interface RequestLogEntry {
  method: string;
  /** Path and query string as requested. */
  path: string;
  endpoint?: EndpointName;
  /** 0 for a dropped connection. */
  status: number;
  ms: number;
  /** Error code, or the injected fault. */
  note?: string;
}

export interface SimulatorStats {
  /** Every request received, including refused ones. */
  requests: number;
  byEndpoint: Partial<Record<EndpointName, number>>;
  /** Answered 503 by the rate limit. */
  rateLimited: number;
  injected503: number;
  injected500: number;
  dropped: number;
  slowed: number;
  /** The most requests accepted (served) within any rolling 1000 ms. */
  maxInAnyRollingSecond: number;
  tokensIssued: number;
  refreshes: number;
  revocations: number;
  /** Reversal requests (by transaction id or partner reference) that reached the operation, refused ones included. */
  reversals: number;
  /** Of those, refused with 400 (e.g. already reversed, unknown transaction). */
  reversalsRefused: number;
  /** With keepResponsesDir: period answers rendered into it, and served from it. */
  keptRendered: number;
  keptReplayed: number;
}

export interface RunningSimulator {
  /** 'http://127.0.0.1:PORT' */
  url: string;
  dataset: Dataset;
  stats(): SimulatorStats;
  revokeAllTokens(): void;
  setFaults(faults: FaultOptions): void;
  /** Changes `reversalAnswerDelayMs` of a running simulator. */
  setReversalAnswerDelay(ms: number): void;
  close(): Promise<void>;
}

/** The operations that reverse a sale (counted in the stats). */
const reversals = new Set<EndpointName>(['reverseByTransactionId', 'reverseByPartnerReference']);

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const seed = options.seed ?? 1;
  const timezone = options.dataset?.timezone ?? 'America/Sao_Paulo';
  const dataset = new Dataset({ ...(options.dataset ?? defaultDatasetOptions(timezone)), seed, timezone });
  const tokens = new TokenAuthority({
    identifier: options.identifier ?? 'demo-partner',
    secret: options.secret ?? 'demo-secret',
    lifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    refreshLifetimeSeconds: options.refreshTokenLifetimeSeconds,
    clock: new ZonedClock(timezone),
    ...(options.tokenClock && { now: options.tokenClock }),
  });
  let url = '';
  const state: SimulatorState = {
    options,
    dataset,
    router: new Router(options.endpoints),
    tokens,
    limiter: new SlidingWindowLimiter(options.rateLimitPerSecond ?? 50),
    faults: new FaultInjector(seed, options.faults),
    counters: {
      requests: 0,
      rateLimited: 0,
      injected503: 0,
      injected500: 0,
      dropped: 0,
      slowed: 0,
      revocations: 0,
      reversals: 0,
      reversalsRefused: 0,
    },
    reversalAnswerDelayMs: options.reversalAnswerDelayMs ?? 0,
    kept: options.keepResponsesDir ? new KeptResponses(options.keepResponsesDir, dataset.options) : undefined,
    byEndpoint: {},
    operations: simulatorOperations(
      dataset,
      tokens,
      options.maxPeriodDays ?? 31,
      () => url,
      () => afterLogin(),
    ),
  };
  const revocation = tokenRevocation(state);
  /** Successful logins so far: the revokeAfterLogins fault revokes every token right after the listed ones. */
  let logins = 0;
  const afterLogin = () => {
    logins++;
    if (state.faults.faults.revokeAfterLogins?.includes(logins)) revocation.revokeAll();
  };

  const server = createServer({ keepAlive: true }, (request, response) => {
    handleRequest(state, request, response).catch((error: unknown) => {
      // A bug in the simulator: answer 500 rather than hang the client.
      if (!response.headersSent)
        sendJson(response, 500, { message: `Simulator error: ${(error as Error).message}`, code: 'simulator_error' });
      else response.destroy();
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    dataset,
    stats: () => ({
      ...state.counters,
      byEndpoint: { ...state.byEndpoint },
      maxInAnyRollingSecond: state.limiter.maxInAnyWindow,
      tokensIssued: tokens.issued,
      refreshes: tokens.refreshes,
      keptRendered: state.kept?.rendered ?? 0,
      keptReplayed: state.kept?.replayed ?? 0,
    }),
    revokeAllTokens: revocation.revokeAll,
    setFaults(next: FaultOptions) {
      state.faults.set(next);
      revocation.schedule();
    },
    setReversalAnswerDelay(ms: number) {
      state.reversalAnswerDelayMs = ms;
    },
    close: async () => {
      revocation.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** What a running simulator's request handling shares. */
interface SimulatorState {
  options: SimulatorOptions;
  dataset: Dataset;
  router: Router;
  tokens: TokenAuthority;
  limiter: SlidingWindowLimiter;
  faults: FaultInjector;
  counters: Omit<
    SimulatorStats,
    'byEndpoint' | 'maxInAnyRollingSecond' | 'tokensIssued' | 'refreshes' | 'keptRendered' | 'keptReplayed'
  >;
  byEndpoint: Partial<Record<EndpointName, number>>;
  operations: Record<EndpointName, (call: Call) => Reply>;
  reversalAnswerDelayMs: number;
  kept: KeptResponses | undefined;
}

/** Revoking every token, now or every `faults.revokeEverySeconds` (re-read when the faults change). */
function tokenRevocation(state: SimulatorState): { revokeAll: () => void; schedule: () => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const revokeAll = () => {
    state.tokens.revokeAll();
    state.counters.revocations++;
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const schedule = () => {
    stop();
    const every = state.faults.faults.revokeEverySeconds ?? 0;
    if (every > 0) timer = setInterval(revokeAll, every * 1000).unref();
  };
  schedule();
  return { revokeAll, schedule, stop };
}

/**
 * One request, in the service's order: the redeem page (outside the limit), then the rate limit, injected
 * faults, routing, auth, and the operation's reply (JSON, or sales streamed). Every request is logged once.
 */
async function handleRequest(state: SimulatorState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { options, counters } = state;
  const started = performance.now();
  counters.requests++;
  const requestUrl = new URL(request.url ?? '/', 'http://simulator.invalid');
  const log = (status: number, endpoint?: EndpointName, note?: string) =>
    options.onRequest?.({
      method: request.method ?? '',
      path: request.url ?? '',
      endpoint,
      status,
      ms: Math.round(performance.now() - started),
      note,
    });

  if (/^\/redeem\/\d+$/.test(requestUrl.pathname)) return redeemPage(state.dataset, request, response, requestUrl, log);

  const match = state.router.match(request.method ?? '', requestUrl);
  if (match) state.byEndpoint[match.name] = (state.byEndpoint[match.name] ?? 0) + 1;
  if (!state.limiter.tryAccept()) {
    counters.rateLimited++;
    response.setHeader('Retry-After', '1');
    sendJson(response, 503, {
      message: `Too many requests: at most ${options.rateLimitPerSecond ?? 50} per second.`,
      code: 'rate_limited',
    });
    return log(503, match?.name, 'rate_limited');
  }
  const fate: FaultDecision = state.faults.decide();
  if (fate.delayMs > 0) {
    counters.slowed++;
    await delay(fate.delayMs);
  }
  if (fate.drop === 'before-response') {
    counters.dropped++;
    request.socket.destroy();
    return log(0, match?.name, 'dropped before response');
  }
  if (fate.status) {
    counters[fate.status === 503 ? 'injected503' : 'injected500']++;
    const body =
      fate.status === 503
        ? { message: 'Service temporarily unavailable.', code: 'unavailable' }
        : { message: 'Internal server error.', code: 'internal_error' };
    sendJson(response, fate.status, body);
    return log(fate.status, match?.name, `injected ${fate.status}`);
  }
  const dropMidResponse = fate.drop === 'mid-response';
  if (dropMidResponse) counters.dropped++;

  if (!match) {
    sendJson(
      response,
      404,
      { message: `No operation at ${request.method} ${requestUrl.pathname}.`, code: 'not_found' },
      dropMidResponse,
    );
    return log(404, undefined, 'not_found');
  }
  let reply: Reply;
  try {
    const body = await readJsonBody(request);
    if (match.name !== 'getToken' && match.name !== 'refreshToken') state.tokens.verify(request.headers.authorization);
    if (reversals.has(match.name)) counters.reversals++;
    reply = state.operations[match.name]({ params: match.params, query: match.query, body });
  } catch (error) {
    if (!(error instanceof Rejection)) throw error;
    if (reversals.has(match.name) && error.status === 400) counters.reversalsRefused++;
    sendJson(response, error.status, { message: error.message, code: error.code }, dropMidResponse);
    return log(error.status, match.name, error.code);
  }
  // The reversal has taken effect; only its answer waits (a client killed now never learns of it).
  if (reversals.has(match.name) && state.reversalAnswerDelayMs > 0) await delay(state.reversalAnswerDelayMs);
  if ('json' in reply) sendJson(response, 200, reply.json, dropMidResponse);
  // A kept answer holds the data set as generated: once the API changed a sale, answers are generated again.
  else if (reply.window && state.kept && state.dataset.revision === 0 && !dropMidResponse)
    await state.kept.serve(response, reply.window, reply.sales, acceptsGzip(request));
  else await streamSales(response, reply.sales, dropMidResponse);
  log(dropMidResponse ? 0 : 200, match.name, dropMidResponse ? 'dropped mid-response' : undefined);
}

/** Whether the client asked for a gzip-encoded answer (`Accept-Encoding: gzip`, not refused with q=0). */
function acceptsGzip(request: IncomingMessage): boolean {
  const accepted = String(request.headers['accept-encoding'] ?? '').toLowerCase();
  return accepted.split(',').some((part) => {
    const [name, ...parameters] = part.trim().split(';');
    return name === 'gzip' && !parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(parameter));
  });
}

/** The service's redeem page: GET shows the transaction, POST completes the redemption. */
async function redeemPage(
  dataset: Dataset,
  request: IncomingMessage,
  response: ServerResponse,
  requestUrl: URL,
  log: (status: number) => void,
) {
  const id = Number(requestUrl.pathname.split('/')[2]);
  try {
    if (request.method === 'POST') {
      await readJsonBody(request);
      const sale = dataset.redeem(id);
      sendJson(response, 200, { message: 'Redeemed.', status: sale.status, transactionId: id });
      return log(200);
    }
    const sale = dataset.saleByTransactionId(id);
    if (!sale) throw new Rejection('unknown_transaction', `Transaction ${id} does not exist.`);
    const html =
      `<!doctype html><meta charset="utf-8"><title>Redeem</title><h1>${escapeHtml(sale.productName)}</h1>` +
      `<p>Status: ${escapeHtml(sale.status)}</p><form method="post"><button>Redeem</button></form>`;
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    log(200);
  } catch (error) {
    if (!(error instanceof Rejection)) throw error;
    sendJson(response, error.status, { message: error.message, code: error.code });
    log(error.status);
  }
}
