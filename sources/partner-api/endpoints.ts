/**
 * The provider's operations as configurable `"METHOD /path/{param}"` templates (config `api.endpoints`):
 * parsing them once, checking each names exactly the parameters its operation supplies, and expanding
 * them into URLs with every parameter URL-encoded.
 */
import { ConfigError } from '../../core/errors.js';
import { endpointNames, type ApiConfig, type EndpointName } from '../../config/schema.js';
import type { CatalogQuery } from './types.js';

/** The path parameters each operation supplies, in the provider's names. */
export const endpointParameters: Record<EndpointName, readonly string[]> = {
  getToken: [],
  refreshToken: [],
  salesByPeriod: ['startDate', 'finishDate'],
  salesByTransactionId: ['transactionId'],
  salesByPartnerReference: ['partnerReferenceId'],
  salesByDocument: ['documentNumber'],
  catalogTree: [],
  partnerCollections: [],
  collectionProducts: ['collectionId'],
  productInfo: ['productId'],
  productStock: ['productId'],
  reverseByTransactionId: [],
  reverseByPartnerReference: ['partnerReference'],
  listCollections: [],
  getCollection: ['id'],
  preRedeem: [],
};

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  name: EndpointName;
  method: HttpMethod;
  /** The path template as configured, e.g. `/sales/period/{startDate}/{finishDate}` (may hold a `?query`). */
  path: string;
}

export type PathParams = Record<string, string | number>;
export type QueryParams = Record<string, string | number | boolean | undefined>;

const placeholder = /\{([^{}]*)\}/g;

/** Parses and checks one template; a bad one is a ConfigError naming `api.endpoints.<name>`. */
export function parseEndpoint(name: EndpointName, template: string): Endpoint {
  const key = `api.endpoints.${name}`;
  const match = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(template);
  if (!match) throw new ConfigError(`${key}: "${template}" must look like "METHOD /path/{param}".`, undefined, key);
  const path = match[2]!;
  const found = [...path.matchAll(placeholder)].map((m) => m[1]!);
  const expected = endpointParameters[name];
  const unknown = found.filter((p) => !expected.includes(p));
  const missing = expected.filter((p) => !found.includes(p));
  if (unknown.length > 0 || missing.length > 0) {
    const wanted = expected.length > 0 ? expected.map((p) => `{${p}}`).join(', ') : 'no parameters';
    const problems = [
      missing.length > 0 && `lacks ${missing.map((p) => `{${p}}`).join(', ')}`,
      unknown.length > 0 && `has unknown ${unknown.map((p) => `{${p}}`).join(', ')}`,
    ]
      .filter(Boolean)
      .join(' and ');
    throw new ConfigError(`${key}: "${template}" ${problems}; this operation takes ${wanted}.`, undefined, key);
  }
  return { name, method: match[1] as HttpMethod, path };
}

/** Parses every configured template, so a bad one fails before the first request. */
export function parseEndpoints(templates: Record<EndpointName, string>): Record<EndpointName, Endpoint> {
  return Object.fromEntries(endpointNames.map((name) => [name, parseEndpoint(name, templates[name])])) as Record<
    EndpointName,
    Endpoint
  >;
}

/**
 * The full URL of one call: base URL (its own path kept) + template with each `{param}` URL-encoded + query.
 * A missing or empty parameter is a programming error and throws a TypeError naming it.
 */
export function expandEndpoint(
  baseUrl: string,
  endpoint: Endpoint,
  params: PathParams = {},
  query: QueryParams = {},
): URL {
  const path = endpoint.path.replace(placeholder, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined || value === '')
      throw new TypeError(`${endpoint.name}: the path parameter {${name}} is missing.`);
    return encodeURIComponent(String(value));
  });
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

/** `salesByPeriod (GET /sales/period/{startDate}/{finishDate})`: how errors and events name an operation. */
export function describeEndpoint(endpoint: Endpoint): string {
  return `${endpoint.name} (${endpoint.method} ${endpoint.path})`;
}

/** The query of every catalog operation: country, currency and language, each defaulting to the config's. */
export function catalogQuery(api: ApiConfig, q: CatalogQuery = {}): QueryParams {
  return {
    country: q.country ?? api.country,
    currency: q.currency ?? api.currency,
    language: q.language ?? api.language,
  };
}
