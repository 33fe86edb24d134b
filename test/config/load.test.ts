import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { loadConfig, redactConfig } from '../../config/load.js';
import { packageRoot } from '../../core/paths.js';
import { defaultEndpoints } from '../../config/schema.js';
import { isLoopbackHost, parseSmtpUrl, redactUrl } from '../../config/transport-security.js';

function writeConfig(content: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-config-'));
  const file = path.join(dir, 'pinrecon.config.json');
  writeFileSync(file, content);
  return file;
}

describe('configuration', () => {
  it('uses the built-in defaults when there is no file', () => {
    const { config, file } = loadConfig({ env: {}, cwd: mkdtempSync(path.join(tmpdir(), 'pinrecon-empty-')) });
    expect(file).toBeUndefined();
    expect(config.timezone).toBe('America/Sao_Paulo');
    expect(config.api.maxRequestsPerSecond).toBe(25);
    expect(config.api.endpoints).toEqual(defaultEndpoints);
    expect(config.reconciliation.statusMap['Redeemed by Client']).toBe('redeemed');
    expect(config.extract.lookbackDays).toBe(35);
  });

  it('reads the shipped example (comments and all) and it equals the documented defaults', () => {
    const { config } = loadConfig({ file: path.join(packageRoot(), 'config', 'pinrecon.example.json'), env: {} });
    const defaults = loadConfig({ env: {}, cwd: mkdtempSync(path.join(tmpdir(), 'pinrecon-empty-')) }).config;
    expect(config.api.endpoints).toEqual(defaults.api.endpoints);
    expect(config.api.maxRequestsPerSecond).toBe(defaults.api.maxRequestsPerSecond);
    expect(config.schedules.map((s) => s.name)).toEqual(['month-end', 'daily-extract']);
  });

  it(
    'takes extract.historyStart from the file or PINRECON_HISTORY_START (unset by default), ' +
      'and refuses a date that is not one',
    () => {
      const cwd = mkdtempSync(path.join(tmpdir(), 'pinrecon-empty-'));
      expect(loadConfig({ env: {}, cwd }).config.extract.historyStart).toBeUndefined();
      expect(loadConfig({ env: { PINRECON_HISTORY_START: '2025-01-01' }, cwd }).config.extract.historyStart).toBe(
        '2025-01-01',
      );
      const file = writeConfig('{ "extract": { "historyStart": "2024-07-01" } }');
      expect(loadConfig({ file, env: {} }).config.extract.historyStart).toBe('2024-07-01');
      expect(() => loadConfig({ env: { PINRECON_HISTORY_START: '2025-02-30' }, cwd })).toThrow(
        /PINRECON_HISTORY_START: extract\.historyStart/,
      );
      expect(() => loadConfig({ env: { PINRECON_HISTORY_START: '01/01/2025' }, cwd })).toThrow(/YYYY-MM-DD/);
    },
  );

  it(
    'takes the lock wait from PINRECON_LOCK_WAIT_SECONDS through the schema (default 60), ' +
      'and names the variable when it is not a number',
    () => {
      const cwd = mkdtempSync(path.join(tmpdir(), 'pinrecon-empty-'));
      expect(loadConfig({ env: {}, cwd }).config.lockWaitSeconds).toBe(60);
      expect(loadConfig({ env: { PINRECON_LOCK_WAIT_SECONDS: '1.5' }, cwd }).config.lockWaitSeconds).toBe(1.5);
      expect(() => loadConfig({ env: { PINRECON_LOCK_WAIT_SECONDS: 'soon' }, cwd })).toThrow(
        /environment variable PINRECON_LOCK_WAIT_SECONDS: lockWaitSeconds/,
      );
      expect(() => loadConfig({ env: { PINRECON_LOCK_WAIT_SECONDS: '-1' }, cwd })).toThrow(
        /PINRECON_LOCK_WAIT_SECONDS/,
      );
    },
  );

  it('writes reports under data/reports by default, not into the source folder reports/', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'pinrecon-empty-'));
    expect(loadConfig({ env: {}, cwd }).config.reports.outDir).toBe(path.join(cwd, 'data', 'reports'));
  });

  it('lets environment variables override the file', () => {
    const file = writeConfig('{ "api": { "baseUrl": "http://127.0.0.1:1111", "maxRequestsPerSecond": 10 } }');
    const { config } = loadConfig({
      file,
      env: {
        PINRECON_API_BASE_URL: 'http://127.0.0.1:2222',
        PINRECON_API_SECRET: 's3cr3t',
        PINRECON_SMTP_URL: 'smtps://u:p@127.0.0.1:465',
      },
    });
    expect(config.api.baseUrl).toBe('http://127.0.0.1:2222');
    expect(config.api.secret).toBe('s3cr3t');
    expect(config.api.maxRequestsPerSecond).toBe(10);
    expect(config.email.smtpUrl).toBe('smtps://u:p@127.0.0.1:465');
  });

  it('resolves relative paths against the config file', () => {
    const file = writeConfig('{ "database": "db/x.duckdb", "reports": { "outDir": "out" } }');
    const { config } = loadConfig({ file, env: {} });
    expect(config.database).toBe(path.join(path.dirname(file), 'db', 'x.duckdb'));
    expect(config.reports.outDir).toBe(path.join(path.dirname(file), 'out'));
  });

  it('names the file and the key of a bad value', () => {
    const file = writeConfig('{ "api": { "maxRequestsPerSecond": "fast" } }');
    expect(() => loadConfig({ file, env: {} })).toThrow(ConfigError);
    expect(() => loadConfig({ file, env: {} })).toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1: api\\.maxRequestsPerSecond`),
    );
  });

  it('names an environment variable holding a bad value', () => {
    expect(() => loadConfig({ env: { PINRECON_API_BASE_URL: 'not a url' }, cwd: tmpdir() })).toThrow(
      /environment variable PINRECON_API_BASE_URL: api\.baseUrl/,
    );
  });

  it('rejects unknown keys so typos are caught', () => {
    const file = writeConfig('{ "reconciliation": { "costTolerence": 0.05 } }');
    expect(() => loadConfig({ file, env: {} })).toThrow(/reconciliation.*costTolerence/);
  });

  it('rejects a malformed endpoint template and an unknown time zone', () => {
    const file = writeConfig('{ "timezone": "Mars/Olympus", "api": { "endpoints": { "getToken": "/auth" } } }');
    let error: unknown;
    try {
      loadConfig({ file, env: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/timezone: must be an IANA time zone/);
    expect((error as Error).message).toMatch(/api\.endpoints\.getToken: must look like "METHOD \/path\/\{param\}"/);
  });

  it('reports invalid JSON with the file and line', () => {
    const file = writeConfig('{\n  "timezone": "UTC",\n  "database": \n}');
    expect(() => loadConfig({ file, env: {} })).toThrow(/pinrecon\.config\.json:\d+: not valid JSON/);
  });

  it('never shows credentials when the config is printed', () => {
    const file = writeConfig(
      '{ "api": { "identifier": "partner-42", "secret": "hunter2" }, "email": { "smtpUrl": ' +
        '"smtp://bob:pa55@127.0.0.1:25" } }',
    );
    const printed = JSON.stringify(redactConfig(loadConfig({ file, env: {} }).config));
    expect(printed).not.toContain('hunter2');
    expect(printed).not.toContain('partner-42');
    expect(printed).not.toContain('pa55');
  });
});

describe('ledger settings', () => {
  it('accepts the usual spellings of encodings and delimiters, and names the key of an unknown one', () => {
    const parse = (ledger: Record<string, unknown>) =>
      loadConfig({ file: writeConfig(JSON.stringify({ ledger })), env: {} }).config.ledger;
    expect(parse({ encoding: 'ISO-8859-1', delimiter: 'tab' })).toMatchObject({ encoding: 'latin1', delimiter: '\t' });
    expect(parse({ encoding: 'UTF8', delimiter: ';' })).toMatchObject({ encoding: 'utf-8', delimiter: ';' });
    expect(parse({ encoding: 'cp1252', delimiter: '\\t' })).toMatchObject({
      encoding: 'windows-1252',
      delimiter: '\t',
    });
    expect(() => parse({ encoding: 'ebcdic' })).toThrow(/ledger\.encoding: must be utf-8, latin1/);
    expect(() => parse({ delimiter: '#' })).toThrow(/ledger\.delimiter: must be/);
  });
});

describe('credentials in transit', () => {
  const load = (content: object, env: NodeJS.ProcessEnv = {}) =>
    loadConfig({ file: writeConfig(JSON.stringify(content)), env });
  const configError = (content: object, env: NodeJS.ProcessEnv = {}): string => {
    try {
      load(content, env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('reads an SMTP password holding / # @ % when percent-encoded, and never echoes one that is not', () => {
    const password = 'a/b#c@d%e';
    const { config } = load({ email: { smtpUrl: `smtp://bob:${encodeURIComponent(password)}@mail.example.com:587` } });
    expect(parseSmtpUrl(config.email.smtpUrl)).toEqual({
      secure: false,
      host: 'mail.example.com',
      port: 587,
      user: 'bob',
      password,
    });
    expect(redactUrl(config.email.smtpUrl)).toBe('smtp://***@mail.example.com:587');
    for (const raw of ['x/y-secret', 'x#y-secret', 'x@y-secret', 'x%zz-secret', 'x?y-secret']) {
      const message = configError({ email: { smtpUrl: `smtp://bob:${raw}@mail.example.com:587` } });
      expect(message).toMatch(/email\.smtpUrl: .*percent-encode/);
      expect(message).not.toContain('y-secret');
      expect(message).not.toContain('zz-secret');
      expect(redactUrl(`smtp://bob:${raw}@mail.example.com:587`)).not.toContain('secret');
    }
    expect(configError({ email: { smtpUrl: 'http://mail.example.com' } })).toMatch(
      /email\.smtpUrl: must start with smtp:\/\/ or smtps:\/\//,
    );
  });

  it('takes PINRECON_SMTP_PASSWORD as its own variable, hidden when the config is printed', () => {
    const { config } = load(
      { email: { smtpUrl: 'smtps://bob@mail.example.com' } },
      { PINRECON_SMTP_PASSWORD: 'p@ss/w#rd' },
    );
    expect(config.email.smtpPassword).toBe('p@ss/w#rd');
    expect(JSON.stringify(redactConfig(config))).not.toContain('p@ss');
    expect(configError({}, { PINRECON_SMTP_PASSWORD: 'x' })).toMatch(/email\.smtpPassword: needs a user/);
  });

  it('wants https for the API unless the host is loopback or api.allowInsecureHttp opts out, with a warning', () => {
    expect(configError({ api: { baseUrl: 'http://partner.example.com' } })).toMatch(
      /api\.baseUrl: must be https:\/\/.*api\.allowInsecureHttp/,
    );
    expect(load({ api: { baseUrl: 'https://partner.example.com' } }).warnings).toEqual([]);
    for (const baseUrl of ['http://127.0.0.1:8787', 'http://localhost:1', 'http://[::1]:8787'])
      expect(load({ api: { baseUrl } }).warnings).toEqual([]);
    const optedOut = load({ api: { baseUrl: 'http://partner.example.com', allowInsecureHttp: true } });
    expect(optedOut.warnings).toEqual([
      expect.stringMatching(/api\.allowInsecureHttp is set: .*unencrypted to partner\.example\.com/),
    ]);
  });

  it('warns on every load while email.allowPlaintextAuth lets credentials go to a remote host unencrypted', () => {
    const remote = { smtpUrl: 'smtp://bob:pw@mail.example.com', allowPlaintextAuth: true };
    expect(load({ email: remote }).warnings).toEqual([expect.stringMatching(/email\.allowPlaintextAuth is set/)]);
    expect(load({ email: { ...remote, smtpUrl: 'smtps://bob:pw@mail.example.com' } }).warnings).toEqual([]);
    expect(load({ email: { ...remote, smtpUrl: 'smtp://bob:pw@127.0.0.1:2525' } }).warnings).toEqual([]);
    expect(
      isLoopbackHost('127.9.8.7') &&
        isLoopbackHost('LOCALHOST') &&
        !isLoopbackHost('127.example.com') &&
        !isLoopbackHost('10.0.0.1'),
    ).toBe(true);
  });
});
