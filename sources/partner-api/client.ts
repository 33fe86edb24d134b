/**
 * The typed client for every operation of the provider's API (the provider's API specification): each
 * method checks its arguments, sends its call the one way every call goes (authenticated-call.ts: queue, auth,
 * limiter, retries, revoked tokens) and reads the answer as the record or list the provider's API promises. Writes
 * (pre-redeem, reversals) say how to look themselves up, so an unclear failure is never blindly repeated.
 */
import type { ApiConfig, EndpointName } from '../../config/schema.js';
import { AuthenticatedCaller, type Call } from './authenticated-call.js';
import type { DownloadResult, DownloadTarget } from './download-to-file.js';
import { catalogQuery, describeEndpoint, parseEndpoints, type Endpoint } from './endpoints.js';
import { quoteBody, ProviderError } from './errors.js';
import { emptyStats, type ClientEvent, type ClientStats } from './events.js';
import type { HttpAnswer } from './http.js';
import { exactTransactionId, idText, memberTokens, RawJson, rawElements } from './exact-json.js';
import { sharedRateLimiter, type RateLimiter } from './rate-limiter.js';
import { sharedRequestQueue, type RequestQueue } from './request-queue.js';
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

export { ProviderError } from './errors.js';
export { describeClientEvent, type ClientEvent, type ClientStats } from './events.js';

export interface PartnerApiClientOptions {
  /** Default: the process-wide limiter at `api.maxRequestsPerSecond` (sharedRateLimiter). */
  limiter?: RateLimiter;
  /** Default: the process-wide request queue (sharedRequestQueue). */
  queue?: RequestQueue;
  /** Structured events for logging (retries, 503 waits, renewals); never holds a token. */
  onEvent?: (event: ClientEvent) => void;
}

export class PartnerApiClient {
  readonly stats: ClientStats = emptyStats();
  private readonly endpoints: Record<EndpointName, Endpoint>;
  private readonly caller: AuthenticatedCaller;

  constructor(
    private readonly api: ApiConfig,
    options: PartnerApiClientOptions = {},
  ) {
    this.endpoints = parseEndpoints(api.endpoints);
    const onEvent = options.onEvent;
    this.caller = new AuthenticatedCaller(
      api,
      this.endpoints,
      options.limiter ?? sharedRateLimiter(api.maxRequestsPerSecond),
      options.queue ?? sharedRequestQueue(),
      this.stats,
      (event) => onEvent?.(event),
    );
  }

  // ---- sales -------------------------------------------------------------------------------------------

  /**
   * Streams the sales of a period (at most 31 days), gzip-compressed as received, to `target` (a path, or its
   * filePath with options: `rewrite`, e.g. masking the PINs, transforms the body before it is written), atomically.
   */
  async downloadSalesByPeriod(
    startDate: string,
    finishDate: string,
    byCreateDate: boolean,
    target: string | DownloadTarget,
  ): Promise<DownloadResult> {
    const answer = await this.caller.call('salesByPeriod', {
      ...this.periodCall(startDate, finishDate, byCreateDate),
      download: typeof target === 'string' ? { filePath: target } : target,
    });
    return answer.download!;
  }

  /** The sales of a period (at most 31 days) in memory; prefer downloadSalesByPeriod for large windows. */
  async salesByPeriod(startDate: string, finishDate: string, byCreateDate: boolean): Promise<SalesRecord[]> {
    const answer = await this.caller.call('salesByPeriod', this.periodCall(startDate, finishDate, byCreateDate));
    return this.list<SalesRecord>('salesByPeriod', answer);
  }

  /**
   * One sale, or undefined when the provider does not know the id — or answers with records of other ids only
   * (issue 34: an answer is believed only for the id asked).
   */
  async salesByTransactionId(transactionId: TransactionId): Promise<SalesRecord | undefined> {
    return (await this.readSale(transactionId)).sale?.record;
  }

  /**
   * One sale read exactly: the record whose transactionId is the one asked (digits compared, so an id above 2^53
   * is never confused with its rounded neighbour), its raw JSON text (landed as received), and the ids of any other
   * records the answer held (some deployments wrap a record in an array; a hostile one answers with another sale).
   */
  async readSale(transactionId: TransactionId): Promise<SaleRead> {
    const id = exactId(transactionId, 'transactionId');
    const answer = await this.caller.call('salesByTransactionId', { params: { transactionId: id } }, { absent: true });
    if (answer.json === undefined || answer.json === null) return { foreignIds: [] };
    const received = receivedSales(answer.text);
    const sale = received.find((r) => r.transactionId === id);
    const foreignIds = received.filter((r) => r.transactionId !== id).map((r) => r.transactionId ?? '(none)');
    return { ...(sale && { sale }), foreignIds };
  }

  /** The sales with this partner reference ([] when none); records of another reference are left out. */
  async salesByPartnerReference(reference: string): Promise<SalesRecord[]> {
    return (await this.readByPartnerReference(reference)).sales.map((s) => s.record);
  }

  /**
   * The sales with this partner reference, each with its raw text and exact id; `foreign` counts the records the
   * answer held for another reference (issue 34: they are never taken as this reference's sales).
   */
  async readByPartnerReference(reference: string): Promise<{ sales: ReceivedSale[]; foreign: number }> {
    const answer = await this.caller.call(
      'salesByPartnerReference',
      { params: { partnerReferenceId: text(reference, 'reference') } },
      { absent: true },
    );
    this.list<SalesRecord>('salesByPartnerReference', answer);
    if (answer.json === undefined || answer.json === null) return { sales: [], foreign: 0 };
    const received = receivedSales(answer.text);
    const sales = received.filter((r) => r.record?.partnerReference === reference);
    return { sales, foreign: received.length - sales.length };
  }

  /** The sales to a buyer document number, unmasked ([] when none). */
  async salesByDocument(documentNumber: string): Promise<SalesRecord[]> {
    const answer = await this.caller.call(
      'salesByDocument',
      { params: { documentNumber: text(documentNumber, 'documentNumber') } },
      { absent: true },
    );
    return this.list<SalesRecord>('salesByDocument', answer);
  }

  // ---- catalog -----------------------------------------------------------------------------------------

  /** The partner's full catalog: collections with their products, nested. */
  async catalogTree(q?: CatalogQuery): Promise<Collection[]> {
    return this.list<Collection>(
      'catalogTree',
      await this.caller.call('catalogTree', { query: catalogQuery(this.api, q) }),
    );
  }

  /** The partner's collections without products. */
  async partnerCollections(q?: CatalogQuery): Promise<Collection[]> {
    return this.list<Collection>(
      'partnerCollections',
      await this.caller.call('partnerCollections', { query: catalogQuery(this.api, q) }),
    );
  }

  /** The products of one collection (as collections with products). */
  async collectionProducts(collectionId: number, q?: CatalogQuery): Promise<Collection[]> {
    const answer = await this.caller.call('collectionProducts', {
      params: { collectionId: integer(collectionId, 'collectionId') },
      query: catalogQuery(this.api, q),
    });
    return this.list<Collection>('collectionProducts', answer);
  }

  async productInfo(productId: number, q?: CatalogQuery): Promise<ProductDetail> {
    const answer = await this.caller.call('productInfo', {
      params: { productId: integer(productId, 'productId') },
      query: catalogQuery(this.api, q),
    });
    return this.object<ProductDetail>('productInfo', answer);
  }

  /** Stock of one product; `amount` is -1 when unlimited. */
  async productStock(productId: number, q?: CatalogQuery): Promise<StockStatus> {
    const answer = await this.caller.call('productStock', {
      params: { productId: integer(productId, 'productId') },
      query: catalogQuery(this.api, q),
    });
    return this.object<StockStatus>('productStock', answer);
  }

  /** GET /catalog/collections: collections only, products empty. */
  async listCollections(q?: CatalogQuery): Promise<Collection[]> {
    return this.list<Collection>(
      'listCollections',
      await this.caller.call('listCollections', { query: catalogQuery(this.api, q) }),
    );
  }

  /** GET /catalog/collections/{id}: one collection with its products. */
  async getCollection(id: number, q?: CatalogQuery): Promise<Collection> {
    const answer = await this.caller.call('getCollection', {
      params: { id: integer(id, 'id') },
      query: catalogQuery(this.api, q),
    });
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
    return this.object<PreRedeemResponse>('preRedeem', await this.caller.call('preRedeem', { body: request, lookup }));
  }

  /**
   * Reverses a transaction, with one request: a reversal is never sent again by the retry policy (issue 34: a 500
   * gave 7 POSTs). An unclear outcome (a timeout, a 5xx, a dropped connection) is a ProviderError with `unclear`;
   * the caller reads the sale, and only a later run asks again. An answer naming another transaction is refused.
   */
  async reverseByTransactionId(transactionId: TransactionId): Promise<ReversalResult> {
    const id = exactId(transactionId, 'transactionId');
    const body = new RawJson(`{"transactionId":${id}}`);
    const answer = await this.caller.call('reverseByTransactionId', { body, once: true });
    const result = this.object<ReversalResult>('reverseByTransactionId', answer);
    const answered = memberTokens(answer.text, 'transactionId');
    const named = answered.length === 1 ? idText(answered[0]!) : undefined;
    if (answered.length > 0 && named !== id) {
      throw new ProviderError(
        `${describeEndpoint(this.endpoints.reverseByTransactionId)} answered about transaction ` +
          `${named ?? answered.join(', ')} when asked to reverse ${id}.`,
        {
          endpoint: 'reverseByTransactionId',
          status: answer.status,
          foreign: true,
          hint:
            'The answer is not about the sale asked: it is not taken as its reversal. ' +
            'Read the sale at the provider and ask them why.',
        },
      );
    }
    return result;
  }

  /** Reverses the sale with this partner reference, once; after an unclear answer, looks the sale up. */
  async reverseByPartnerReference(reference: string): Promise<ReversalResult> {
    text(reference, 'reference');
    const lookup = async (): Promise<ReversalResult | undefined> => {
      const sales = (await this.salesByPartnerReference(reference)).filter((s) => s.partnerReference === reference);
      return sales.length > 0 && sales.every(isCanceled) ? confirmedReversal(sales[sales.length - 1]!) : undefined;
    };
    // Sent once, like a reversal by id (issue 34): after an unclear answer the sale is looked up, never re-sent.
    let answer: HttpAnswer;
    try {
      answer = await this.caller.call('reverseByPartnerReference', {
        params: { partnerReference: reference },
        once: true,
      });
    } catch (error) {
      if (!(error instanceof ProviderError && error.unclear)) throw error;
      const found = await this.caller.checkWrite(this.endpoints.reverseByPartnerReference, lookup);
      if (!found) throw error;
      answer = found;
    }
    return this.object<ReversalResult>('reverseByPartnerReference', answer);
  }

  /** Closes idle connections. The shared limiter stays (other clients may use it). */
  close(): void {
    this.caller.close();
  }

  private periodCall(startDate: string, finishDate: string, byCreateDate: boolean): Call {
    return {
      params: { startDate: isoDate(startDate, 'startDate'), finishDate: isoDate(finishDate, 'finishDate') },
      query: { searchIsByCreateDate: byCreateDate },
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

  private unexpected(name: EndpointName, answer: HttpAnswer, expected: string): ProviderError {
    const body = quoteBody(answer.text, this.caller.secrets);
    return new ProviderError(
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

/** The status text of a canceled sale ("Canceled in stock"): the only cancellation the provider names. */
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

/** A transaction id as the caller holds it: a bigint, a safe integer, or its decimal digits (never rounded). */
export type TransactionId = bigint | number | string;

/** A sale as received: the parsed record (numbers above 2^53 rounded: read ids from `transactionId`), its raw
 * JSON text (what is landed) and its exact transactionId (undefined when it is not one integer). */
export interface ReceivedSale {
  record: SalesRecord;
  raw: string;
  transactionId: string | undefined;
}

/** What a read of one sale found: the sale asked for, if any, and the ids of the other records the answer held. */
export interface SaleRead {
  sale?: ReceivedSale;
  foreignIds: string[];
}

function receivedSales(answerText: string): ReceivedSale[] {
  return rawElements(answerText).map((raw) => {
    let record: SalesRecord;
    try {
      record = JSON.parse(raw) as SalesRecord;
    } catch {
      record = {} as SalesRecord;
    }
    return { record, raw, transactionId: exactTransactionId(raw) };
  });
}

/** An id's exact digits: a positive integer of at most 19 digits (a BIGINT), else a TypeError (nothing is sent). */
function exactId(value: TransactionId, name: string): string {
  const id = idText(value);
  if (id === undefined || !/^[1-9]\d{0,18}$/.test(id) || BigInt(id) > 9_223_372_036_854_775_807n)
    throw new TypeError(`${name} must be a positive integer of at most 19 digits, got ${String(value)}.`);
  return id;
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
