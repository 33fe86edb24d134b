/**
 * `pinrecon config show [--check]` (issue 31): says which file and variables were used and every resolved value
 * with credentials redacted; --check tries the database, the provider's token (the simulator, over real HTTP) and
 * the SMTP relay (the local mail sink), OK or FAIL with the reason, exit 1 when one fails. Every command says
 * which config it loaded. (`--period previous` on the command line: test/commands/export.test.ts.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MailSink, startMailSink } from '../../doubles/mail-sink/mail-sink.js';
import { type RunningSimulator, startSimulator } from '../../doubles/simulator/server.js';
import { runCli, unusedPort } from '../support/cli.js';

const identifier = 'config-show-partner';
const secret = 'config-show-secret-XYZ';
let simulator: RunningSimulator;
let sink: MailSink;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-config-show-'));
  simulator = await startSimulator({
    seed: 5,
    identifier,
    secret,
    dataset: { from: '2024-01-01', to: '2024-01-02', salesCount: 5 },
  });
  sink = await startMailSink(path.join(dir, 'mail'));
  file = path.join(dir, 'pinrecon.config.json');
  writeFileSync(
    file,
    [
      '{',
      '  // a comment, as in the example',
      '  "database": "db/pinrecon.duckdb",',
      `  "api": { "baseUrl": "${simulator.url}" },`,
      `  "email": { "smtpUrl": "${sink.url}" },`,
      '}',
    ].join('\n'),
  );
});
afterAll(async () => {
  await sink.close();
  await simulator.close();
});

const credentials = { PINRECON_API_IDENTIFIER: identifier, PINRECON_API_SECRET: secret, PINRECON_CONFIG: undefined };

describe('pinrecon config show', () => {
  it('names the file and the variables used, and prints resolved values with credentials redacted', async () => {
    const env = { ...credentials, PINRECON_CONFIG: file, PINRECON_API__TIMEOUT_MS: '1234' };
    const shown = await runCli(['config', 'show', '--json'], { cwd: dir, env });
    expect(shown.code, shown.stderr).toBe(0);
    const document = JSON.parse(shown.stdout) as {
      file: string;
      chosenBy: string;
      environment: { variable: string; key: string }[];
      config: { api: { secret: string; timeoutMs: number }; database: string };
    };
    expect(document).toMatchObject({ file, chosenBy: 'environment' });
    expect(document.environment).toContainEqual({ variable: 'PINRECON_API__TIMEOUT_MS', key: 'api.timeoutMs' });
    expect(document.environment).toContainEqual({ variable: 'PINRECON_API_SECRET', key: 'api.secret' });
    expect(document.config.api).toMatchObject({ secret: '***', timeoutMs: 1234 });
    expect(document.config.database).toBe(path.join(dir, 'db', 'pinrecon.duckdb'));
    expect(shown.stdout + shown.stderr).not.toContain(secret);

    const text = await runCli(['config', 'show'], { cwd: dir, env });
    expect(text.stdout).toContain(`config: ${file} (from $PINRECON_CONFIG); environment: PINRECON_API_IDENTIFIER`);
    // Every command says which config it loaded, on stderr, timestamped off a terminal.
    expect(text.stderr).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z config: .*\(from \$PINRECON_CONFIG\)/m);
  });

  it('--log-format json: every stderr line an object; an unknown option or key variable exits 2', async () => {
    const env = { ...credentials, PINRECON_CONFIG: file };
    const shown = await runCli(['config', 'show', '--log-format', 'json'], { cwd: dir, env });
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(lines[0]).toMatchObject({ level: 'info', message: expect.stringMatching(/^config: /) });
    expect(lines.every((line) => /^\d{4}-\d{2}-\d{2}T/.test(line.time!))).toBe(true);
    // A bad --log-format: test/commands/small-commands.test.ts (parseGlobalOptions).
    const usage = await runCli(['config', 'show', '--no-such-option'], { cwd: dir, env });
    expect(usage.code).toBe(2);
    // commander's own usage error, timestamped off a terminal like every other line.
    expect(usage.stderr).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z error: unknown option '--no-such-option'/m);
    const typo = await runCli(['config', 'show'], { cwd: dir, env: { ...env, PINRECON_API__TIMEOUT_MSS: '5' } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/PINRECON_API__TIMEOUT_MSS: api has no key "TIMEOUT_MSS"/);
  });

  it('--check: database, provider token and SMTP relay OK', async () => {
    const checked = await runCli(['config', 'show', '--check', '--config', file], { cwd: dir, env: credentials });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^database +OK +no database yet; the first job creates /m);
    expect(checked.stdout).toMatch(/^provider +OK +http:\/\/127\.0\.0\.1:\d+: token granted; \d+ collections listed/m);
    expect(checked.stdout).toMatch(/^smtp +OK +smtp:\/\/127\.0\.0\.1:\d+ accepts a connection/m);
  });

  it('--check: a wrong secret and a relay nobody answers FAIL with the reason, exit 1, no secret shown', async () => {
    const wrong = 'not-the-secret-QQQ';
    const env = {
      ...credentials,
      PINRECON_API_SECRET: wrong,
      PINRECON_EMAIL__SMTP_URL: `smtp://127.0.0.1:${await unusedPort()}`,
    };
    const checked = await runCli(['config', 'show', '--check', '--config', file], { cwd: dir, env });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/^provider +FAIL +http:\/\/127\.0\.0\.1:\d+: .+/m);
    expect(checked.stdout).toMatch(/^smtp +FAIL +smtp:\/\/127\.0\.0\.1:\d+: .*(ECONNREFUSED|connect)/m);
    expect(checked.stderr).toMatch(/config check: provider, smtp failed/);
    expect(checked.stdout + checked.stderr).not.toContain(wrong);
  });
});
