/**
 * The typed client for every operation of the upstream API (shared/spec/partner-pin-redemption-api.md).
 * Each call waits its turn in the process-wide request queue (priorities: writes, period windows, look-ups,
 * catalog), then goes through the auth session, the rate limiter and the retry policy; a refused call is
 * told from a revoked token by a canary (token-canary.ts) and a revoked token renewed (at most 3 times); writes (pre-redeem, reversals) are never blindly repeated: after a failure without
 * a clear answer the client looks the write up first and returns what it finds.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiConfig, EndpointName } from '../../config/schema.js';
import { AuthSession } from './auth-session.js';
import {
  describeEndpoint,
  expandEndpoint,
  parseEndpoints,
  type Endpoint,
  type PathParams,
  type QueryParams,
} from './endpoints.js';
import { quoteBody, UpstreamError } from './errors.js';
import { emptyStats, type ClientEvent, type ClientStats } from './events.js';
import type { Transform } from 'node:stream';
import { Transport, type AttemptFailure, type DownloadResult, type DownloadTarget, type HttpAnswer } from './http.js';
import { sharedRateLimiter, type RateLimiter } from './rate-limiter.js';
import { callKindOf, sharedRequestQueue, type RequestQueue } from './request-queue.js';
import { TokenCanary } from './token-canary.js';
import type {
  CatalogQuery,
  Collection,
  PreRedeemRequest,
  PreRedeemResponse,
  ProductDetail,
  ReversalResult,
  SalesRecord,
  StockStatus,
} from './types.js';

export { UpstreamError } from './errors.js';
export { describeClientEvent, type ClientEvent, type ClientStats } from './events.js';

export interface PartnerApiClientOptions {
  /** Default: the process-wide limiter at `api.maxRequestsPerSecond` (sharedRateLimiter). */
  limiter?: RateLimiter;
  /** Default: the process-wide request queue (sharedRequestQueue). */
  queue?: RequestQueue;
  /** Structured events for logging (retries, 503 waits, renewals); never holds a token. */
  onEvent?: (event: ClientEvent) => void;
}

interface Call {
  params?: PathParams;
  query?: QueryParams;
  body?: unknown;
  /** For writes: finds the result of an earlier attempt that may have gone through, or undefined. */
  lookup?: () => Promise<unknown>;
  download?: DownloadTarget;
}

/** Token renewals for one call after the canary showed its token rejected, and the wait before each after the first. */
const maxRenewals = 3;
const renewalBackoffMs = 1_000;

/** Status answers after which the token may have been revoked (the spec answers every failure with 400). */
const rejections = new Set([400, 401, 403]);

export class PartnerApiClient {
  readonly stats: ClientStats = emptyStats();
  private readonly endpoints: Record<EndpointName, Endpoint>;
  private readonly transport: Transport;
  private readonly session: AuthSession;
  private readonly emit: (event: ClientEvent) => void;
  private readonly queue: RequestQueue;
  private readonly canary: TokenCanary;

  constructor(
    private readonly api: ApiConfig,
    options: PartnerApiClientOptions = {},
  ) {
    this.endpoints = parseEndpoints(api.endpoints);
    const onEvent = options.onEvent;
    this.emit = (event) => onEvent?.(event);
    const limiter = options.limiter ?? sharedRateLimiter(api.maxRequestsPerSecond);
    this.transport = new Transport(api, limiter, this.stats, this.emit, () => this.session.secrets);
    this.session = new AuthSession(api, this.endpoints, this.transport, this.stats, this.emit);
    this.queue = options.queue ?? sharedRequestQueue();
    this.canary = new TokenCanary((token) => this.tokenAccepted(token));
  }

  // ---- sales -------------------------------------------------------------------------------------------

  /**
   * Streams the sales of a period (at most 31 days), gzip-compressed as received, to `filePath` (atomically);
   * `rewrite` (e.g. masking the PINs) transforms the body before it is written.
   */
  async downloadSalesByPeriod(
    startDate: string,
    finishDate: string,
    byCreateDate: boolean,
    filePath: string,
    rewrite?: () => Transform,
  ): Promise<DownloadResult> {
    const answer = await this.call('salesByPeriod', {
      ...this.periodCall(startDate, finishDate, byCreateDate),
      download: { filePath, ...(rewrite && { rewrite }) },
    });
    return answer.download!;
  }

  /** The sales of a period (at most 31 days) in memory; prefer downloadSalesByPeriod for large windows. */
  async salesByPeriod(startDate: string, finishDate: string, byCreateDate: boolean): Promise<SalesRecord[]> {
    const answer = await this.call('salesByPeriod', this.periodCall(startDate, finishDate, byCreateDate));
    return this.list<SalesRecord>('salesByPeriod', answer);
  }

  /** One sale, or undefined when the upstream does not know the id. */
  async salesByTransactionId(transactionId: number): Promise<SalesRecord | undefined> {
    const answer = await this.call(
      'salesByTransactionId',
      { params: { transactionId: integer(transactionId, 'transactionId') } },
      { absent: true },
    );
    if (answer.json === undefined || answer.json === null) return undefined;
    // Some deployments wrap a single record in an array.
    const record = Array.isArray(answer.json)
      ? (answer.json[0] as SalesRecord | undefined)
      : (answer.json as SalesRecord);
    return record ?? undefined;
  }

  /** The sales with this partner reference ([] when none). */
  async salesByPartnerReference(reference: string): Promise<SalesRecord[]> {
    const answer = await this.call(
      'salesByPartnerReference',
      { params: { partnerReferenceId: text(reference, 'reference') } },
      { absent: true },
    );
    return this.list<SalesRecord>('salesByPartnerReference', answer);
  }

  /** The sales to a buyer document number, unmasked ([] when none). */
  async salesByDocument(documentNumber: string): Promise<SalesRecord[]> {
    const answer = await this.call(
      'salesByDocument',
      { params: { documentNumber: text(documentNumber, 'documentNumber') } },
      { absent: true },
    );
    return this.list<SalesRecord>('salesByDocument', answer);
  }

  // ---- catalog -----------------------------------------------------------------------------------------

  /** The partner's full catalog: collections with their products, nested. */
  async catalogTree(q?: CatalogQuery): Promise<Collection[]> {
    return this.list<Collection>('catalogTree', await this.call('catalogTree', { query: this.catalogQuery(q) }));
  }

  /** The partner's collections without products. */
  async partnerCollections(q?: CatalogQuery): Promise<Collection[]> {
    return this.list<Collection>(
      'partnerCollections',
      await this.call('partnerCollections', { query: this.catalogQuery(q) }),
    );
  }

  /** The products of one collection (as collections with products). */
  async collectionProducts(collectionId: number, q?: CatalogQuery): Promise<Collection[]> {
    const answer = await this.call('collectionProducts', {
      params: { collectionId: integer(collectionId, 'collectionId') },
      query: this.catalogQuery(q),
    });
    return this.list<Collection>('collectionProducts', answer);
  }

  async productInfo(productId: number, q?: CatalogQuery): Promise<ProductDetail> {
    const answer = await this.call('productInfo', {
      params: { productId: integer(productId, 'productId') },
      query: this.catalogQuery(q),
    });
    return this.object<ProductDetail>('productInfo', answer);
  }

  /** Stock of one product; `amount` is -1 when unlimited. */
  async productStock(productId: number, q?: CatalogQuery): Promise<StockStatus> {
    const answer = await this.call('productStock', {
      params: { productId: integer(productId, 'productId') },
      query: this.catalogQuery(q),
    });
    return this.object<StockStatus>('productStock', answer);
  }

  /** GET /catalog/collections: collections only, products empty. */
  async listCollections(q?: CatalogQuery): Promise<Collection[]> {
    return this.list<Collection>(
      'listCollections',
      await this.call('listCollections', { query: this.catalogQuery(q) }),
    );
  }

  /** GET /catalog/collections/{id}: one collection with its products. */
  async getCollection(id: number, q?: CatalogQuery): Promise<Collection> {
    const answer = await this.call('getCollection', { params: { id: integer(id, 'id') }, query: this.catalogQuery(q) });
    return this.object<Collection>('getCollection', answer);
  }

  // ---- writes ------------------------------------------------------------------------------------------

  /**
   * Books a PIN (call only after payment is confirmed). If an attempt fails without a clear answer, the sale
   * is looked up by partner reference before any new attempt; when found, it is the result.
   */
  async preRedeem(request: PreRedeemRequest): Promise<PreRedeemResponse> {
    integer(request.productId, 'productId');
    const reference = text(request.partnerReference, 'partnerReference');
    const lookup = async (): Promise<PreRedeemResponse | undefined> => {
      const sale = (await this.salesByPartnerReference(reference)).find((s) => s.partnerReference === reference);
      return (
        sale && {
          status: sale.status,
          transaction: { transactionId: sale.transactionId, key: sale.key, partnerReference: sale.partnerReference },
        }
      );
    };
    return this.object<PreRedeemResponse>('preRedeem', await this.call('preRedeem', { body: request, lookup }));
  }

  /** Reverses a transaction; after an unclear failure, checks whether it is already canceled before trying again. */
  async reverseByTransactionId(transactionId: number): Promise<ReversalResult> {
    integer(transactionId, 'transactionId');
    const lookup = async (): Promise<ReversalResult | undefined> => {
      const sale = await this.salesByTransactionId(transactionId);
      return sale && isCanceled(sale) ? confirmedReversal(sale) : undefined;
    };
    return this.object<ReversalResult>(
      'reverseByTransactionId',
      await this.call('reverseByTransactionId', { body: { transactionId }, lookup }),
    );
  }

  /** Reverses the sale with this partner reference; after an unclear failure, looks it up first. */
  async reverseByPartnerReference(reference: string): Promise<ReversalResult> {
    text(reference, 'reference');
    const lookup = async (): Promise<ReversalResult | undefined> => {
      const sales = (await this.salesByPartnerReference(reference)).filter((s) => s.partnerReference === reference);
      return sales.length > 0 && sales.every(isCanceled) ? confirmedReversal(sales[sales.length - 1]!) : undefined;
    };
    const answer = await this.call('reverseByPartnerReference', { params: { partnerReference: reference }, lookup });
    return this.object<ReversalResult>('reverseByPartnerReference', answer);
  }

  /** Closes idle connections. The shared limiter stays (other clients may use it). */
  close(): void {
    this.transport.close();
  }

  // ---- the one way every operation is called ------------------------------------------------------------

  /**
   * Sends an authenticated call through the request queue, with retries. A refusal (400/401/403) may mean
   * the request is wrong or the token was revoked (the spec answers both with 400): the token canary tells
   * which. A real refusal is an UpstreamError with the body at once — or, with `absent`, "no such record"
   * (a 404 too), returned for the caller to read as empty: one request per unknown reference. A revoked
   * token is renewed and the call sent again, up to `maxRenewals` times, at least `renewalBackoffMs` apart.
   */
  private async call(name: EndpointName, call: Call, options: { absent?: boolean } = {}): Promise<HttpAnswer> {
    const endpoint = this.endpoints[name];
    const url = expandEndpoint(this.api.baseUrl, endpoint, call.params, call.query);
    for (let renewals = 0; ; renewals++) {
      let usedToken = '';
      let sentAt = 0;
      let unclear = false;
      const answer = await this.queue.run(callKindOf(name), () =>
        this.transport.retrying(endpoint, async (previous?: AttemptFailure) => {
          unclear ||= previous?.ambiguous === true;
          if (unclear && call.lookup) {
            const found = await this.checkWrite(endpoint, call.lookup);
            if (found) return found;
          }
          usedToken = await this.session.accessToken();
          sentAt = performance.now();
          const request = { endpoint, url, headers: { authorization: `Bearer ${usedToken}` }, body: call.body };
          return this.transport.exchange(request, call.download);
        }),
      );
      if (answer.status >= 200 && answer.status < 300) {
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
      throw new UpstreamError(`${describeEndpoint(endpoint)} answered ${answer.status}: ${body || '(no body)'}`, {
        endpoint: name,
        status: answer.status,
        body,
        hint: hintFor(name, answer.status, call.params),
      });
    }
  }

  /** The canary: sends the cheapest read (the partner's collections) with exactly `token`. */
  private async tokenAccepted(token: string): Promise<boolean> {
    const endpoint = this.endpoints.partnerCollections;
    const url = expandEndpoint(this.api.baseUrl, endpoint, undefined, this.catalogQuery());
    const request = { endpoint, url, headers: { authorization: `Bearer ${token}` } };
    const answer = await this.queue.run('lookup', () =>
      this.transport.retrying(endpoint, () => this.transport.exchange(request)),
    );
    if (answer.status >= 200 && answer.status < 300) return true;
    if (rejections.has(answer.status)) return false;
    const body = quoteBody(answer.text, this.session.secrets);
    throw new UpstreamError(
      `${describeEndpoint(endpoint)} answered ${answer.status} to the check that a refused call's token is still valid: ${body || '(no body)'}`,
      {
        endpoint: 'partnerCollections',
        status: answer.status,
        body,
        hint: 'pinrecon calls api.endpoints.partnerCollections to tell a refused request from a revoked token: check that endpoint.',
      },
    );
  }

  private keptRejecting(name: EndpointName, answer: HttpAnswer, renewals: number): UpstreamError {
    const body = quoteBody(answer.text, this.session.secrets);
    return new UpstreamError(
      `${describeEndpoint(this.endpoints[name])}: the upstream kept rejecting the token — ${renewals + 1} tokens in a row, ${renewals} of them fresh, were refused (last answer ${answer.status}: ${body || 'no body'}).`,
      {
        endpoint: name,
        status: answer.status,
        body,
        hint: 'Another process may be logging in with the same credentials (each login can revoke the tokens before it): make sure only one client uses api.identifier at a time, then re-run.',
      },
    );
  }

  private async checkWrite(endpoint: Endpoint, lookup: () => Promise<unknown>): Promise<HttpAnswer | undefined> {
    const found = await lookup();
    this.emit({ type: 'write_checked', endpoint: endpoint.name, found: found !== undefined });
    return found === undefined ? undefined : { status: 200, text: '', json: found, receivedAt: new Date() };
  }

  private periodCall(startDate: string, finishDate: string, byCreateDate: boolean): Call {
    return {
      params: { startDate: isoDate(startDate, 'startDate'), finishDate: isoDate(finishDate, 'finishDate') },
      query: { searchIsByCreateDate: byCreateDate },
    };
  }

  private catalogQuery(q: CatalogQuery = {}): QueryParams {
    return {
      country: q.country ?? this.api.country,
      currency: q.currency ?? this.api.currency,
      language: q.language ?? this.api.language,
    };
  }

  private list<T>(name: EndpointName, answer: HttpAnswer): T[] {
    if (answer.json === undefined || answer.json === null) return [];
    if (Array.isArray(answer.json)) return answer.json as T[];
    throw this.unexpected(name, answer, 'a JSON array');
  }

  private object<T>(name: EndpointName, answer: HttpAnswer): T {
    if (answer.json !== null && typeof answer.json === 'object' && !Array.isArray(answer.json)) return answer.json as T;
    throw this.unexpected(name, answer, 'a JSON object');
  }

  private unexpected(name: EndpointName, answer: HttpAnswer, expected: string): UpstreamError {
    const body = quoteBody(answer.text, this.session.secrets);
    return new UpstreamError(
      `${describeEndpoint(this.endpoints[name])} answered ${answer.status} without ${expected}: ${body || '(no body)'}`,
      {
        endpoint: name,
        status: answer.status,
        body,
        hint: `Check that api.endpoints.${name} points at the right operation.`,
      },
    );
  }
}

function hintFor(name: EndpointName, status: number, params: PathParams = {}): string {
  if (status === 404) return `The upstream has no such path: check api.endpoints.${name}.`;
  if (name === 'salesByPeriod') {
    const days = periodDays(String(params.startDate), String(params.finishDate));
    // The 31-day rule is named only when it can be the reason.
    if (days > 31)
      return `The window ${params.startDate}..${params.finishDate} is ${days} days; the upstream allows at most 31: lower extract.maxWindowDays.`;
    return `The upstream refused the window ${params.startDate}..${params.finishDate} (${days} days) with a valid token; its answer says why. If it allows fewer days, lower extract.maxWindowDays; else check api.endpoints.salesByPeriod.`;
  }
  return `The upstream refused the request with a valid token; check the request and api.endpoints.${name}.`;
}

/** Days of an inclusive YYYY-MM-DD period (NaN when unreadable). */
function periodDays(start: string, finish: string): number {
  return Math.round((Date.parse(`${finish}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

/** The status text of a canceled sale ("Canceled in stock"): the only cancellation the spec names. */
function isCanceled(sale: SalesRecord): boolean {
  return /cancel/i.test(sale.status);
}

function confirmedReversal(sale: SalesRecord): ReversalResult {
  return {
    message: 'Already reversed (confirmed by looking the sale up after an unclear answer).',
    status: sale.status,
    transactionId: sale.transactionId,
  };
}

function integer(value: number, name: string): number {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be an integer, got ${String(value)}.`);
  return value;
}

function text(value: string, name: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string.`);
  return value;
}

function isoDate(value: string, name: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new TypeError(`${name} must be a date written YYYY-MM-DD, got "${value}".`);
  return value;
}
