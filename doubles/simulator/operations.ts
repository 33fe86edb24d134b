/**
 * The simulator's operations, by endpoint name: what each answers from the data set, or the Rejection the spec
 * names. The HTTP side (routing, auth, limits, faults) is in server.ts.
 */

import type { EndpointName } from '../../config/schema.js';
import type { CatalogQuery, Customer, PreRedeemResponse } from '../../sources/partner-api/types.js';
import type { Dataset } from './dataset.js';
import { wireRecord, type SimulatedSale } from './sale-generator.js';
import { Rejection } from './rejection.js';
import type { TokenAuthority } from './tokens.js';
import type { PeriodWindow } from './kept-responses.js';
import { daysInclusive, isCalendarDate } from '../../core/calendar.js';

/** Body of a successful operation: a JSON value, or a list of sales to stream (a period's with its window). */
export type Reply = { json: unknown } | { sales: Iterable<SimulatedSale>; window?: PeriodWindow };

/** The operations, by name: each returns its reply or throws a Rejection. `url` is the server's, once listening. */
export function simulatorOperations(
  dataset: Dataset,
  tokens: TokenAuthority,
  maxPeriodDays: number,
  url: () => string,
  afterLogin: () => void,
): Record<EndpointName, (call: Call) => Reply> {
  return {
    getToken: ({ body }) => {
      const record = tokens.authenticate(body);
      afterLogin();
      return { json: record };
    },
    refreshToken: ({ body }) => ({ json: tokens.refresh(body) }),
    salesByPeriod: ({ params, query }) => salesByPeriod(dataset, maxPeriodDays, params, query),
    salesByTransactionId: ({ params }) => {
      const id = integerParameter(params.transactionId!, 'transactionId');
      const sale = dataset.saleByTransactionId(id);
      if (!sale) throw new Rejection('unknown_transaction', `Transaction ${id} does not exist.`);
      return { json: wireRecord(sale) };
    },
    salesByPartnerReference: ({ params }) => ({ sales: dataset.salesByPartnerReference(params.partnerReferenceId!) }),
    salesByDocument: ({ params }) => {
      const document = params.documentNumber!;
      if (!/^\d{11}$|^\d{14}$/.test(document)) {
        throw new Rejection(
          'invalid_document',
          `documentNumber must be 11 (CPF) or 14 (CNPJ) digits without mask, got "${document}".`,
        );
      }
      return { sales: dataset.salesByDocument(document) };
    },
    catalogTree: ({ query }) => ({ json: dataset.catalog.tree(catalogQuery(query), true) }),
    partnerCollections: ({ query }) => ({ json: dataset.catalog.partnerCollections(catalogQuery(query)) }),
    listCollections: ({ query }) => ({ json: dataset.catalog.tree(catalogQuery(query), false) }),
    getCollection: ({ params, query }) => ({ json: collectionOrReject(dataset, params.id!, query) }),
    collectionProducts: ({ params, query }) => ({ json: [collectionOrReject(dataset, params.collectionId!, query)] }),
    productInfo: ({ params, query }) => {
      const product = productOrReject(dataset, params.productId!, query);
      return { json: dataset.catalog.productDetail(product, catalogQuery(query).language) };
    },
    productStock: ({ params, query }) => ({
      json: dataset.stock(productOrReject(dataset, params.productId!, query).id),
    }),
    preRedeem: ({ body }) => ({ json: preRedeem(dataset, body, url()) }),
    reverseByTransactionId: ({ body }) => {
      const id = (body as Record<string, unknown>).transactionId;
      if (!Number.isInteger(id))
        throw new Rejection('invalid_request', 'transactionId is required and must be an integer.');
      return { json: dataset.reverse(id as number) };
    },
    reverseByPartnerReference: ({ params }) => ({ json: dataset.reverseByPartnerReference(params.partnerReference!) }),
  };
}

/** The sales of a period by payment (or, with searchIsByCreateDate, creation) date, within the 31-day rule. */
function salesByPeriod(
  dataset: Dataset,
  maxPeriodDays: number,
  params: Record<string, string>,
  query: URLSearchParams,
): Reply {
  const { startDate, finishDate } = params as { startDate: string; finishDate: string };
  for (const [name, value] of [
    ['startDate', startDate],
    ['finishDate', finishDate],
  ] as const) {
    if (!isCalendarDate(value))
      throw new Rejection('invalid_date', `${name} must be a date written YYYY-MM-DD, got "${value}".`);
  }
  const days = daysInclusive(startDate, finishDate);
  if (days < 1) throw new Rejection('invalid_period', `finishDate ${finishDate} is before startDate ${startDate}.`);
  if (days > maxPeriodDays) {
    throw new Rejection(
      'period_too_long',
      `The period ${startDate}..${finishDate} has ${days} days; at most ${maxPeriodDays} are allowed.`,
    );
  }
  const flag = query.get('searchIsByCreateDate');
  if (flag !== null && !/^(true|false)$/i.test(flag)) {
    throw new Rejection('invalid_request', `searchIsByCreateDate must be true or false, got "${flag}".`);
  }
  const byCreateDate = flag?.toLowerCase() === 'true';
  return {
    sales: dataset.salesInPeriod(startDate, finishDate, byCreateDate),
    window: { startDate, finishDate, byCreateDate },
  };
}

/** A pre-redeem: checks the request, creates the sale, and points `redirectLink` at the redeem page of `url`. */
function preRedeem(dataset: Dataset, body: unknown, url: string): PreRedeemResponse {
  const input = body as Record<string, unknown>;
  if (
    !Number.isInteger(input.productId) ||
    (input.productId as number) <= 0 ||
    (input.productId as number) > 2 ** 31 - 1
  ) {
    throw new Rejection('invalid_request', 'productId is required and must be a positive 32-bit integer.');
  }
  if (
    typeof input.partnerReference !== 'string' ||
    input.partnerReference.trim() === '' ||
    input.partnerReference.length > 100
  ) {
    throw new Rejection(
      'invalid_request',
      'partnerReference is required: a non-empty string of at most 100 characters.',
    );
  }
  for (const key of ['countryCode', 'currencyCode'] as const) {
    if (input[key] !== undefined && (typeof input[key] !== 'string' || !/^[A-Za-z]{2,3}$/.test(input[key] as string))) {
      throw new Rejection('invalid_request', `${key} must be an ISO code such as "BR" or "BRL".`);
    }
  }
  const customer =
    input.customer === undefined || input.customer === null ? undefined : validateCustomer(input.customer);
  const sale = dataset.preRedeem({
    productId: input.productId as number,
    partnerReference: input.partnerReference,
    countryCode: ((input.countryCode as string | undefined) ?? 'BR').toUpperCase(),
    currencyCode: ((input.currencyCode as string | undefined) ?? 'BRL').toUpperCase(),
    customer,
  });
  return {
    status: sale.status,
    transaction: {
      transactionId: sale.transactionId,
      key: sale.key,
      partnerReference: sale.partnerReference,
      redirectLink: `${url}/redeem/${sale.transactionId}`,
    },
  };
}

function collectionOrReject(dataset: Dataset, idText: string, query: URLSearchParams) {
  const id = integerParameter(idText, 'collection id');
  const collection = dataset.catalog.collection(id, catalogQuery(query));
  if (!collection)
    throw new Rejection(
      'unknown_collection',
      `Collection ${id} does not exist or is not available for this country and currency.`,
    );
  return collection;
}

function productOrReject(dataset: Dataset, idText: string, query: URLSearchParams) {
  const id = integerParameter(idText, 'productId');
  const product = dataset.catalog.product(id);
  if (!product) throw new Rejection('unknown_product', `Product ${id} does not exist.`);
  const q = catalogQuery(query);
  if (!dataset.catalog.isAvailable(product, q)) {
    throw new Rejection(
      'product_not_available',
      `Product ${id} is not available for ${q.country ?? 'BR'}/${q.currency ?? 'BRL'}.`,
    );
  }
  return product;
}

export interface Call {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export function catalogQuery(query: URLSearchParams): CatalogQuery {
  return {
    country: query.get('country') ?? undefined,
    currency: query.get('currency') ?? undefined,
    language: query.get('language') ?? undefined,
  };
}

export function integerParameter(text: string, name: string): number {
  if (!/^\d{1,15}$/.test(text))
    throw new Rejection('invalid_request', `${name} must be a whole number, got "${text}".`);
  return Number(text);
}

/** Loose checks of the optional customer: the fields the spec says are verified, and types. */
export function validateCustomer(value: unknown): Customer {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Rejection('invalid_customer', 'customer must be an object.');
  }
  const customer = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(customer)) {
    if (typeof field !== 'string') throw new Rejection('invalid_customer', `customer.${key} must be a string.`);
  }
  const { document, name, bornAt, countryCode } = customer as Customer;
  if (document !== undefined && !/^\d{11}$|^\d{14}$/.test(document)) {
    throw new Rejection('invalid_customer', 'customer.document must be 11 (CPF) or 14 (CNPJ) digits without mask.');
  }
  if (name !== undefined && (name.trim().length < 2 || name.length > 200)) {
    throw new Rejection('invalid_customer', 'customer.name must have 2 to 200 characters.');
  }
  if (bornAt !== undefined) {
    const age = isCalendarDate(bornAt) ? (Date.now() - Date.parse(`${bornAt}T00:00:00Z`)) / (365.25 * 86_400_000) : -1;
    if (age < 0 || age > 130)
      throw new Rejection('invalid_customer', 'customer.bornAt must be a past date written YYYY-MM-DD.');
  }
  if (countryCode !== undefined && !/^[A-Za-z]{2}$/.test(countryCode)) {
    throw new Rejection('invalid_customer', 'customer.countryCode must be a 2-letter ISO 3166-1 code.');
  }
  return customer as Customer;
}
