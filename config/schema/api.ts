/**
 * The `api` section of the configuration: the provider's URL, credentials, limits and every endpoint's template
 * (issue 27: a leaf that talks to the provider takes `ApiConfig`, not the whole config).
 */
import { z } from 'zod';
import { isLoopbackHost } from '../transport-security.js';

const endpointTemplate = z
  .string()
  .regex(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/, 'must look like "METHOD /path/{param}"');

/**
 * Best guesses for the operations whose paths the provider does not publish; the three published ones
 * (listCollections, getCollection, preRedeem) are exact. Every one can be overridden in the config.
 */
export const defaultEndpoints = {
  getToken: 'POST /auth/token',
  refreshToken: 'POST /auth/refresh-token',
  salesByPeriod: 'GET /sales/period/{startDate}/{finishDate}',
  salesByTransactionId: 'GET /sales/transaction/{transactionId}',
  salesByPartnerReference: 'GET /sales/partner-reference/{partnerReferenceId}',
  salesByDocument: 'GET /sales/document/{documentNumber}',
  catalogTree: 'GET /catalog',
  partnerCollections: 'GET /catalog/partner/collections',
  collectionProducts: 'GET /catalog/collections/{collectionId}/products',
  productInfo: 'GET /catalog/products/{productId}',
  productStock: 'GET /catalog/products/{productId}/stock',
  reverseByTransactionId: 'POST /reversal',
  reverseByPartnerReference: 'POST /reversal/partner-reference/{partnerReference}',
  listCollections: 'GET /catalog/collections',
  getCollection: 'GET /catalog/collections/{id}',
  preRedeem: 'POST /pre-redeem',
} as const;

export type EndpointName = keyof typeof defaultEndpoints;
export const endpointNames = Object.keys(defaultEndpoints) as EndpointName[];

const endpointsSchema = z.strictObject(
  Object.fromEntries(endpointNames.map((name) => [name, endpointTemplate.default(defaultEndpoints[name])])) as {
    [K in EndpointName]: z.ZodDefault<typeof endpointTemplate>;
  },
);

/** The partner's API. */
export const apiSchema = z
  .strictObject({
    /**
     * The API's root URL; every endpoint path is relative to it.
     * @default 'http://127.0.0.1:8787' (the simulator of `pinrecon simulate-api`)
     */
    baseUrl: z.url().default('http://127.0.0.1:8787'),
    /**
     * The partner's API identifier (keep it in the environment: PINRECON_API_IDENTIFIER).
     * @default undefined (jobs that call the API fail, reconcile skips its individual lookups)
     */
    identifier: z.string().optional(),
    /**
     * The partner's API secret (keep it in the environment: PINRECON_API_SECRET).
     * @default undefined
     */
    secret: z.string().optional(),
    /**
     * This client's share of the one 50/s limit shared with the partner's live shop.
     * @default 25
     */
    maxRequestsPerSecond: z.number().positive().max(1000).default(25),
    /**
     * Time limit of one request, in milliseconds.
     * @default 30000
     */
    timeoutMs: z.number().int().positive().default(30_000),
    /**
     * A sales download (one window, streamed to disk, large by nature) must bring at least this many bytes in
     * every `timeoutMs` interval, or it is cut as stalled: a provider trickling a byte at a time cannot hold a
     * window open (issue 34).
     * @default 1024
     */
    minDownloadBytesPerSecond: z.number().int().positive().default(1024),
    /**
     * Time limit of one whole sales download, in milliseconds, however steadily it arrives.
     * @default 7200000 (2 hours)
     */
    downloadTimeoutMs: z.number().int().positive().default(7_200_000),
    /**
     * Largest answer read into memory (tokens, lookups, catalog; sales downloads stream to disk): a larger
     * or endless answer is refused, not read.
     * @default 67108864 (64 MB)
     */
    maxAnswerBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /**
     * Refresh the access token this many seconds before its `expiredAt`.
     * @default 60
     */
    refreshMarginSeconds: z.number().int().nonnegative().default(60),
    /**
     * Retries of one request after 5xx, timeouts and dropped connections (503s are not counted here).
     * @default 6
     */
    maxRetries: z.number().int().nonnegative().default(6),
    /**
     * How many times in a row a request may be answered 503 before the job gives up.
     * @default 60
     */
    maxRateLimitedRetries: z.number().int().positive().default(60),
    /**
     * Country of catalog and stock operations (a query parameter).
     * @default 'BR'
     */
    country: z.string().default('BR'),
    /**
     * Currency of catalog and stock operations (a query parameter).
     * @default 'BRL'
     */
    currency: z.string().default('BRL'),
    /**
     * Language of catalog and stock operations (a query parameter).
     * @default 'pt-BR'
     */
    language: z.string().default('pt-BR'),
    /**
     * Each operation as `"METHOD /path/{param}"`, relative to baseUrl; any one can be overridden.
     * @default defaultEndpoints (above)
     */
    endpoints: endpointsSchema.prefault({}),
    /**
     * Allow a plain `http://` baseUrl to a host that is not loopback (credentials, tokens and PINs then
     * travel unencrypted). Warned about on every run.
     * @default false (baseUrl must be https:// unless its host is loopback)
     */
    allowInsecureHttp: z.boolean().default(false),
  })
  .superRefine((api, context) => {
    const url = URL.canParse(api.baseUrl) ? new URL(api.baseUrl) : undefined;
    if (url && url.protocol !== 'https:' && !isLoopbackHost(url.hostname) && !api.allowInsecureHttp) {
      context.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message:
          `must be https:// (credentials and tokens travel over it) unless the host is loopback; ` +
          `set api.allowInsecureHttp to true to accept ${url.protocol}// anyway`,
      });
    }
  })
  .prefault({});

export type ApiConfig = z.output<typeof apiSchema>;
