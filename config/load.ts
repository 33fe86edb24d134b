/**
 * Finds, reads and validates the configuration: `--config FILE`, else `$PINRECON_CONFIG`, else
 * `./pinrecon.config.json`, else built-in defaults (an explicit choice beats an implicit one, issue 31); then
 * environment variables override the file (config/environment.ts). Every error names the file:line (or variable)
 * and the key.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { rememberSecrets } from '../core/secret-redaction.js';
import { applyEnvironment, type EnvironmentSetting, environmentOverrides } from './environment.js';
import { lineOfKey, parseJsonc } from './jsonc.js';
import { configSchema, type Config } from './schema.js';
import { isLoopbackAddress, parseSmtpUrl, redactUrl as redactUrlText } from './transport-security.js';

export interface LoadedConfig {
  config: Config;
  /** The file it came from, or undefined for built-in defaults. */
  file?: string;
  /** How the file was chosen: `--config`, `$PINRECON_CONFIG`, `./pinrecon.config.json` or `defaults`. */
  chosenBy?: 'option' | 'environment' | 'working directory' | 'defaults';
  /** The environment variables that set keys, in the order applied. */
  environment?: EnvironmentSetting[];
  /** Unsafe choices the operator opted into (plain-text credentials), said on every run. */
  warnings?: string[];
}

export { environmentOverrides, parseJsonc };

export function resolveConfigPath(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): string | undefined {
  return chooseConfigFile(explicit, env, cwd).file;
}

/** The config file and why it was chosen: `--config` > `$PINRECON_CONFIG` > `./pinrecon.config.json` (issue 31). */
export function chooseConfigFile(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { file?: string; chosenBy: NonNullable<LoadedConfig['chosenBy']> } {
  if (explicit) return { file: path.resolve(cwd, explicit), chosenBy: 'option' };
  if (env.PINRECON_CONFIG) return { file: path.resolve(cwd, env.PINRECON_CONFIG), chosenBy: 'environment' };
  const local = path.resolve(cwd, 'pinrecon.config.json');
  if (existsSync(local)) return { file: local, chosenBy: 'working directory' };
  return { chosenBy: 'defaults' };
}

export function loadConfig(options: { file?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const { file, chosenBy } = chooseConfigFile(options.file, env, cwd);
  let raw: unknown = {};
  let text = '';
  if (file) {
    if (!existsSync(file)) {
      const named = chosenBy === 'environment' ? ' (named by $PINRECON_CONFIG)' : '';
      throw new ConfigError(`${file}: config file not found${named}. Pass --config with an existing file.`, file);
    }
    text = readFileSync(file, 'utf8');
    raw = parseJsonc(text, file);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ConfigError(`${file}: the config must be a JSON object.`, file);
    }
  }
  const merged = structuredClone(raw) as Record<string, unknown>;
  const environment = applyEnvironment(merged, env, configSchema);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) throw configErrorFrom(parsed.error, file, text, environment);
  const config = parsed.data;
  // Relative paths in a config file are relative to that file, so a scheduled job finds them from anywhere.
  const base = file ? path.dirname(file) : cwd;
  config.database = path.resolve(base, config.database);
  config.reports.outDir = path.resolve(base, config.reports.outDir);
  config.ledger.path = path.resolve(base, config.ledger.path);
  if (config.extract.landingDir) config.extract.landingDir = path.resolve(base, config.extract.landingDir);
  rememberSecrets(configCredentials(config));
  return { config, file, chosenBy, environment, warnings: transportWarnings(config) };
}

/**
 * The API secret and the SMTP password (as given and as written in the URL): never in an error. (The API
 * identifier is redacted from provider answers; it may be a common word, so it is not removed everywhere.)
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
      `api.allowInsecureHttp is set: the API credentials, tokens and PINs travel unencrypted to ${api.host}. Use an ` +
        `https:// baseUrl.`,
    );
  }
  const smtp = parseSmtpUrl(config.email.smtpUrl);
  const hasCredentials =
    smtp.user !== undefined || smtp.password !== undefined || config.email.smtpPassword !== undefined;
  if (config.email.allowPlaintextAuth && hasCredentials && !smtp.secure && !isLoopbackAddress(smtp.host)) {
    warnings.push(
      `email.allowPlaintextAuth is set: the SMTP password may be sent unencrypted to ${smtp.host} when the server ` +
        `offers no STARTTLS. Use smtps:// or a server with STARTTLS.`,
    );
  }
  return warnings;
}

function configErrorFrom(
  error: z.ZodError,
  file: string | undefined,
  text: string,
  environment: EnvironmentSetting[],
): ConfigError {
  const lines = error.issues.map((issue) => {
    const key = issue.path.join('.') || '(root)';
    // The last variable that set this key or a key above it (a section given as JSON) is where the value came from.
    const variable = environment.findLast(
      ({ keyPath }) => key === keyPath.join('.') || key.startsWith(`${keyPath.join('.')}.`),
    )?.variable;
    const line = file && !variable ? lineOfKey(text, issue.path) : undefined;
    const where = variable
      ? `environment variable ${variable}`
      : file
        ? `${file}${line ? `:${line}` : ''}`
        : 'built-in defaults';
    const unknownKeys =
      issue.code === 'unrecognized_keys'
        ? ` (${issue.keys.map((k) => (key === '(root)' ? k : `${key}.${k}`)).join(', ')})`
        : '';
    return `${where}: ${key}${unknownKeys}: ${issue.message}`;
  });
  const first = error.issues[0];
  return new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`, file, first?.path.join('.'));
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
