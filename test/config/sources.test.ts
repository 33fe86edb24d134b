/**
 * Where the configuration comes from (issue 31): a kept JSONC parser that leaves strings alone, errors naming
 * file:line and key, `--config` > `$PINRECON_CONFIG` > `./pinrecon.config.json`, and every key from the environment.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';

const folder = () => mkdtempSync(path.join(tmpdir(), 'pinrecon-config-sources-'));

function writeIn(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe('config file syntax (jsonc-parser)', () => {
  it('keeps a string holding commas, brackets and braces unchanged, with comments and trailing commas around', () => {
    const subject = 'Recon {period}, ]final[ ,} check';
    const file = writeIn(
      folder(),
      'c.json',
      `{\n  // the subject\n  "email": { "subject": ${JSON.stringify(subject)}, /* inline */ "to": ["a@b.c",], },\n}\n`,
    );
    const { config } = loadConfig({ file, env: {} });
    expect(config.email.subject).toBe(subject);
    expect(config.email.to).toEqual(['a@b.c']);
  });

  it('names file:line and the key where the text breaks, and file:line of a rejected value', () => {
    const dir = folder();
    const broken = writeIn(dir, 'broken.json', '{\n  "api": {\n    "timeoutMs": 5\n    "maxRetries": 2\n  }\n}');
    expect(() => loadConfig({ file: broken, env: {} })).toThrow(
      /broken\.json:4: not valid JSON \(comma expected at key api\.maxRetries\)/,
    );
    const bad = writeIn(dir, 'bad.json', '{\n  "api": {\n    "timeoutMs": 5,\n    "maxRetries": "two"\n  }\n}');
    expect(() => loadConfig({ file: bad, env: {} })).toThrow(/bad\.json:4: api\.maxRetries:/);
  });
});

describe('which config file', () => {
  it('takes --config over $PINRECON_CONFIG over ./pinrecon.config.json, and says which', () => {
    const cwd = folder();
    writeIn(cwd, 'pinrecon.config.json', '{ "timezone": "UTC" }');
    const named = writeIn(cwd, 'named.json', '{ "timezone": "Europe/Lisbon" }');
    const explicit = writeIn(cwd, 'explicit.json', '{ "timezone": "Asia/Tokyo" }');
    expect(loadConfig({ env: {}, cwd })).toMatchObject({ chosenBy: 'working directory' });
    expect(loadConfig({ env: {}, cwd }).config.timezone).toBe('UTC');
    const fromVariable = loadConfig({ env: { PINRECON_CONFIG: named }, cwd });
    expect(fromVariable).toMatchObject({ file: named, chosenBy: 'environment' });
    expect(fromVariable.config.timezone).toBe('Europe/Lisbon');
    const fromOption = loadConfig({ file: explicit, env: { PINRECON_CONFIG: named }, cwd });
    expect(fromOption).toMatchObject({ file: explicit, chosenBy: 'option' });
    expect(fromOption.config.timezone).toBe('Asia/Tokyo');
    expect(loadConfig({ env: {}, cwd: folder() })).toMatchObject({ file: undefined, chosenBy: 'defaults' });
  });
});

describe('every key from the environment', () => {
  it('reads PINRECON_<SECTION>__<KEY>: numbers and lists as JSON, text as text; says which variables it used', () => {
    const env = {
      PINRECON_API__MAX_REQUESTS_PER_SECOND: '7',
      PINRECON_API__IDENTIFIER: '12345',
      PINRECON_API__ENDPOINTS__GET_TOKEN: 'POST /v2/token',
      PINRECON_EMAIL__TO: '["x@example.com","y@example.com"]',
      PINRECON_EMAIL__SUBJECT: 'Recon {period}, ]final[',
      PINRECON_RECONCILIATION__LOOKUP_MISSING: 'false',
      PINRECON_ACTIONS__APPROVAL_LIMIT: '{"BRL": 500}',
      PINRECON_SCHEDULES: '[{"name":"n","cron":"0 6 * * *","job":"extract"}]',
      PINRECON_DEBUG: '1',
    };
    const loaded = loadConfig({ env, cwd: folder() });
    expect(loaded.config.api.maxRequestsPerSecond).toBe(7);
    expect(loaded.config.api.identifier).toBe('12345');
    expect(loaded.config.api.endpoints.getToken).toBe('POST /v2/token');
    expect(loaded.config.email.to).toEqual(['x@example.com', 'y@example.com']);
    expect(loaded.config.email.subject).toBe('Recon {period}, ]final[');
    expect(loaded.config.reconciliation.lookupMissing).toBe(false);
    expect(loaded.config.actions.approvalLimit).toEqual({ BRL: 500 });
    expect(loaded.config.schedules[0]).toMatchObject({ name: 'n', period: 'previous' });
    expect(loaded.environment?.map((setting) => setting.variable)).not.toContain('PINRECON_DEBUG');
    expect(loaded.environment?.map((setting) => setting.keyPath.join('.'))).toContain('api.maxRequestsPerSecond');
  });

  it('keeps the older names, refuses an unknown key and names the variable of a bad value', () => {
    const cwd = folder();
    expect(loadConfig({ env: { PINRECON_API_SECRET: 's' }, cwd }).config.api.secret).toBe('s');
    expect(() => loadConfig({ env: { PINRECON_API__TIMEOUT_MSS: '1' }, cwd })).toThrow(
      /environment variable PINRECON_API__TIMEOUT_MSS: api has no key "TIMEOUT_MSS"/,
    );
    const inMap = () => loadConfig({ env: { PINRECON_ACTIONS__APPROVAL_LIMIT__BRL: '5' }, cwd });
    expect(inMap).toThrow(/PINRECON_ACTIONS__APPROVAL_LIMIT__BRL: actions\.approvalLimit is a map or list, set whole/);
    expect(inMap).toThrow(/set whole: PINRECON_ACTIONS__APPROVAL_LIMIT='<JSON>'/);
    expect(() => loadConfig({ env: { PINRECON_API__TIMEOUT_MS: 'soon' }, cwd })).toThrow(
      /environment variable PINRECON_API__TIMEOUT_MS: api\.timeoutMs/,
    );
  });
});
