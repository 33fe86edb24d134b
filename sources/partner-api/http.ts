/**
 * One HTTP exchange with the upstream and the retry policy around it: every attempt waits for the rate limiter,
 * is counted, and times out after `api.timeoutMs`; 503 waits ≥ 1 s (jitter, or a longer Retry-After), counted
 * apart, up to `api.maxRateLimitedRetries`; other 5xx, timeouts, dropped connections and truncated bodies back off
 * exponentially up to `api.maxRetries`, then an UpstreamError. 2xx and 4xx answers go back to the caller.
 */
import { createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import dns, { type LookupOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { constants, createGzip } from 'node:zlib';
import type { ApiConfig } from '../../config/schema.js';
import { confirmLoopback, isLoopbackAddress } from '../../config/transport-security.js';
import { describeEndpoint, type Endpoint } from './endpoints.js';
import { quoteBody, UpstreamError } from './errors.js';
import type { ClientStats, EventSink } from './events.js';
import { JsonArrayCheck } from './json-array-check.js';
import type { RateLimiter } from './rate-limiter.js';

export interface HttpRequest {
  endpoint: Endpoint;
  url: URL;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

export interface HttpAnswer {
  status: number;
  /** The body as text (empty for a download, whose body went to the file). */
  text: string;
  /** The parsed body of a 2xx answer (undefined when empty). */
  json?: unknown;
  /** When the answer's headers arrived. */
  receivedAt: Date;
  download?: DownloadResult;
}

/** Where a 2xx body is streamed, and an optional stage that rewrites it on the way (a fresh one per attempt). */
export interface DownloadTarget {
  filePath: string;
  rewrite?: () => Transform;
}

export interface DownloadResult {
  /** Bytes of the body as received. */
  bytes: number;
  /** Bytes of the gzip file. */
  fileBytes: number;
  /** Elements of the JSON array. */
  records: number;
  fetchedAt: Date;
}

export type FailureKind = 'rate_limited' | 'server_error' | 'timeout' | 'dropped' | 'unreachable';

/** net.connect's `lookup` callback: one address, or all of them when asked with `all`. */
type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address?: string | dns.LookupAddress[],
  family?: number,
) => void;

/** One attempt that did not get a usable answer; the retry policy decides what happens next. */
export class AttemptFailure extends Error {
  override name = 'AttemptFailure';
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    readonly body?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** Whether the upstream may have acted on the request (a 503 is a clear "not processed"). */
  get ambiguous(): boolean {
    return this.kind !== 'rate_limited' && this.kind !== 'unreachable';
  }
}

const droppedCodes = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'ETIMEDOUT',
]);
const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Largest error body read into memory for an error message (the rest is not read). */
const maxErrorBodyBytes = 64 * 1024;

/** Backoff before retry number `n` (1-based): 250 ms doubling up to 8 s, with "equal jitter" (half random). */
function backoffMs(n: number): number {
  const ceiling = Math.min(8_000, 250 * 2 ** (n - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** The wait after a 503: at least a second (or the Retry-After asked for), plus up to half a second of jitter. */
function rateLimitedWaitMs(retryAfterMs?: number): number {
  return Math.max(1_000, retryAfterMs ?? 0) + Math.round(Math.random() * 500);
}

export class Transport {
  // Plain http is allowed to loopback only: every connection's lookup must give loopback addresses, so a
  // name checked once cannot resolve elsewhere later (issue 18).
  private readonly httpAgent = new http.Agent({
    keepAlive: true,
    maxSockets: 256,
    lookup: (host: string, options: LookupOptions, callback: LookupCallback) =>
      this.loopbackLookup(host, options, callback),
  } as http.AgentOptions);
  /** The check of a plain-http baseUrl's host by its addresses, made before the first request. */
  private plainHttpChecked: Promise<unknown> | undefined;
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

  constructor(
    private readonly api: ApiConfig,
    private readonly limiter: RateLimiter,
    private readonly stats: ClientStats,
    private readonly emit: EventSink,
    /** Values to redact from any body quoted in an error (credentials, tokens). */
    private readonly secrets: () => Iterable<string>,
  ) {}

  /**
   * Runs `attempt` until it returns, retrying AttemptFailures as the policy says. `attempt` receives the
   * previous failure, so a write can look itself up before being sent again.
   */
  async retrying<T>(endpoint: Endpoint, attempt: (previous?: AttemptFailure) => Promise<T>): Promise<T> {
    let failures = 0;
    let rateLimitedInARow = 0;
    let previous: AttemptFailure | undefined;
    for (let attemptNumber = 1; ; attemptNumber++) {
      try {
        return await attempt(previous);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        previous = error;
        if (error.kind === 'rate_limited') {
          this.stats.rateLimited++;
          if (++rateLimitedInARow > this.api.maxRateLimitedRetries)
            throw this.gaveUp(endpoint, error, rateLimitedInARow - 1);
          const delayMs = rateLimitedWaitMs(error.retryAfterMs);
          this.emit({ type: 'rate_limited', endpoint: endpoint.name, attempt: attemptNumber, delayMs });
          await sleep(delayMs);
          continue;
        }
        rateLimitedInARow = 0;
        if (++failures > this.api.maxRetries) throw this.gaveUp(endpoint, error, failures - 1);
        this.stats.retries++;
        const delayMs = backoffMs(failures);
        this.emit({ type: 'retry', endpoint: endpoint.name, attempt: attemptNumber, reason: error.message, delayMs });
        await sleep(delayMs);
      }
    }
  }

  /**
   * One attempt. Returns 2xx (JSON parsed) and 4xx answers; throws AttemptFailure for 503, other 5xx,
   * timeouts, dropped connections and unparseable 2xx bodies. With `download`, a 2xx body is streamed
   * gzip-compressed to that file (temporary name, renamed once complete and checked).
   */
  async exchange(request: HttpRequest, download?: DownloadTarget): Promise<HttpAnswer> {
    await this.limiter.acquire();
    this.stats.requests++;
    return this.send(request, async (response, receivedAt) => {
      const status = response.statusCode ?? 0;
      if (download && status >= 200 && status < 300) {
        return { status, text: '', receivedAt, download: await this.streamToFile(response, download, receivedAt) };
      }
      const success = status >= 200 && status < 300;
      const { text, truncated } = await readText(response, success ? this.api.maxAnswerBytes : maxErrorBodyBytes);
      if (success && truncated) {
        throw new UpstreamError(
          `${describeEndpoint(request.endpoint)} at ${new URL(this.api.baseUrl).origin} answered more than api.maxAnswerBytes (${this.api.maxAnswerBytes} bytes): the answer was refused, not read.`,
          {
            endpoint: request.endpoint.name,
            status,
            hint: 'Such an answer is a few kilobytes: check that api.baseUrl and api.endpoints point at the partner API. Raise api.maxAnswerBytes only if the answer is genuinely that large.',
          },
        );
      }
      // The spec's answer over the limit is 503; 429 is the usual one elsewhere and means the same.
      if (status === 503 || status === 429) {
        throw new AttemptFailure('rate_limited', `${status} (rate limited)`, status, text, retryAfterMs(response));
      }
      if (status >= 500) {
        throw new AttemptFailure(
          'server_error',
          `answered ${status}: ${quoteBody(text, this.secrets()) || '(no body)'}`,
          status,
          text,
        );
      }
      if (status < 200 || status >= 300) return { status, text, receivedAt };
      if (text.trim() === '') return { status, text, receivedAt };
      try {
        return { status, text, json: JSON.parse(text) as unknown, receivedAt };
      } catch {
        throw new AttemptFailure('dropped', `the ${text.length}-character body is not valid JSON (truncated?)`, status);
      }
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private gaveUp(endpoint: Endpoint, failure: AttemptFailure, retries: number): UpstreamError {
    const where = `${describeEndpoint(endpoint)} at ${new URL(this.api.baseUrl).origin}`;
    const body = failure.body === undefined ? undefined : quoteBody(failure.body, this.secrets());
    const details = { endpoint: endpoint.name, status: failure.status, body, cause: failure };
    switch (failure.kind) {
      case 'rate_limited':
        return new UpstreamError(`${where} was still answered 503 (rate limited) after ${retries} waits.`, {
          ...details,
          hint: 'The 50/s limit is shared with the live shop: lower api.maxRequestsPerSecond or run the job later.',
        });
      case 'timeout':
        return new UpstreamError(
          `${where} gave no answer within api.timeoutMs (${this.api.timeoutMs} ms), ${retries + 1} times.`,
          {
            ...details,
            hint: 'The upstream is slow or down: try again later, or raise api.timeoutMs.',
          },
        );
      case 'unreachable':
        return new UpstreamError(`${where} could not be reached (${failure.message}), ${retries + 1} times.`, {
          ...details,
          hint: 'Check api.baseUrl (env PINRECON_API_BASE_URL) and that the upstream is up.',
        });
      default:
        return new UpstreamError(`${where} failed after ${retries} retries: ${failure.message}`, {
          ...details,
          hint: 'The upstream is failing; try again later (a re-run resumes where this one stopped). Raise api.maxRetries to insist longer.',
        });
    }
  }

  /**
   * dns.lookup for plain-http connections: unless api.allowInsecureHttp, an answer holding an address that
   * is not loopback fails the connection (the config allowed http:// because the host claimed loopback).
   */
  private loopbackLookup(host: string, options: LookupOptions, callback: LookupCallback): void {
    dns.lookup(host, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      if (!this.api.allowInsecureHttp && !addresses.every((entry) => isLoopbackAddress(entry.address))) {
        const found = addresses.map((a) => a.address).join(', ');
        return callback(
          Object.assign(new Error(`${host} resolves to ${found}, not loopback`), { code: 'ENOTLOOPBACK' }),
        );
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' }));
      callback(null, first.address, first.family);
    });
  }

  /** Before the first plain-http request: the baseUrl's host must resolve to loopback only (ConfigError naming the key). */
  private confirmPlainHttp(url: URL): Promise<unknown> {
    if (url.protocol !== 'http:' || this.api.allowInsecureHttp) return Promise.resolve();
    this.plainHttpChecked ??= confirmLoopback(url.hostname, 'api.baseUrl', 'api.allowInsecureHttp');
    return this.plainHttpChecked;
  }

  /** Sends one request and hands the response to `consume`, failing when nothing arrives for timeoutMs. */
  private async send<R>(
    request: HttpRequest,
    consume: (response: IncomingMessage, receivedAt: Date) => Promise<R>,
  ): Promise<R> {
    await this.confirmPlainHttp(request.url);
    const { url } = request;
    const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    const headers: Record<string, string | number> = { accept: 'application/json', ...request.headers };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
    const secure = url.protocol === 'https:';
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      let timedOut = false;
      let watchdog: NodeJS.Timeout | undefined;
      const finish = (error: unknown, value?: R) => {
        clearTimeout(watchdog);
        if (settled) return;
        settled = true;
        if (error)
          reject(
            timedOut
              ? new AttemptFailure('timeout', `no answer for ${this.api.timeoutMs} ms`)
              : asAttemptFailure(error),
          );
        else resolve(value as R);
      };
      const outgoing = (secure ? https : http).request(url, {
        method: request.endpoint.method,
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
      });
      // An idle timeout (re-armed by every chunk): a large download may take long, but never stalls.
      const rearm = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          timedOut = true;
          outgoing.destroy(new Error('timeout'));
        }, this.api.timeoutMs);
      };
      rearm();
      outgoing.on('error', (error) => finish(error));
      outgoing.on('response', (response) => {
        rearm();
        response.on('data', rearm);
        response.on('aborted', () =>
          finish(new AttemptFailure('dropped', 'the connection closed before the body was complete')),
        );
        consume(response, new Date()).then(
          (value) => finish(undefined, value),
          (error: unknown) => {
            response.destroy();
            finish(error);
          },
        );
      });
      outgoing.end(payload);
    });
  }

  private async streamToFile(
    response: IncomingMessage,
    target: DownloadTarget,
    fetchedAt: Date,
  ): Promise<DownloadResult> {
    const filePath = target.filePath;
    mkdirSync(path.dirname(filePath), { recursive: true });
    const temporary = `${filePath}.part-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const check = new JsonArrayCheck();
    const file = createWriteStream(temporary);
    try {
      // The rewrite (security.keys: masking the PINs) runs before the gzip: its input never reaches the disk.
      // Level 1: a month-end lands ~1.5 GB of JSON; the default level 6 costs 50 % more CPU for ~15 % smaller files.
      const gzip = () => createGzip({ level: constants.Z_BEST_SPEED });
      if (target.rewrite) await pipeline(response, check, target.rewrite(), gzip(), file);
      else await pipeline(response, check, gzip(), file);
      renameSync(temporary, filePath);
    } catch (error) {
      // The file may still be opening when the body fails: remove it only once it is closed.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      rmSync(temporary, { force: true });
      // A body cut short (or never a JSON array) is retried; a local file-system failure is not.
      if (error instanceof AttemptFailure || isFileSystemError(error)) throw error;
      throw new AttemptFailure(
        'dropped',
        `download incomplete: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return { bytes: check.bytes, fileBytes: statSync(filePath).size, records: check.elements, fetchedAt };
  }
}

function isFileSystemError(error: unknown): boolean {
  const { code, syscall } = error as NodeJS.ErrnoException;
  return (
    !droppedCodes.has(code ?? '') && ['open', 'write', 'rename', 'mkdir', 'close', 'fsync'].includes(syscall ?? '')
  );
}

function asAttemptFailure(error: unknown): unknown {
  if (error instanceof AttemptFailure) return error;
  if (!(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && unreachableCodes.has(code)) return new AttemptFailure('unreachable', `${code}`);
  if ((code && droppedCodes.has(code)) || /socket hang up|premature close|aborted/i.test(error.message)) {
    return new AttemptFailure('dropped', `connection dropped (${code ?? error.message})`);
  }
  return error;
}

/**
 * Reads a body into memory, at most `limit` bytes: past it, stops reading (the connection is closed, so a
 * huge or endless answer costs neither memory nor time) and says it was truncated.
 */
async function readText(response: IncomingMessage, limit: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      // Closed on purpose: not a dropped connection to retry.
      response.removeAllListeners('aborted');
      response.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (!response.complete) throw new AttemptFailure('dropped', 'the connection closed before the body was complete');
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

function retryAfterMs(response: IncomingMessage): number | undefined {
  const header = response.headers['retry-after'];
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(seconds * 1000, 60_000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.min(Math.max(0, date - Date.now()), 60_000) : undefined;
}
