/**
 * Issue 18 item 1 as reported, through the built CLI: an SMTP server that answers AUTH PLAIN with
 * `535 5.7.8 bad credentials <the blob it was sent>`, and
 * `PINRECON_SMTP_URL='smtp://alice:S3cr%23t%2Fp%40ss%20x@127.0.0.1:PORT' pinrecon report --period P --email`.
 * Neither the console (text or --json) nor `pipeline_runs.error` may hold the password or the blob.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';
import { createReportFixture, period, type ReportFixture } from '../support/report.js';

const password = 'S3cr#t/p@ss x';
const blob = Buffer.from(`\0alice\0${password}`).toString('base64');

describe('pinrecon report --email against a server echoing the AUTH PLAIN blob (spawned)', () => {
  let fixture: ReportFixture;
  let server: SMTPServer;
  let smtpUrl: string;
  const echoed: string[] = [];

  beforeAll(async () => {
    server = new SMTPServer({
      authMethods: ['PLAIN'],
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, callback) {
        const sent = Buffer.from(`\0${auth.username}\0${auth.password}`).toString('base64');
        echoed.push(sent);
        callback(Object.assign(new Error(`5.7.8 bad credentials ${sent}`), { responseCode: 535 }));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    smtpUrl = `smtp://alice:S3cr%23t%2Fp%40ss%20x@127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    fixture = await createReportFixture();
    fixture.warehouse.close(); // the CLI opens the database itself
    writeFileSync(
      path.join(fixture.dir, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: fixture.config.timezone,
        database: 'pinrecon.duckdb',
        reports: { outDir: 'reports' },
        email: { retries: 0, to: ['finance@example.com'] },
      }),
    );
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 1 saying why, without the password or the blob anywhere', async () => {
    const env = { CI: 'true', PINRECON_SMTP_URL: smtpUrl, PINRECON_SMTP_PASSWORD: undefined };
    const text = await runCli(['report', '--period', period, '--email'], { cwd: fixture.dir, env });
    const json = await runCli(['report', '--period', period, '--email', '--json'], { cwd: fixture.dir, env });
    expect(echoed).toContain(blob); // the server did send it back
    expect(text.code).toBe(1);
    // Issue 34: the server's reply is said by its code, command, size and digest, never by its text.
    expect(text.stderr).toMatch(
      new RegExp(
        /error: Could not send the report email .*: the mail server answered 535 to AUTH PLAIN \(a body of /.source +
          /\d+ bytes, sha256 [0-9a-f]{16}\)/.source,
      ),
    );
    expect(json.code).toBe(1);
    const warehouse = await Warehouse.open(path.join(fixture.dir, 'pinrecon.duckdb'), {
      timezone: fixture.config.timezone,
      readOnly: true,
    });
    let errors: string[];
    try {
      errors = (
        await warehouse.all<{ error: string }>(
          `SELECT error FROM pipeline_runs WHERE command = 'report' AND status = 'failed'`,
        )
      ).map((r) => r.error);
    } finally {
      warehouse.close();
    }
    expect(errors).toHaveLength(2);
    for (const shown of [text.stdout, text.stderr, json.stdout, json.stderr, ...errors]) {
      expect(shown).not.toContain(blob);
      expect(shown).not.toContain(password);
      expect(shown).not.toContain('S3cr%23t');
    }
  });

  it(
    'a multi-line 535 quoting the password piecewise: ' + 'nothing of it shown; --debug keeps it in a 0600 file',
    async () => {
      const pieces = [password.slice(0, 4), password.slice(4, 8), password.slice(8)];
      const piecewise = new SMTPServer({
        authMethods: ['PLAIN'],
        allowInsecureAuth: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onAuth(_auth, _session, callback) {
          const lines = ['5.7.8 bad credentials', ...pieces.map((piece) => `5.7.8 ${piece}`)];
          callback(Object.assign(new Error(lines.join('\n')), { responseCode: 535 }));
        },
      });
      await new Promise<void>((resolve) => piecewise.listen(0, '127.0.0.1', () => resolve()));
      try {
        const port = (piecewise.server.address() as AddressInfo).port;
        const env = {
          CI: 'true',
          PINRECON_SMTP_URL: smtpUrl.replace(/:\d+$/, `:${port}`),
          PINRECON_SMTP_PASSWORD: undefined,
        };
        const run = await runCli(['report', '--period', period, '--email', '--debug'], { cwd: fixture.dir, env });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/the mail server answered 535 to AUTH PLAIN \(a body of \d+ bytes, sha256/);
        for (const piece of pieces) expect(`${run.stdout}${run.stderr}`).not.toContain(piece);
        const debugFile = /kept whole in (\S+pinrecon-debug-\d+\.log)/.exec(run.stderr)?.[1];
        expect(debugFile).toBeDefined();
        expect(statSync(debugFile!).mode & 0o777).toBe(0o600);
        const kept = readFileSync(debugFile!, 'utf8');
        for (const piece of pieces) expect(kept).toContain(piece);
        rmSync(debugFile!);
      } finally {
        await new Promise<void>((resolve) => piecewise.close(() => resolve()));
      }
    },
  );
});
