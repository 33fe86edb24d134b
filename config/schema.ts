/**
 * The one definition of pinrecon's configuration (interface.md): every key optional, every default here.
 * Unknown keys are rejected so that a typo is reported instead of silently ignored.
 */
import { z } from 'zod';
import { isDecision } from '../core/decisions.js';
import { findingTypeNames } from '../core/finding-types.js';
import { isLoopbackHost, parseSmtpUrl } from './transport-security.js';

const isFindingType = (text: string) => (findingTypeNames as readonly string[]).includes(text);

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

/** Text from an environment variable, as a number (a file's number passes as it is; anything else fails below). */
/** A DuckDB memory size: "512MB", "2GB", "1.5GiB". */
const memorySize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'must be a size such as "512MB" or "2GB"');

/** `memoryLimit`: "auto" (core/memory-policy.ts) or a DuckDB memory size. */
const memorySetting = z
  .string()
  .regex(/^(auto|\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB))$/i, 'must be "auto" or a size such as "512MB" or "2GB"')
  .transform((text) => (text.toLowerCase() === 'auto' ? 'auto' : text));

/** A calendar date written YYYY-MM-DD that exists (2026-02-30 does not). */
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine((text) => {
    const time = Date.parse(`${text}T00:00:00Z`);
    return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text;
  }, 'is not a calendar date');

const numberFromText = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value);

/**
 * Every option, documented where it is defined, with its default (`@default`). Relative paths in a config file are
 * relative to that file (config/load.ts); some options can also be set by an environment variable
 * (`environmentOverrides` in config/load.ts).
 */
export const configSchema = z.strictObject({
  /**
   * IANA time zone of the calendar: periods, extract windows, local dates and the report's times.
   * @default 'America/Sao_Paulo'
   */
  timezone: timeZone.default('America/Sao_Paulo'),
  /**
   * The DuckDB file; its read-only snapshot for analysts is published beside it.
   * @default 'data/pinrecon.duckdb'
   */
  database: z.string().min(1).default('data/pinrecon.duckdb'),
  /**
   * Seconds a job waits for the database when another process holds its lock, before failing (readers never wait:
   * they read the snapshot). Environment: PINRECON_LOCK_WAIT_SECONDS.
   * @default 60
   */
  lockWaitSeconds: z.preprocess(numberFromText, z.number().nonnegative().default(60)),
  /**
   * DuckDB's memory (its buffer pool) in every command; beyond it DuckDB spills to a `.tmp` folder beside the
   * database instead of growing. "auto" sizes it from the work: 96 bytes per sale in the database when a command
   * opens it, raised to 128 bytes per record of the window a load adds and, in reconcile, 150 bytes per ledger line
   * and sale of the period's scope; at least 512MB and at most half the machine's memory. A month-end of a million
   * sales peaks at ≈ 1 GiB of RSS in all; "384MB" holds it to ≈ 0.75 GiB for ≈ 5 % more CPU.
   * A size ("3GB") fixes it. Environment: PINRECON_MEMORY_LIMIT.
   * @default 'auto'
   */
  memoryLimit: memorySetting.default('auto'),
  /** The partner's API. */
  api: z
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
          message: `must be https:// (credentials and tokens travel over it) unless the host is loopback; set api.allowInsecureHttp to true to accept ${url.protocol}// anyway`,
        });
      }
    })
    .prefault({}),
  /** `pinrecon extract`: the provider's sales, by calendar windows. */
  extract: z
    .strictObject({
      /**
       * Windows within this many days of today are always fetched again (statuses change).
       * @default 35
       */
      lookbackDays: z.number().int().nonnegative().default(35),
      /**
       * Where raw responses are kept, compressed.
       * @default undefined (`landing/` beside the database)
       */
      landingDir: z.string().optional(),
      /**
       * Longest window in days (the API allows 31).
       * @default 31
       */
      maxWindowDays: z.number().int().min(1).max(31).default(31),
      /**
       * DuckDB's memory while loading windows, if it should differ from `memoryLimit` (the job's setting is
       * restored after the windows).
       * @default memoryLimit
       */
      memoryLimit: memorySize.optional(),
      /**
       * YYYY-MM-DD: the provider holds no sale of ours created before this date (the partner's first sale, or
       * the start of the contract). With it, `extract` and `run` first back-fill the by-creation windows from
       * it, and the stored windows then prove a paid order without a provider sale absent (proof `windows`)
       * with no individual look-up; without it, only a look-up proves absence (interface.md "Proof of
       * absence"). Environment: PINRECON_HISTORY_START.
       * @default undefined (no back-fill: absence is proven by look-ups)
       */
      historyStart: calendarDate.optional(),
    })
    .prefault({}),
  /** `pinrecon ledger import`: the partner's own order ledger. */
  ledger: z
    .strictObject({
      /**
       * The ledger file (CSV, XLSX, JSON, NDJSON or Parquet, by extension) the month-end job imports.
       * @default 'ledger.csv'
       */
      path: z.string().default('ledger.csv'),
      /**
       * CSV field separator: `,`, `;`, `|` or tab (also written "tab" or "\\t").
       * @default ','
       */
      delimiter: z
        .string()
        .transform(
          (text, context) =>
            normalizeDelimiter(text) ??
            (context.addIssue({ code: 'custom', message: 'must be ",", ";", "|" or tab' }), z.NEVER),
        )
        .default(','),
      /**
       * CSV quote character.
       * @default '"'
       */
      quote: z.string().length(1).default('"'),
      /**
       * Decimal separator of money written as text.
       * @default '.'
       */
      decimalSeparator: z.enum(['.', ',']).default('.'),
      /**
       * Text encoding of a CSV file: utf-8, latin1 (ISO-8859-1) or windows-1252 (usual spellings accepted).
       * @default 'utf-8'
       */
      encoding: z
        .string()
        .transform(
          (text, context) =>
            normalizeEncoding(text) ??
            (context.addIssue({ code: 'custom', message: 'must be utf-8, latin1 (ISO-8859-1) or windows-1252' }),
            z.NEVER),
        )
        .default('utf-8'),
      /**
       * How dates written as text are read (date-fns tokens).
       * @default 'yyyy-MM-dd'
       */
      dateFormat: z.string().default('yyyy-MM-dd'),
      /**
       * Excel sheet to read.
       * @default undefined (the first sheet)
       */
      sheet: z.string().optional(),
      /**
       * Canonical column → header in the file, for headers that differ from the canonical names.
       * @default {} (the canonical names)
       */
      columns: z.record(z.string(), z.string()).default({}),
      /**
       * An import that would replace a path's accepted lines with fewer than this share of them (or with none)
       * is refused unless `--replace` (default 0.5: a truncated export must not wipe a good one).
       */
      minReplaceRatio: z.number().min(0).max(1).default(0.5),
    })
    .prefault({}),
  /** `pinrecon reconcile`: how the two sides are compared. */
  reconciliation: z
    .strictObject({
      /**
       * Largest difference between expected and charged cost that is not a cost_mismatch.
       * @default 0.01
       */
      costTolerance: money.default(0.01),
      /**
       * Largest difference between the two sales prices that is not a price_mismatch.
       * @default undefined (costTolerance)
       */
      priceTolerance: money.optional(),
      /**
       * A booked or unsent key older than this many days at as-of is an unredeemed_key.
       * @default 3
       */
      unredeemedAfterDays: z.number().int().nonnegative().default(3),
      /**
       * Provider status text → class (redeemed, canceled, booked); a status not listed is unknown_status.
       * @default { 'Redeemed by Client': 'redeemed', 'Canceled in stock': 'canceled', delivered: 'booked' }
       */
      statusMap: z
        .record(z.string(), z.enum(['redeemed', 'canceled', 'booked']))
        .default({ 'Redeemed by Client': 'redeemed', 'Canceled in stock': 'canceled', delivered: 'booked' }),
      /**
       * Look up every would-be missing_at_provider reference individually before concluding (needs credentials).
       * @default true
       */
      lookupMissing: z.boolean().default(true),
    })
    .prefault({}),
  /** `pinrecon report` and `export`. */
  reports: z
    .strictObject({
      /**
       * Where workbooks (pinrecon-<period>.xlsx), dry-run emails and exports are written.
       * Environment: PINRECON_REPORTS_DIR.
       * @default 'data/reports'
       */
      outDir: z.string().default('data/reports'),
      /**
       * The paper the workbook is laid out for when printed: `A4` (most of the world) or `letter` (US). The
       * Summary prints portrait on at most 2 pages, each finding sheet landscape with its key columns (finding
       * id, reference, type, amounts, decision, note) on every page; text is never scaled below 8 pt.
       * @default 'A4'
       */
      paperSize: z.enum(['A4', 'letter']).default('A4'),
    })
    .prefault({}),
  /** `pinrecon actions`: who may approve what (maker-checker, interface.md "Actions"). */
  actions: z
    .strictObject({
      /**
       * Per currency (ISO 4217 → amount): an action whose amount is above it may be approved only by one of
       * `approvers`. A currency not listed has no limit (any second person may approve). The person who
       * decided the finding never approves its action, whatever the amount.
       * @default {}
       */
      approvalLimit: z
        .record(z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as "BRL"'), money)
        .default({}),
      /**
       * The names (as given to `--by`) that may approve actions above `approvalLimit`.
       * @default []
       */
      approvers: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  /** `pinrecon actions export --kind journal`: the accounts of the journal entries. */
  journal: z
    .strictObject({
      /**
       * Debit and credit account per finding type and decision. Keys: `default`, a decision (`write_off`,
       * `fix_ledger`), a finding type (`cost_mismatch`) or both (`cost_mismatch:write_off`); the most
       * specific key wins (type:decision, then type, then decision, then default). A negative difference
       * (a gain) swaps the two accounts.
       * @default { default: { debit: '6100', credit: '2100' } }
       */
      accounts: z
        .record(z.string().min(1), z.strictObject({ debit: z.string().min(1), credit: z.string().min(1) }))
        .default({ default: { debit: '6100', credit: '2100' } })
        .superRefine((accounts, context) => {
          if (!('default' in accounts)) {
            context.addIssue({ code: 'custom', message: 'needs a "default" entry ({ "debit": "…", "credit": "…" })' });
          }
          for (const key of Object.keys(accounts)) {
            const [type, decision, ...rest] = key.split(':');
            const typed = isFindingType(type!) && rest.length === 0 && (decision === undefined || isDecision(decision));
            const known = key === 'default' || isDecision(key) || typed;
            if (!known) {
              const message = 'must be "default", a decision, a finding type, or "<finding type>:<decision>"';
              context.addIssue({ code: 'custom', path: [key], message });
            }
          }
        }),
    })
    .prefault({}),
  security: z
    .strictObject({
      /**
       * What of a PIN is kept on disk (database and landing files): `store` the whole key; `hash` its last 4
       * characters and an HMAC-SHA256 of it (secret: PINRECON_KEY_SECRET, else `pinrecon.key` beside the
       * database); `drop` its last 4 only. Default: `hash` for a new database; an existing database keeps
       * the mode it recorded (a contradicting value is refused; `pinrecon keys protect` migrates `store`).
       */
      keys: z.enum(['store', 'hash', 'drop']).optional(),
    })
    .prefault({}),
  /** `pinrecon report --email`: the message to finance. */
  email: z
    .strictObject({
      /**
       * SMTP server as `smtp://` or `smtps://user:pass@host:port` (STARTTLS when offered); a `/ # ? @ %` in the
       * user or password is percent-encoded. Checked at load, never echoed. Environment: PINRECON_SMTP_URL.
       * @default 'smtp://127.0.0.1:2525'
       */
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
      /**
       * The SMTP password as is, no percent-encoding; replaces the URL's (the URL then names only the user).
       * Environment: PINRECON_SMTP_PASSWORD (better than the file).
       * @default undefined (the URL's password, if any)
       */
      smtpPassword: z.string().min(1).optional(),
      /**
       * Allow sending credentials without TLS to a host that is not loopback (with a user or password, the
       * connection must be smtps:// or upgrade with STARTTLS, else nothing is sent). Warned about on every run.
       * @default false
       */
      allowPlaintextAuth: z.boolean().default(false),
      /**
       * Sender address.
       * @default 'pinrecon@example.com'
       */
      from: z.string().default('pinrecon@example.com'),
      /**
       * Recipients.
       * @default ['finance@example.com']
       */
      to: z.array(z.string()).default(['finance@example.com']),
      /**
       * Subject line; `{period}` in it becomes the period.
       * @default undefined ("pinrecon <period>: N findings")
       */
      subject: z.string().optional(),
      /**
       * Larger workbooks are replaced by a summary-only one in the email.
       * @default 15728640 (15 MiB)
       */
      maxAttachmentBytes: z
        .number()
        .int()
        .positive()
        .default(15 * 1024 * 1024),
      /**
       * Retries of a failed send.
       * @default 3
       */
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
        context.addIssue({
          code: 'custom',
          path: ['smtpPassword'],
          message: 'needs a user in email.smtpUrl (smtp://user@host:port)',
        });
      }
    })
    .prefault({}),
  /**
   * `pinrecon schedule`: jobs run on a cron expression, each with its job, the period it works on
   * (`previous`, `current` or YYYY-MM, default previous), whether it emails (default false) and an optional ledger file.
   * @default []
   */
  schedules: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        cron: z.string().min(1),
        job: z.enum(['run', 'extract', 'reconcile', 'report', 'catalog']),
        period: z
          .union([z.literal('previous'), z.literal('current'), z.string().regex(/^\d{4}-\d{2}$/)])
          .default('previous'),
        email: z.boolean().default(false),
        ledger: z.string().optional(),
      }),
    )
    .default([]),
});

export type Config = z.infer<typeof configSchema>;
export type ApiConfig = Config['api'];
