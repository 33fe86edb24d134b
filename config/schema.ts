/**
 * The one definition of pinrecon's configuration (interface.md): every key optional, every default here.
 * Unknown keys are rejected so that a typo is reported instead of silently ignored.
 */
import { z } from 'zod';
import { isLoopbackHost, parseSmtpUrl } from './transport-security.js';

const endpointTemplate = z
  .string()
  .regex(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/, 'must look like "METHOD /path/{param}"');

/**
 * Best guesses for the operations whose paths the spec does not publish; the three published ones
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

const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as "America/Sao_Paulo"');

const money = z.number().nonnegative();

export const ledgerEncodings = ['utf-8', 'latin1', 'windows-1252'] as const;
export type LedgerEncoding = (typeof ledgerEncodings)[number];

/** The usual spellings of the three encodings finance exports come in; undefined for anything else. */
export function normalizeEncoding(name: string): LedgerEncoding | undefined {
  const key = name.trim().toLowerCase().replace(/[\s_]/g, '-');
  if (['utf-8', 'utf8'].includes(key)) return 'utf-8';
  if (['latin1', 'latin-1', 'iso-8859-1', 'iso8859-1', 'l1'].includes(key)) return 'latin1';
  if (['windows-1252', 'cp1252', 'win-1252', 'win1252'].includes(key)) return 'windows-1252';
  return undefined;
}

export const ledgerDelimiters = [',', ';', '\t', '|'] as const;
export type LedgerDelimiter = (typeof ledgerDelimiters)[number];

/** A delimiter as written in a config or on a command line ("tab" and a literal backslash-t included). */
export function normalizeDelimiter(text: string): LedgerDelimiter | undefined {
  const value = ['tab', '\\t'].includes(text.toLowerCase()) ? '\t' : text;
  return (ledgerDelimiters as readonly string[]).includes(value) ? (value as LedgerDelimiter) : undefined;
}

export const configSchema = z.strictObject({
  /** Calendar of periods, windows and dates. */
  timezone: timeZone.default('America/Sao_Paulo'),
  /** The DuckDB file. */
  database: z.string().min(1).default('data/pinrecon.duckdb'),
  api: z
    .strictObject({
      baseUrl: z.url().default('http://127.0.0.1:8787'),
      identifier: z.string().optional(),
      secret: z.string().optional(),
      /** This client's share of the one 50/s limit shared with the partner's live shop. */
      maxRequestsPerSecond: z.number().positive().max(1000).default(25),
      timeoutMs: z.number().int().positive().default(30_000),
      /** Largest answer read into memory (tokens, lookups, catalog; sales downloads stream to disk): larger ones are refused. */
      maxAnswerBytes: z.number().int().positive().default(64 * 1024 * 1024),
      /** Refresh the access token this many seconds before its `expiredAt`. */
      refreshMarginSeconds: z.number().int().nonnegative().default(60),
      /** Retries of one request after 5xx, timeouts and dropped connections (503s are not counted here). */
      maxRetries: z.number().int().nonnegative().default(6),
      /** How many times in a row a request may be answered 503 before the job gives up. */
      maxRateLimitedRetries: z.number().int().positive().default(60),
      /** Query parameters of catalog and stock operations. */
      country: z.string().default('BR'),
      currency: z.string().default('BRL'),
      language: z.string().default('pt-BR'),
      endpoints: endpointsSchema.prefault({}),
      /**
       * Allow a plain `http://` baseUrl to a host that is not loopback (default false: credentials and
       * tokens only travel over https). Warned about on every run.
       */
      allowInsecureHttp: z.boolean().default(false),
    })
    .superRefine((api, context) => {
      const url = URL.canParse(api.baseUrl) ? new URL(api.baseUrl) : undefined;
      if (url && url.protocol !== 'https:' && !isLoopbackHost(url.hostname) && !api.allowInsecureHttp) {
        context.addIssue({
          code: 'custom',
          path: ['baseUrl'],
          message: `must be https:// (credentials and tokens travel over it) unless the host is loopback; set api.allowInsecureHttp to true to accept ${url.protocol}// anyway`,
        });
      }
    })
    .prefault({}),
  extract: z
    .strictObject({
      /** Windows within this many days of today are always fetched again (statuses change). */
      lookbackDays: z.number().int().nonnegative().default(35),
      /** Where raw responses are kept, compressed (default: `landing/` beside the database). */
      landingDir: z.string().optional(),
      /** Longest window in days (the API allows 31). */
      maxWindowDays: z.number().int().min(1).max(31).default(31),
      /** DuckDB's memory while loading windows; beyond it, DuckDB spills to disk (a million-sale window fits in 512MB). */
      memoryLimit: z
        .string()
        .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'must be a size such as "512MB" or "2GB"')
        .default('512MB'),
    })
    .prefault({}),
  ledger: z
    .strictObject({
      path: z.string().default('ledger.csv'),
      delimiter: z
        .string()
        .transform((text, context) => normalizeDelimiter(text) ?? (context.addIssue({ code: 'custom', message: 'must be ",", ";", "|" or tab' }), z.NEVER))
        .default(','),
      quote: z.string().length(1).default('"'),
      decimalSeparator: z.enum(['.', ',']).default('.'),
      encoding: z
        .string()
        .transform((text, context) => normalizeEncoding(text) ?? (context.addIssue({ code: 'custom', message: 'must be utf-8, latin1 (ISO-8859-1) or windows-1252' }), z.NEVER))
        .default('utf-8'),
      dateFormat: z.string().default('yyyy-MM-dd'),
      /** Excel sheet to read (default: the first). */
      sheet: z.string().optional(),
      /** Canonical column → header in the file. */
      columns: z.record(z.string(), z.string()).default({}),
    })
    .prefault({}),
  reconciliation: z
    .strictObject({
      costTolerance: money.default(0.01),
      /** Tolerance for sales prices (default: costTolerance). */
      priceTolerance: money.optional(),
      unredeemedAfterDays: z.number().int().nonnegative().default(3),
      statusMap: z
        .record(z.string(), z.enum(['redeemed', 'canceled', 'booked']))
        .default({ 'Redeemed by Client': 'redeemed', 'Canceled in stock': 'canceled', delivered: 'booked' }),
      /** Look up every would-be missing_at_provider reference individually before concluding. */
      lookupMissing: z.boolean().default(true),
    })
    .prefault({}),
  reports: z
    .strictObject({
      outDir: z.string().default('reports'),
    })
    .prefault({}),
  email: z
    .strictObject({
      /** smtp[s]://[user[:password]@]host[:port]; a `/ # ? @ %` in user or password is percent-encoded. */
      smtpUrl: z
        .string()
        .superRefine((text, context) => {
          try {
            parseSmtpUrl(text);
          } catch (error) {
            context.addIssue({ code: 'custom', message: (error as Error).message });
          }
        })
        .default('smtp://127.0.0.1:2525'),
      /** The SMTP password as is, no percent-encoding (best from env PINRECON_SMTP_PASSWORD); replaces the URL's. */
      smtpPassword: z.string().min(1).optional(),
      /**
       * Allow sending credentials without TLS to a host that is not loopback (default false: with a user or
       * password, the connection must be smtps:// or upgrade with STARTTLS, else nothing is sent). Warned
       * about on every run.
       */
      allowPlaintextAuth: z.boolean().default(false),
      from: z.string().default('pinrecon@example.com'),
      to: z.array(z.string()).default(['finance@example.com']),
      subject: z.string().optional(),
      /** Larger workbooks are replaced by a summary-only one in the email. */
      maxAttachmentBytes: z.number().int().positive().default(15 * 1024 * 1024),
      retries: z.number().int().nonnegative().default(3),
    })
    .superRefine((email, context) => {
      const hasUser = (() => {
        try {
          return parseSmtpUrl(email.smtpUrl).user !== undefined;
        } catch {
          return true; // the URL's own issue is reported already
        }
      })();
      if (email.smtpPassword !== undefined && !hasUser) {
        context.addIssue({ code: 'custom', path: ['smtpPassword'], message: 'needs a user in email.smtpUrl (smtp://user@host:port)' });
      }
    })
    .prefault({}),
  schedules: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        cron: z.string().min(1),
        job: z.enum(['run', 'extract', 'reconcile', 'report', 'catalog']),
        period: z.union([z.literal('previous'), z.literal('current'), z.string().regex(/^\d{4}-\d{2}$/)]).default('previous'),
        email: z.boolean().default(false),
        ledger: z.string().optional(),
      }),
    )
    .default([]),
});

export type Config = z.infer<typeof configSchema>;
export type ApiConfig = Config['api'];
