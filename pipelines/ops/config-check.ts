/**
 * `pinrecon config show --check` (issue 31, like `dbt debug`): tries what a job needs before it runs: the
 * database opens and answers, the provider gives a token for the configured credentials (and answers one catalog
 * call), and the SMTP relay accepts a connection (TLS and login as a send would). Each is OK or FAIL with the
 * reason; a credential never appears in one.
 */
import { existsSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import type { ApiConfig, Config, EmailConfig } from '../../config/schema.js';
import { parseSmtpUrl, redactUrl, resolveLoopback, smtpRequiresTls } from '../../config/transport-security.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import { redactRememberedSecrets } from '../../core/secret-redaction.js';
import { lockedByAnotherProcess, Warehouse } from '../../core/warehouse.js';
import { PartnerApiClient } from '../../sources/partner-api/client.js';
import { RateLimiter } from '../../sources/partner-api/rate-limiter.js';

export interface CheckResult {
  name: 'database' | 'provider' | 'smtp';
  ok: boolean;
  /** What was tried and what came back. */
  detail: string;
}

const reason = (error: unknown) => redactRememberedSecrets(error instanceof Error ? error.message : String(error));

/** Every check, in the order a month-end needs them; none stops the others. */
export async function checkConfig(config: Config): Promise<CheckResult[]> {
  return [await checkDatabase(config), await checkProvider(config.api), await checkSmtp(config.email)];
}

export async function checkDatabase(config: Config): Promise<CheckResult> {
  const file = config.database;
  if (!existsSync(file)) {
    const folder = path.dirname(file);
    try {
      await access(existsSync(folder) ? folder : path.dirname(folder), constants.W_OK);
      return { name: 'database', ok: true, detail: `no database yet; the first job creates ${file}` };
    } catch {
      return { name: 'database', ok: false, detail: `no database at ${file}, and its folder is not writable` };
    }
  }
  try {
    const warehouse = await Warehouse.open(file, warehouseSettings(config, { readOnly: true, lockWaitSeconds: 0 }));
    try {
      const row = await warehouse.one<{ sales: string }>(
        `SELECT (SELECT count(*) FROM duckdb_tables() WHERE table_name = 'sales')::VARCHAR AS sales`,
      );
      const tables = row?.sales === '1' ? 'pinrecon tables present' : 'no pinrecon tables yet';
      return { name: 'database', ok: true, detail: `${file} opens (${tables})` };
    } finally {
      warehouse.close();
    }
  } catch (error) {
    if (lockedByAnotherProcess(error)) {
      return { name: 'database', ok: true, detail: `${file} is in use by a running job (readers use its snapshot)` };
    }
    return { name: 'database', ok: false, detail: `${file}: ${reason(error)}` };
  }
}

/** Takes only its slice of the config (issue 27): the `api` section. */
export async function checkProvider(config: ApiConfig): Promise<CheckResult> {
  const where = new URL(config.baseUrl).origin;
  if (!config.identifier || !config.secret) {
    const missing = !config.identifier
      ? 'api.identifier (PINRECON_API_IDENTIFIER)'
      : 'api.secret (PINRECON_API_SECRET)';
    return { name: 'provider', ok: false, detail: `${where}: ${missing} is not set` };
  }
  // A check answers in seconds: one retry, a short wait, and a limiter of its own.
  const api = {
    ...config,
    maxRetries: 1,
    maxRateLimitedRetries: 2,
    timeoutMs: Math.min(config.timeoutMs, 10_000),
  };
  const client = new PartnerApiClient(api, { limiter: new RateLimiter(api.maxRequestsPerSecond) });
  try {
    const collections = await client.listCollections();
    return { name: 'provider', ok: true, detail: `${where}: token granted; ${collections.length} collections listed` };
  } catch (error) {
    return { name: 'provider', ok: false, detail: `${where}: ${reason(error)}` };
  } finally {
    client.close();
  }
}

/** Takes only its slice of the config (issue 27): the `email` section. */
export async function checkSmtp(email: EmailConfig): Promise<CheckResult> {
  const server = redactUrl(email.smtpUrl);
  const target = parseSmtpUrl(email.smtpUrl);
  const password = email.smtpPassword ?? target.password;
  const hasCredentials = target.user !== undefined || password !== undefined;
  const loopback = hasCredentials && !target.secure ? (await resolveLoopback(target.host)).loopback : false;
  const { createTransport } = (await import('nodemailer')).default;
  const transport = createTransport({
    host: target.host,
    ...(target.port !== undefined ? { port: target.port } : {}),
    secure: target.secure,
    ...(hasCredentials ? { auth: { user: target.user ?? '', pass: password ?? '' } } : {}),
    requireTLS: smtpRequiresTls(target, hasCredentials, email.allowPlaintextAuth, loopback),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
  });
  try {
    await transport.verify();
    return {
      name: 'smtp',
      ok: true,
      detail: `${server} accepts a connection${hasCredentials ? ' and the login' : ''}`,
    };
  } catch (error) {
    return { name: 'smtp', ok: false, detail: `${server}: ${reason(error)}` };
  } finally {
    transport.close();
  }
}
