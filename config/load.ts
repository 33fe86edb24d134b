/**
 * Finds, reads and validates the configuration: `--config FILE`, else `./pinrecon.config.json`, else
 * `$PINRECON_CONFIG`, else built-in defaults; then environment variables override the file.
 * Every error names the file (or variable) and the key.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { rememberSecrets } from '../core/secret-redaction.js';
import { configSchema, type Config } from './schema.js';
import { isLoopbackAddress, parseSmtpUrl, redactUrl as redactUrlText } from './transport-security.js';

export interface LoadedConfig {
  config: Config;
  /** The file it came from, or undefined for built-in defaults. */
  file?: string;
  /** Unsafe choices the operator opted into (plain-text credentials), said on every run. */
  warnings?: string[];
}

/** Environment variable → config key path. Applied after the file, before validation. */
export const environmentOverrides: Record<string, string[]> = {
  PINRECON_API_BASE_URL: ['api', 'baseUrl'],
  PINRECON_API_IDENTIFIER: ['api', 'identifier'],
  PINRECON_API_SECRET: ['api', 'secret'],
  PINRECON_SMTP_URL: ['email', 'smtpUrl'],
  PINRECON_SMTP_PASSWORD: ['email', 'smtpPassword'],
  PINRECON_DATABASE: ['database'],
  PINRECON_TIMEZONE: ['timezone'],
  PINRECON_REPORTS_DIR: ['reports', 'outDir'],
  PINRECON_LOCK_WAIT_SECONDS: ['lockWaitSeconds'],
  PINRECON_MEMORY_LIMIT: ['memoryLimit'],
  PINRECON_HISTORY_START: ['extract', 'historyStart'],
};

export function resolveConfigPath(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): string | undefined {
  if (explicit) return path.resolve(cwd, explicit);
  const local = path.resolve(cwd, 'pinrecon.config.json');
  if (existsSync(local)) return local;
  if (env.PINRECON_CONFIG) return path.resolve(cwd, env.PINRECON_CONFIG);
  return undefined;
}

export function loadConfig(options: { file?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = resolveConfigPath(options.file, env, cwd);
  let raw: unknown = {};
  if (file) {
    if (!existsSync(file))
      throw new ConfigError(`${file}: config file not found. Pass --config with an existing file.`, file);
    raw = parseJsonc(readFileSync(file, 'utf8'), file);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ConfigError(`${file}: the config must be a JSON object.`, file);
    }
  }
  const merged = applyEnvironment(structuredClone(raw) as Record<string, unknown>, env);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) throw configErrorFrom(parsed.error, file, env);
  const config = parsed.data;
  // Relative paths in a config file are relative to that file, so a scheduled job finds them from anywhere.
  const base = file ? path.dirname(file) : cwd;
  config.database = path.resolve(base, config.database);
  config.reports.outDir = path.resolve(base, config.reports.outDir);
  config.ledger.path = path.resolve(base, config.ledger.path);
  if (config.extract.landingDir) config.extract.landingDir = path.resolve(base, config.extract.landingDir);
  rememberSecrets(configCredentials(config));
  return { config, file, warnings: transportWarnings(config) };
}

/**
 * The API secret and the SMTP password (as given and as written in the URL): never in an error. (The API
 * identifier is redacted from upstream answers; it may be a common word, so it is not removed everywhere.)
 */
export function configCredentials(config: Config): string[] {
  const smtp = URL.canParse(config.email.smtpUrl) ? new URL(config.email.smtpUrl).password : '';
  let decoded = smtp;
  try {
    decoded = decodeURIComponent(smtp);
  } catch {
    // A malformed encoding is refused by the schema; the raw form is remembered anyway.
  }
  return [config.api.secret, config.email.smtpPassword, smtp, decoded].filter(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
}

/**
 * The opt-outs of TLS that are in effect: credentials would travel in plain text past this machine. Loading is
 * synchronous, so a name is not resolved here: only a loopback address spares the warning (issue 18).
 */
export function transportWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const api = new URL(config.api.baseUrl);
  if (config.api.allowInsecureHttp && api.protocol !== 'https:' && !isLoopbackAddress(api.hostname)) {
    warnings.push(
      `api.allowInsecureHttp is set: the API credentials, tokens and PINs travel unencrypted to ${api.host}. Use an https:// baseUrl.`,
    );
  }
  const smtp = parseSmtpUrl(config.email.smtpUrl);
  const hasCredentials =
    smtp.user !== undefined || smtp.password !== undefined || config.email.smtpPassword !== undefined;
  if (config.email.allowPlaintextAuth && hasCredentials && !smtp.secure && !isLoopbackAddress(smtp.host)) {
    warnings.push(
      `email.allowPlaintextAuth is set: the SMTP password may be sent unencrypted to ${smtp.host} when the server offers no STARTTLS. Use smtps:// or a server with STARTTLS.`,
    );
  }
  return warnings;
}

function applyEnvironment(target: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  for (const [variable, keyPath] of Object.entries(environmentOverrides)) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    let node = target;
    for (const key of keyPath.slice(0, -1)) {
      if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    const leaf = keyPath[keyPath.length - 1]!;
    node[leaf] = value;
  }
  return target;
}

function configErrorFrom(error: z.ZodError, file: string | undefined, env: NodeJS.ProcessEnv): ConfigError {
  const lines = error.issues.map((issue) => {
    const key = issue.path.join('.') || '(root)';
    const variable = Object.entries(environmentOverrides).find(
      ([name, keyPath]) => keyPath.join('.') === key && env[name] !== undefined && env[name] !== '',
    )?.[0];
    const where = variable ? `environment variable ${variable}` : (file ?? 'built-in defaults');
    const unknownKeys =
      issue.code === 'unrecognized_keys'
        ? ` (${issue.keys.map((k) => (key === '(root)' ? k : `${key}.${k}`)).join(', ')})`
        : '';
    return `${where}: ${key}${unknownKeys}: ${issue.message}`;
  });
  const first = error.issues[0];
  return new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`, file, first?.path.join('.'));
}

/** JSON with // and /* *\/ comments and trailing commas, as in interface.md's example. */
export function parseJsonc(text: string, file: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) out += text[i++] === '\n' ? '\n' : ' ';
      i++;
    } else out += c;
  }
  out = out.replace(/,(\s*[}\]])/g, '$1');
  try {
    return JSON.parse(out.replace(/^\uFEFF/, ''));
  } catch (error) {
    const message = (error as Error).message;
    const line = errorLine(out, message);
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: not valid JSON (${message}).`, file);
  }
}

/** The line of a JSON.parse error: from "position N" (older V8) or the quoted context snippet (Node 20+). */
function errorLine(text: string, message: string): number | undefined {
  const position = /position (\d+)/.exec(message)?.[1];
  if (position) return text.slice(0, Number(position)).split('\n').length;
  const snippet = /"(?:\.\.\.)?([\s\S]*?)(?:\.\.\.)?" is not valid JSON/.exec(message)?.[1];
  const at = snippet ? text.indexOf(snippet) : -1;
  if (at < 0 || !snippet) return undefined;
  const offset = /Unexpected end/.test(message) ? snippet.length : snippet.length - 1;
  return text.slice(0, at + offset).split('\n').length;
}

/** The config with credentials and tokens replaced, for display and debug output. */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config);
  if (copy.api.identifier) copy.api.identifier = '***';
  if (copy.api.secret) copy.api.secret = '***';
  copy.email.smtpUrl = redactUrl(copy.email.smtpUrl);
  if (copy.email.smtpPassword) copy.email.smtpPassword = '***';
  return copy;
}

/** Removes the password (and user) from a URL such as smtp://user:pass@host. */
export const redactUrl = redactUrlText;
