/**
 * The one definition of pinrecon's configuration (README "Configuration"): every key optional, every default in
 * the section files under config/schema/ (issue 27: split by section, each ≤ 400 lines), composed here. Unknown
 * keys are rejected so that a typo is reported instead of silently ignored. Each section's type (`ApiConfig`,
 * `EmailConfig`, …) is exported so a leaf can take only the part it uses.
 */
import { z } from 'zod';
import { actionsSchema, journalSchema } from './schema/actions.js';
import { analystsSchema } from './schema/analysts.js';
import { apiSchema } from './schema/api.js';
import { memorySetting, numberFromText, timeZone } from './schema/common.js';
import { emailSchema } from './schema/email.js';
import { extractSchema } from './schema/extract.js';
import { ledgerSchema } from './schema/ledger.js';
import { peopleSchema } from './schema/people.js';
import { reconciliationSchema } from './schema/reconciliation.js';
import { reportsSchema } from './schema/reports.js';
import { schedulesSchema } from './schema/schedules.js';
import { securitySchema } from './schema/security.js';

export type { ActionsConfig, JournalConfig } from './schema/actions.js';
export type { AnalystsConfig } from './schema/analysts.js';
export { type ApiConfig, defaultEndpoints, type EndpointName, endpointNames } from './schema/api.js';
export type { EmailConfig } from './schema/email.js';
export type { ExtractConfig } from './schema/extract.js';
export {
  type LedgerConfig,
  type LedgerDelimiter,
  type LedgerEncoding,
  ledgerDelimiters,
  ledgerEncodings,
  normalizeDelimiter,
  normalizeEncoding,
} from './schema/ledger.js';
export { type PeopleConfig, type Person, type PersonRole, personRoles } from './schema/people.js';
export type { ReconciliationConfig } from './schema/reconciliation.js';
export type { ReportsConfig } from './schema/reports.js';
export type { SchedulesConfig } from './schema/schedules.js';
export type { SecurityConfig } from './schema/security.js';

/**
 * Every option, documented where it is defined, with its default (`@default`). Relative paths in a config file are
 * relative to that file (config/load.ts); every option can also be set by an environment variable,
 * `PINRECON_<SECTION>__<KEY>` or an older name (config/environment.ts).
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
  api: apiSchema,
  /** `pinrecon extract`: the provider's sales, by calendar windows. */
  extract: extractSchema,
  /** `pinrecon ledger import`: the partner's own order ledger. */
  ledger: ledgerSchema,
  /** `pinrecon reconcile`: how the two sides are compared. */
  reconciliation: reconciliationSchema,
  /** `pinrecon report` and `export`. */
  reports: reportsSchema,
  /** Who may act, proven by their keys, with their roles (issue 28; empty: names typed, not attested). */
  people: peopleSchema,
  /** `pinrecon actions`: who may approve what (maker-checker, README "Acting on findings"). */
  actions: actionsSchema,
  /** `pinrecon actions export --kind journal`: the accounts of the journal entries. */
  journal: journalSchema,
  /** What of a PIN is kept on disk. */
  security: securitySchema,
  /** `pinrecon report --email`: the message to finance. */
  email: emailSchema,
  /** Who may read the analysts' snapshot and exports besides pinrecon's own account. */
  analysts: analystsSchema,
  /**
   * `pinrecon schedule`: jobs run on a cron expression, each with its job, the period it works on
   * (`previous`, `current` or YYYY-MM, default previous), whether it emails (default false) and an optional ledger
   * file.
   * @default []
   */
  schedules: schedulesSchema,
});

export type Config = z.infer<typeof configSchema>;
