/**
 * The one way every operation is sent: in its turn in the process-wide request queue, with a token from the auth
 * session, through the rate limiter and the retry policy. A refused call is told from a revoked token by a canary
 * (token-canary.ts) and a revoked token renewed (at most 3 times); a write is never blindly repeated: after a
 * failure without a clear answer it is looked up first, and what is found is the answer.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiConfig, EndpointName } from '../../config/schema.js';
import { daysInclusive } from '../../core/calendar.js';
import { AuthSession } from './auth-session.js';
import type { AttemptFailure } from './attempt-failure.js';
import type { DownloadTarget } from './download-to-file.js';
import {
  catalogQuery,
  describeEndpoint,
  expandEndpoint,
  type Endpoint,
  type PathParams,
  type QueryParams,
} from './endpoints.js';
import { quoteBody, ProviderError } from './errors.js';
import type { ClientStats, EventSink } from './events.js';
import { isSuccess, Transport, type HttpAnswer } from './http.js';
import type { RateLimiter } from './rate-limiter.js';
import { callKindOf, type RequestQueue } from './request-queue.js';
import { RetryPolicy } from './retry-policy.js';
import { TokenCanary } from './token-canary.js';

export interface Call {
  params?: PathParams;
  query?: QueryParams;
  body?: unknown;
  /** For writes: finds the result of an earlier attempt that may have gone through, or undefined. */
  lookup?: () => Promise<unknown>;
  download?: DownloadTarget;
  /** Sent once: an unclear failure is not retried (a reversal, issue 34; retry-policy.ts). */
  once?: boolean;
}

/** Token renewals for one call after the canary showed its token rejected, and the wait before each after the first. */
const maxRenewals = 3;
const renewalBackoffMs = 1_000;

/** Status answers after which the token may have been revoked (the provider answers every failure with 400). */
const rejections = new Set([400, 401, 403]);

export class AuthenticatedCaller {
  private readonly retry: RetryPolicy;
  private readonly transport: Transport;
  private readonly session: AuthSession;
  private readonly canary: TokenCanary;

  constructor(
    private readonly api: ApiConfig,
    private readonly endpoints: Record<EndpointName, Endpoint>,
    limiter: RateLimiter,
    private readonly queue: RequestQueue,
    stats: ClientStats,
    private readonly emit: EventSink,
  ) {
    this.retry = new RetryPolicy(api, stats, emit, () => this.session.secrets);
    this.transport = new Transport(api, limiter, stats, () => this.session.secrets);
    this.session = new AuthSession(api, endpoints, this.transport, this.retry, stats, emit);
    this.canary = new TokenCanary((token) => this.tokenAccepted(token));
  }

  /** Every credential and token of the session, to redact from what is quoted. */
  get secrets(): Iterable<string> {
    return this.session.secrets;
  }

  /**
   * Sends an authenticated call through the request queue, with retries. A refusal (400/401/403) may mean
   * the request is wrong or the token was revoked (the provider answers both with 400): the token canary tells
   * which. A real refusal is a ProviderError with the body at once — or, with `absent`, "no such record"
   * (a 404 too), returned for the caller to read as empty: one request per unknown reference. A revoked
   * token is renewed and the call sent again, up to `maxRenewals` times, at least `renewalBackoffMs` apart.
   */
  async call(name: EndpointName, call: Call, options: { absent?: boolean } = {}): Promise<HttpAnswer> {
    const endpoint = this.endpoints[name];
    const url = expandEndpoint(this.api.baseUrl, endpoint, call.params, call.query);
    for (let renewals = 0; ; renewals++) {
      let usedToken = '';
      let sentAt = 0;
      let unclear = false;
      const answer = await this.queue.run(callKindOf(name), () =>
        this.retry.run(
          endpoint,
          async (previous?: AttemptFailure) => {
            unclear ||= previous?.ambiguous === true;
            if (unclear && call.lookup) {
              const found = await this.checkWrite(endpoint, call.lookup);
              if (found) return found;
            }
            usedToken = await this.session.accessToken();
            sentAt = performance.now();
            const request = { endpoint, url, headers: { authorization: `Bearer ${usedToken}` }, body: call.body };
            return this.transport.exchange(request, call.download);
          },
          { once: call.once },
        ),
      );
      if (isSuccess(answer.status)) {
        this.canary.accepted(usedToken, sentAt);
        return answer;
      }
      if (options.absent && answer.status === 404) return { ...answer, json: undefined };
      const refusedForReal = !rejections.has(answer.status) || !usedToken || (await this.canary.refused(usedToken));
      if (!refusedForReal) {
        if (renewals >= maxRenewals) throw this.keptRejecting(name, answer, renewals);
        if (renewals > 0) await sleep(renewalBackoffMs);
        this.emit({ type: 'reauthenticated', endpoint: name, status: answer.status });
        await this.session.renewAfterRejection(usedToken);
        continue;
      }
      // A write refused after an unclear attempt may be refused because that attempt went through.
      if (unclear && call.lookup) {
        const found = await this.checkWrite(endpoint, call.lookup);
        if (found) return found;
      }
      if (options.absent && answer.status === 400) return { ...answer, json: undefined };
      const body = quoteBody(answer.text, this.session.secrets);
      throw new ProviderError(`${describeEndpoint(endpoint)} answered ${answer.status}: ${body || '(no body)'}`, {
        endpoint: name,
        status: answer.status,
        body,
        hint: hintFor(name, answer.status, call.params),
      });
    }
  }

  /** Closes idle connections. */
  close(): void {
    this.transport.close();
  }

  /** The canary: sends the cheapest read (the partner's collections) with exactly `token`. */
  private async tokenAccepted(token: string): Promise<boolean> {
    const endpoint = this.endpoints.partnerCollections;
    const url = expandEndpoint(this.api.baseUrl, endpoint, undefined, catalogQuery(this.api));
    const request = { endpoint, url, headers: { authorization: `Bearer ${token}` } };
    const answer = await this.queue.run('lookup', () =>
      this.retry.run(endpoint, () => this.transport.exchange(request)),
    );
    if (isSuccess(answer.status)) return true;
    if (rejections.has(answer.status)) return false;
    const body = quoteBody(answer.text, this.session.secrets);
    throw new ProviderError(
      `${describeEndpoint(endpoint)} answered ${answer.status} to the check that a refused ` +
        `call's token is still valid: ${body || '(no body)'}`,
      {
        endpoint: 'partnerCollections',
        status: answer.status,
        body,
        hint:
          'pinrecon calls api.endpoints.partnerCollections to tell a refused request from a revoked token: ' +
          'check that endpoint.',
      },
    );
  }

  private keptRejecting(name: EndpointName, answer: HttpAnswer, renewals: number): ProviderError {
    const body = quoteBody(answer.text, this.session.secrets);
    return new ProviderError(
      `${describeEndpoint(this.endpoints[name])}: the provider kept rejecting the token — ${renewals + 1} tokens in ` +
        `a row, ${renewals} of them fresh, were refused (last answer ${answer.status}: ${body || 'no body'}).`,
      {
        endpoint: name,
        status: answer.status,
        body,
        hint:
          'Another process may be logging in with the same credentials (each login can revoke the tokens before it): ' +
          'make sure only one client uses api.identifier at a time, then re-run.',
      },
    );
  }

  /** Looks a write up after an unclear answer (said as a `write_checked` event); its result as an answer, if found. */
  async checkWrite(endpoint: Endpoint, lookup: () => Promise<unknown>): Promise<HttpAnswer | undefined> {
    const found = await lookup();
    this.emit({ type: 'write_checked', endpoint: endpoint.name, found: found !== undefined });
    return found === undefined ? undefined : { status: 200, text: '', json: found, receivedAt: new Date() };
  }
}

function hintFor(name: EndpointName, status: number, params: PathParams = {}): string {
  if (status === 404) return `The provider has no such path: check api.endpoints.${name}.`;
  if (name === 'salesByPeriod') {
    const days = daysInclusive(String(params.startDate), String(params.finishDate));
    // The 31-day rule is named only when it can be the reason.
    if (days > 31)
      return (
        `The window ${params.startDate}..${params.finishDate} is ${days} days; ` +
        `the provider allows at most 31: lower extract.maxWindowDays.`
      );
    return (
      `The provider refused the window ${params.startDate}..${params.finishDate} (${days} days) with a valid token; ` +
      `its answer says why (run with --debug to keep it). ` +
      `If it allows fewer days, lower extract.maxWindowDays; else check api.endpoints.salesByPeriod.`
    );
  }
  return `The provider refused the request with a valid token; check the request and api.endpoints.${name}.`;
}
