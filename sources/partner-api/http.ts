/**
 * One HTTP exchange with the provider: every attempt waits for the rate limiter, is counted, and times out when its
 * answer takes more than `api.timeoutMs` (a download: when an interval of it brings too little, or the whole
 * takes more than `api.downloadTimeoutMs`). 2xx and 4xx answers go
 * back to the caller (a 2xx body parsed, or streamed to a file); 503/429, other 5xx, timeouts, dropped connections
 * and cut bodies are AttemptFailures for the retry policy (retry-policy.ts). Plain http goes to loopback only
 * (plain-http-guard.ts). HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured (proxy.ts, issue 31).
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ApiConfig } from '../../config/schema.js';
import { pipeline } from 'node:stream';
import { AttemptFailure, asAttemptFailure } from './attempt-failure.js';
import { contentDecoding } from './content-encoding.js';
import { downloadToFile, type DownloadResult, type DownloadTarget } from './download-to-file.js';
import { describeEndpoint, type Endpoint } from './endpoints.js';
import { RawJson } from './exact-json.js';
import { quoteBody, ProviderError } from './errors.js';
import type { ClientStats } from './events.js';
import { PlainHttpGuard } from './plain-http-guard.js';
import { proxyAgentFor } from './proxy.js';
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

/** Largest error body read into memory for an error message (the rest is not read). */
const maxErrorBodyBytes = 64 * 1024;

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

export class Transport {
  private readonly plainHttp: PlainHttpGuard;
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });
  /** The tunnel through the environment's proxy to the baseUrl's origin, when one applies (issue 31). */
  private readonly proxyAgent: http.Agent | undefined;

  constructor(
    private readonly api: ApiConfig,
    private readonly limiter: RateLimiter,
    private readonly stats: ClientStats,
    /** Values to redact from any body quoted in an error (credentials, tokens). */
    private readonly secrets: () => Iterable<string>,
  ) {
    this.plainHttp = new PlainHttpGuard(api);
    // Every request goes to the baseUrl's origin, so one decision holds for the whole run.
    this.proxyAgent = URL.canParse(api.baseUrl)
      ? proxyAgentFor(new URL(api.baseUrl), api.allowInsecureHttp)
      : undefined;
  }

  /**
   * One attempt. Returns 2xx (JSON parsed) and 4xx answers; throws AttemptFailure for 503, other 5xx,
   * timeouts, dropped connections and unparseable 2xx bodies. With `download`, a 2xx body is streamed
   * gzip-compressed to that file (temporary name, renamed once complete and checked).
   */
  async exchange(request: HttpRequest, download?: DownloadTarget): Promise<HttpAnswer> {
    await this.limiter.acquire();
    this.stats.requests++;
    return this.send(
      request,
      async (response, receivedAt) => {
        const status = response.statusCode ?? 0;
        const success = isSuccess(status);
        if (download && success) {
          return { status, text: '', receivedAt, download: await downloadToFile(response, download, receivedAt) };
        }
        const { text, truncated } = await readText(response, success ? this.api.maxAnswerBytes : maxErrorBodyBytes);
        if (success && truncated) {
          throw new ProviderError(
            `${describeEndpoint(request.endpoint)} at ${new URL(this.api.baseUrl).origin} answered more than ` +
              `api.maxAnswerBytes (${this.api.maxAnswerBytes} bytes): the answer was refused, not read.`,
            {
              endpoint: request.endpoint.name,
              status,
              hint:
                'Such an answer is a few kilobytes: ' +
                'check that api.baseUrl and api.endpoints point at the provider API. ' +
                'Raise api.maxAnswerBytes only if the answer is genuinely that large.',
            },
          );
        }
        // The provider's answer over the limit is 503; 429 is the usual one elsewhere and means the same.
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
        if (!success) return { status, text, receivedAt };
        if (text.trim() === '') return { status, text, receivedAt };
        try {
          return { status, text, json: JSON.parse(text) as unknown, receivedAt };
        } catch {
          throw new AttemptFailure(
            'dropped',
            `the ${text.length}-character body is not valid JSON (truncated?)`,
            status,
          );
        }
      },
      download !== undefined,
    );
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.plainHttp.agent.destroy();
    this.httpsAgent.destroy();
    this.proxyAgent?.destroy();
  }

  /**
   * Sends one request and hands the response to `consume`, failing when the whole answer takes more than timeoutMs
   * (`streaming`: when an interval of timeoutMs brings too few bytes, or the whole takes over downloadTimeoutMs).
   */
  private async send<R>(
    request: HttpRequest,
    consume: (response: IncomingMessage, receivedAt: Date) => Promise<R>,
    streaming: boolean,
  ): Promise<R> {
    await this.plainHttp.confirm(request.url);
    const { url } = request;
    const body = request.body instanceof RawJson ? request.body.text : JSON.stringify(request.body);
    const payload = request.body === undefined ? undefined : Buffer.from(body);
    const headers: Record<string, string | number> = { accept: 'application/json', ...request.headers };
    // A window's sales are hundreds of megabytes of JSON: asked for gzip-encoded (content-encoding.ts decodes it),
    // a sixth of the bytes on the wire, from a provider that can.
    if (streaming) headers['accept-encoding'] = 'gzip';
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
    const secure = url.protocol === 'https:';
    const { timeoutMs, downloadTimeoutMs, minDownloadBytesPerSecond } = this.api;
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      let timedOut: AttemptFailure | undefined;
      const timers: NodeJS.Timeout[] = [];
      // The consumer's own clean-up (a download's temporary file) ends before the failure is told.
      let consuming: Promise<R> | undefined;
      const finish = (error: unknown, value?: R) => {
        for (const timer of timers) clearInterval(timer);
        if (settled) return;
        settled = true;
        if (!error) return resolve(value as R);
        const failure = timedOut ?? asAttemptFailure(error);
        const tell = () => reject(failure);
        if (consuming) consuming.then(tell, tell);
        else tell();
      };
      const outgoing = (secure ? https : http).request(url, {
        method: request.endpoint.method,
        headers,
        agent: this.proxyAgent ?? (secure ? this.httpsAgent : this.plainHttp.agent),
      });
      const cut = (why: string, kind: 'timeout' | 'slow_download' = 'timeout') => {
        timedOut = new AttemptFailure(kind, why);
        outgoing.destroy(new Error('timeout'));
      };
      // Issue 34: no answer may be held open by a provider trickling bytes. An ordinary answer has timeoutMs for
      // the whole of it; a download (a window's sales, large by nature) has downloadTimeoutMs for the whole, and
      // every interval of timeoutMs must bring minDownloadBytesPerSecond × the interval (a byte every 3 s re-armed
      // a per-chunk idle timeout for ever).
      if (!streaming) timers.push(setTimeout(() => cut(`no complete answer within ${timeoutMs} ms`), timeoutMs));
      else {
        const whole = () => cut(`no complete download within ${downloadTimeoutMs} ms`, 'slow_download');
        timers.push(setTimeout(whole, downloadTimeoutMs));
        const minBytes = Math.max(1, Math.ceil((minDownloadBytesPerSecond * timeoutMs) / 1000));
        let received = 0;
        // Counted until the last byte: writing it to disk afterwards (gzip, close) is not the provider's slowness.
        let rate: NodeJS.Timeout | undefined;
        outgoing.on('response', (response) => {
          response.on('data', (chunk: Buffer) => (received += chunk.length));
          response.on('end', () => clearInterval(rate));
        });
        const check = () => {
          if (received === 0) return cut(`no answer for ${timeoutMs} ms`);
          if (received < minBytes)
            return cut(
              `only ${received} byte(s) in ${timeoutMs} ms (a download needs ${minBytes}: ` +
                `api.minDownloadBytesPerSecond ${minDownloadBytesPerSecond})`,
              'slow_download',
            );
          received = 0;
        };
        rate = setInterval(check, timeoutMs);
        timers.push(rate);
      }
      outgoing.on('error', (error) => finish(error));
      outgoing.on('response', (response) => {
        response.on('aborted', () =>
          finish(new AttemptFailure('dropped', 'the connection closed before the body was complete')),
        );
        consuming = consume(response, new Date());
        consuming.then(
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
}

/**
 * Reads a body into memory, at most `limit` bytes: past it, stops reading (the connection is closed, so a
 * huge or endless answer costs neither memory nor time) and says it was truncated.
 */
async function readText(response: IncomingMessage, limit: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  // A compressed answer (a download's error) is read decoded, its limit counting the decoded bytes; a gzip cut short
  // fails the read like a cut body.
  const [gunzip] = contentDecoding(response) ?? [];
  const body = gunzip ? pipeline(response, gunzip, () => undefined) : response;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      // Closed on purpose: not a dropped connection to retry.
      response.removeAllListeners('aborted');
      response.destroy();
      gunzip?.destroy();
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
