/**
 * Issue 18 item 1: a hostile or careless SMTP server whose AUTH answers echo what it was sent (the AUTH
 * PLAIN blob base64("\0user\0password"), AUTH LOGIN's base64 user and password, or them in clear) gets none
 * of it onto the console, into the error (or its causes) or into `pipeline_runs.error`. A real smtp-server
 * on 127.0.0.1, port 0; the report job as `pinrecon report --email` runs it.
 */
import { connect, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { SMTPServer, type SMTPServerAuthentication } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../cli/output.js';
import { JobError } from '../../core/errors.js';
import { configSchema } from '../../config/schema.js';
import { deliverReportEmail } from '../../reports/email.js';
import { writeReport } from '../../pipelines/report/report.js';
import { recordRun } from '../../core/run-trace.js';
import { reportFailure } from '../../cli/context.js';
import { rememberSecrets } from '../../core/secret-redaction.js';
import { createReportFixture, period } from '../support/report.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const user = 'alice';
const password = 'S3cr#t/p@ss x';

/** Every way the server below may have quoted the credentials it was sent. */
function echoedForms(auth: SMTPServerAuthentication): string[] {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return [
    b64(`\0${auth.username}\0${auth.password}`),
    b64(auth.username ?? ''),
    b64(auth.password ?? ''),
    auth.password ?? '',
    encodeURIComponent(auth.password ?? ''),
  ];
}

/**
 * A plain SMTP server that refuses every login, quoting the credentials back: the first attempt with a 454
 * (transient: the job retries and warns), then 535.
 */
async function echoingSmtp(method: 'PLAIN' | 'LOGIN'): Promise<{ port: number; echoed: string[] }> {
  const echoed: string[] = [];
  let attempts = 0;
  const server = new SMTPServer({
    authMethods: [method],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      const forms = echoedForms(auth);
      echoed.push(...forms);
      const code = ++attempts === 1 ? 454 : 535;
      const quoted = method === 'PLAIN' ? forms[0] : `${forms[1]} ${forms[2]} (${auth.password}, ${forms[4]})`;
      callback(
        Object.assign(new Error(`${code === 454 ? '4.7.0 try later' : '5.7.8 bad credentials'} ${quoted}`), {
          responseCode: code,
        }),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, echoed };
}

function capturedConsole(): { output: ConsoleOutput; text: () => string } {
  let text = '';
  const sink = { write: (chunk: string) => ((text += chunk), true), columns: 120 } as unknown as NodeJS.WriteStream;
  return { output: new ConsoleOutput(false, sink, sink, false), text: () => text };
}

describe('SMTP credentials echoed by the server', () => {
  const cases: [string, 'PLAIN' | 'LOGIN', (port: number) => Record<string, unknown>][] = [
    [
      'AUTH PLAIN, password in the URL',
      'PLAIN',
      (port) => ({ smtpUrl: `smtp://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}` }),
    ],
    [
      'AUTH LOGIN, password in the URL',
      'LOGIN',
      (port) => ({ smtpUrl: `smtp://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}` }),
    ],
    [
      'AUTH PLAIN, PINRECON_SMTP_PASSWORD',
      'PLAIN',
      (port) => ({ smtpUrl: `smtp://${user}@127.0.0.1:${port}`, smtpPassword: password }),
    ],
  ];

  it.each(cases)('%s: never on the console, in the error or in pipeline_runs.error', async (_name, method, email) => {
    const smtp = await echoingSmtp(method);
    const fixture = await createReportFixture({
      email: { from: 'pinrecon@example.com', to: ['finance@example.com'], retries: 1, ...email(smtp.port) },
    });
    cleanups.push(() => fixture.warehouse.close());
    const console = capturedConsole();

    const error = (await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true, retryBaseDelayMs: 1 },
      console.output,
    ).catch((e: unknown) => e)) as JobError;
    console.output.error(`${error.message}\n${error.hint ?? ''}`);
    const run = await fixture.warehouse.one<{ error: string }>(
      `SELECT error FROM pipeline_runs WHERE command = 'report'`,
    );

    expect(smtp.echoed.length).toBeGreaterThan(0); // the server did quote the credentials
    expect(console.text()).toMatch(/warning: sending the email failed \(attempt 1\).*454/);
    expect(error.message).toMatch(/attempt 2 of 2.*535/);
    const everything = [console.text(), inspect(error, { depth: 8 }), run!.error].join('\n');
    for (const form of new Set(smtp.echoed)) expect(everything, form).not.toContain(form);
    expect(everything).not.toContain('p@ss');
    expect(everything).not.toContain('S3cr');
  });
});

describe('the last line of defence', () => {
  it(
    'redacts a remembered credential from any error ' + 'recorded in pipeline_runs or printed, in any encoding',
    async () => {
      const fixture = await createReportFixture();
      cleanups.push(() => fixture.warehouse.close());
      const secret = 'Remembered/Pa$$-9';
      rememberSecrets([secret]);
      const leak = `boom: ${secret} ${encodeURIComponent(secret)} ${Buffer.from(`\0u\0${secret}`).toString('base64')}`;
      const failing = recordRun(fixture.warehouse, 'probe', {}, async () => {
        throw new Error(leak);
      });
      const error = await failing.catch((e: unknown) => e);
      const run = await fixture.warehouse.one<{ error: string }>(
        `SELECT error FROM pipeline_runs WHERE command = 'probe'`,
      );
      const console = capturedConsole();
      reportFailure(console.output, error);
      for (const text of [run!.error, console.text()]) {
        expect(text).toContain('boom: ***');
        expect(text).not.toContain('Pa$$');
        expect(text).not.toContain('Pa%24%24');
        expect(text).not.toContain(Buffer.from(`\0u\0${secret}`).toString('base64'));
      }
    },
  );
});

describe('SMTP to a host that claims loopback by its name only (issue 18 item 7)', () => {
  it('sends no credentials in plain text to probe.localhost, which does not resolve to loopback', async () => {
    const logins: string[] = [];
    const server = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, callback) {
        logins.push(`${auth.username}:${auth.password}`);
        callback(null, { user: auth.username });
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.server.address() as AddressInfo).port;
    // The name is routed to the server on loopback by the test (nothing leaves the machine); what it resolves to
    // decides trust.
    const routeTo = (_options: unknown, callback: (error: Error | null, socket?: { connection: Socket }) => void) => {
      const connection = connect(port, '127.0.0.1', () => callback(null, { connection }));
      connection.once('error', (error) => callback(error));
    };
    const attachment = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-mail-')), 'report.xlsx');
    writeFileSync(attachment, 'not really a workbook');
    const message = { subject: 'probe', text: 'hello', html: '<p>hello</p>', attachment };
    const config = configSchema.parse({
      email: { retries: 0, smtpUrl: `smtp://reporter:pw-secret@probe.localhost:${port}` },
    }).email;

    const error = await deliverReportEmail(config, message, { getSocket: routeTo }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobError);
    expect((error as JobError).hint).toMatch(/offered no TLS.*credentials were not sent/);
    expect(logins).toEqual([]);

    const loopback = configSchema.parse({
      email: { retries: 0, smtpUrl: `smtp://reporter:pw-local@localhost:${port}` },
    }).email;
    await deliverReportEmail(loopback, message);
    expect(logins).toEqual(['reporter:pw-local']);
  });
});
