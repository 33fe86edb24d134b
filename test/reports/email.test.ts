/**
 * The report email against a real smtp-server on 127.0.0.1 (port 0), messages parsed with mailparser:
 * the attachment arrives byte for byte, the body's numbers are the database's, authentication and
 * STARTTLS work, transient failures are retried, a final failure is recorded and leaves the workbook, an
 * oversized workbook travels as its summary, and a dry run writes a .eml instead of connecting.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../cli/output.js';
import { JobError } from '../../core/errors.js';
import { writeReport } from '../../pipelines/report/report.js';
import { configSchema } from '../../config/schema.js';
import { deliverReportEmail, firstTableHeading } from '../../reports/email.js';
import { findingTypeWords } from '../../reports/plain-words.js';
import { emailLeadLines } from '../../reports/email-lead.js';
import type { ReportFacts } from '../../reports/report-facts.js';
import { findingStateSql } from '../../reports/finding-state.js';
import { unusedPort } from '../support/cli.js';
import { testTlsCertificate, testTlsKey } from '../support/tls.js';
import { createReportFixture, fixturePins, period, type ReportFixture } from '../support/report.js';

interface TestSmtp {
  port: number;
  messages: ParsedMail[];
  connections: number;
  secureSessions: boolean[];
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real SMTP server that keeps every message it accepts. */
async function startSmtp(options: Partial<SMTPServerOptions> = {}, port = 0): Promise<TestSmtp> {
  const smtp: TestSmtp = { port: 0, messages: [], connections: 0, secureSessions: [], close: async () => undefined };
  const userOnConnect = options.onConnect;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    ...options,
    onConnect(session, callback) {
      smtp.connections++;
      if (userOnConnect) userOnConnect.call(server, session, callback);
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        smtp.secureSessions.push(session.secure);
        simpleParser(Buffer.concat(chunks)).then((parsed) => {
          smtp.messages.push(parsed);
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  smtp.port = (server.server.address() as AddressInfo).port;
  smtp.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  cleanups.push(() => smtp.close());
  return smtp;
}

async function fixtureWith(email: Record<string, unknown>): Promise<ReportFixture> {
  const fixture = await createReportFixture({
    email: { from: 'pinrecon@example.com', to: ['finance@example.com', 'audit@example.com'], ...email },
  });
  cleanups.push(() => fixture.warehouse.close());
  return fixture;
}

/** An Output whose console lines are kept, to check what would have been printed. */
function capturedOutput(): { output: Output; log: () => string } {
  let text = '';
  const sink = { write: (chunk: string) => ((text += chunk), true), columns: 120 } as unknown as NodeJS.WriteStream;
  return { output: new ConsoleOutput(false, sink, sink, false), log: () => text };
}

/** The database's exact amount rounded to cents, written as the email writes it ("R$ 123,456.79"). */
async function dbAmount(fixture: ReportFixture, column: string, currency: string, symbol: string): Promise<string> {
  const row = await fixture.warehouse.one<{ v: string }>(
    `SELECT round(${column}, 2)::VARCHAR AS v FROM recon_summary WHERE period = '${period}' AND currency_code = ` +
      `'${currency}'`,
  );
  const [whole, cents] = row!.v.split('.') as [string, string | undefined];
  return `${symbol} ${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${(cents ?? '').padEnd(2, '0')}`;
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('report email', () => {
  it('sends the workbook intact with the headline numbers and counts per type straight from the database', async () => {
    const smtp = await startSmtp();
    const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
    const summary = await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true },
      new ConsoleOutput(true),
    );

    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0]!;
    expect(mail.subject).toBe(`pinrecon ${period}: 9 findings`);
    expect(mail.from?.text).toBe('pinrecon@example.com');
    expect((Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((a) => a!.value.map((v) => v.address))).toEqual([
      'finance@example.com',
      'audit@example.com',
    ]);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.filename).toBe(`pinrecon-${period}.xlsx`);
    expect(mail.attachments[0]!.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(mail.attachments[0]!.content.equals(readFileSync(summary.workbook))).toBe(true);

    const text = mail.text ?? '';
    const html = String(mail.html);
    for (const [currency, symbol] of [
      ['BRL', 'R$'],
      ['USD', 'US$'],
      ['EUR', '€'],
    ] as const) {
      for (const column of [
        'ledger_sales_total',
        'ledger_cost_total',
        'provider_sales_total',
        'provider_cost_total',
        'provider_margin',
      ]) {
        const amount = await dbAmount(fixture, column, currency, symbol);
        expect(text, `${currency} ${column}`).toContain(amount);
        expect(html, `${currency} ${column}`).toContain(amount);
      }
    }
    expect(text).toContain('R$ 123,456.79'); // 123456.7850 rounded half away from zero
    expect(text).toContain('1,234 orders');
    const counts = await fixture.warehouse.all<{ exception_type: string; n: string }>(
      `SELECT exception_type, count(*) AS n FROM recon_exceptions WHERE period = '${period}' GROUP BY 1`,
    );
    // Each type in words (issue 30 item 7), its count the database's.
    for (const { exception_type, n } of counts)
      expect(text).toMatch(new RegExp(`^\\s+${escapeRegExp(findingTypeWords(exception_type))}\\s+${n}$`, 'm'));
    expect(text).toMatch(/^\s+unknown status\s+0$/m);
    expect(text).toContain('(since the previous reconciliation: 3 new, 6 still open, 1 cleared)');
    expect(text).toContain('Ledger rejects: 2 · API records quarantined: 3');
    // The attachment's own XML is searched in the workbook tests; here, the body as the reader sees it.
    for (const pin of fixturePins) for (const body of [text, html, mail.subject ?? '']) expect(body).not.toContain(pin);
    // The largest findings rank by amount, the cost bridge effect (issue 30): an unredeemed key (amount 0) is not
    // among them; its cost at stake (R$ 92.12) is said as exposure beside the undecided findings, never added in.
    const heading = 'Largest open findings by amount (cost bridge effect):';
    const largest = text.slice(text.indexOf(heading), text.indexOf('\n\n', text.indexOf(heading)));
    expect(largest).toContain(heading);
    expect(largest).not.toContain('unredeemed_key');
    expect(text).toMatch(/undecided \d+ \(net [^)]*; exposure R\$ 92\.12\)/);
    expect(text).not.toContain('PIN ****');

    expect(summary.email).toMatchObject({
      status: 'sent',
      attempts: 1,
      summaryOnly: false,
      to: ['finance@example.com', 'audit@example.com'],
    });
    const run = await fixture.warehouse.one(`SELECT status, details FROM pipeline_runs WHERE run_id = $1`, [
      summary.runId,
    ]);
    expect(run!.status).toBe('succeeded');
    expect(JSON.parse(String(run!.details)).email.status).toBe('sent');
  });

  it('leads with what to do and by when, in plain words, in at most 250 words before the first table', async () => {
    const smtp = await startSmtp();
    const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, decideWithinDays: 5 });
    await writeReport(fixture.warehouse, fixture.config, { period, email: true }, new ConsoleOutput(true));
    const mail = smtp.messages[0]!;
    const text = mail.text ?? '';
    const htmlText = String(mail.html)
      .replace(/<[^>]+>/g, ' ')
      .replaceAll('&#39;', "'");
    if (process.env.SHOW_EMAIL) console.log(text);
    const words = (body: string) => body.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
    expect(text).toContain(firstTableHeading);
    expect(words(text.slice(0, text.indexOf(firstTableHeading)))).toBeLessThanOrEqual(250);
    const html = String(mail.html);
    expect(words(html.slice(0, html.indexOf('<table')).replace(/<[^>]+>/g, ' '))).toBeLessThanOrEqual(250);
    // No internal token: no snake_case finding type, decision or verdict, in the text or the HTML as read.
    for (const body of [text, htmlText, mail.subject ?? '']) expect(body).not.toMatch(/\b[a-z]+(?:_[a-z]+)+\b/);
    // The call to action, with the database's counts: findings to decide (undecided, or timing overdue), then import.
    const lead = text.slice(0, text.indexOf(firstTableHeading));
    const [y, m] = period.split('-').map(Number) as [number, number];
    const by = new Date(Date.UTC(y, m, 0) + 5 * 86_400_000).toISOString().slice(0, 10);
    expect(lead).toContain(`What to do by ${by}:`);
    const toDecide = await fixture.warehouse.one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM recon_exceptions e
       WHERE period = '${period}' AND ${findingStateSql('e')} IN ('undecided', 'overdue')`,
    );
    expect(toDecide!.n).toBeGreaterThan(0);
    expect(lead).toMatch(new RegExp(`1\\. Decide ${toDecide!.n} findings in the sheets? [A-Z]`));
    expect(lead).toContain(`pinrecon findings import pinrecon-${period}.xlsx --by`);
    // The same in the HTML, above its first table.
    expect(html.slice(0, html.indexOf('<table'))).toContain(`Decide ${toDecide!.n} findings`);
  });

  it('says the date has passed when the report is made after it', () => {
    const facts = {
      period: '2025-03',
      asOf: '2025-04-05',
      decisions: { toDecide: [{ findingType: 'cost_mismatch', undecided: 2, overdue: 1 }] },
      actions: { waitingForApproval: [], failed: [] },
      carriedForward: [],
    } as unknown as ReportFacts;
    const lead = (days: number) => emailLeadLines(facts, { decideWithinDays: days, workbook: 'w.xlsx' });
    expect(lead(5)[0]).toBe('What to do by 2025-04-05:');
    expect(lead(2)[0]).toBe('What to do now (it was due by 2025-04-02):');
    expect(lead(2)[1]).toMatch(
      /^ {2}1\. Decide 3 findings in the sheet Amounts \(3\): .*; 1 of them is a timing difference past/,
    );
  });

  it(
    "authenticates with the URL's user and password, " + 'which never reach the console, the error or the database',
    async () => {
      const password = 'p@ss:word/1';
      const smtp = await startSmtp({
        authOptional: false,
        allowInsecureAuth: true,
        authMethods: ['PLAIN', 'LOGIN'],
        onAuth(auth, _session, callback) {
          if (auth.username === 'reporter' && auth.password === password) callback(null, { user: 'reporter' });
          else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
        },
      });
      const url = (secret: string) => `smtp://reporter:${encodeURIComponent(secret)}@127.0.0.1:${smtp.port}`;
      const good = await fixtureWith({ smtpUrl: url(password) });
      const console = capturedOutput();
      await writeReport(good.warehouse, good.config, { period, email: true }, console.output);
      expect(smtp.messages).toHaveLength(1);

      const bad = await fixtureWith({ smtpUrl: url('wrong-secret'), retries: 3 });
      const failing = writeReport(
        bad.warehouse,
        bad.config,
        { period, email: true, retryBaseDelayMs: 10 },
        console.output,
      );
      // Issue 34: the server's reply is named by its code, command, size and digest, never quoted.
      await expect(failing).rejects.toThrow(/the mail server answered 535 to AUTH PLAIN \(a body of \d+ bytes, sha256/);
      const error = (await failing.catch((e: unknown) => e)) as JobError;
      expect(error.message).toContain('attempt 1 of 4'); // a 535 is not retried
      expect(error.hint).toContain('credentials');
      const run = await bad.warehouse.one(`SELECT status, error FROM pipeline_runs WHERE command = 'report'`);
      expect(run!.status).toBe('failed');
      for (const text of [console.log(), error.message, error.hint ?? '', String(run!.error)]) {
        expect(text).not.toContain(password);
        expect(text).not.toContain(encodeURIComponent(password));
        expect(text).not.toContain('wrong-secret');
      }
    },
  );

  it('upgrades to TLS with STARTTLS when the server offers it', async () => {
    const smtp = await startSmtp({ disabledCommands: [], key: testTlsKey, cert: testTlsCertificate });
    const fixture = await fixtureWith({ smtpUrl: `smtp://localhost:${smtp.port}` });
    await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true, tls: { ca: testTlsCertificate } },
      new ConsoleOutput(true),
    );
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.secureSessions).toEqual([true]);
  });

  it('speaks TLS from the first byte with smtps://', async () => {
    const smtp = await startSmtp({ secure: true, key: testTlsKey, cert: testTlsCertificate });
    const fixture = await fixtureWith({ smtpUrl: `smtps://localhost:${smtp.port}` });
    await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true, tls: { ca: testTlsCertificate } },
      new ConsoleOutput(true),
    );
    expect(smtp.secureSessions).toEqual([true]);
  });

  it('retries when the server answers 421 at first', async () => {
    let refused = 0;
    const smtp = await startSmtp({
      onConnect(_session, callback) {
        if (refused++ === 0) callback(Object.assign(new Error('Too busy, try again later'), { responseCode: 421 }));
        else callback();
      },
    });
    const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, retries: 2 });
    const console = capturedOutput();
    const summary = await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true, retryBaseDelayMs: 20 },
      console.output,
    );
    expect(summary.email?.attempts).toBe(2);
    expect(smtp.connections).toBe(2);
    expect(smtp.messages).toHaveLength(1);
    expect(console.log()).toMatch(/sending the email failed \(attempt 1\).*421/);
  });

  it('retries while the server is not listening yet', async () => {
    const port = await unusedPort();
    const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${port}`, retries: 5 });
    // The server starts when the first attempt has failed, not after a fixed delay: on a busy machine the
    // workbook alone can take longer than any delay chosen here.
    let late: Promise<TestSmtp> | undefined;
    const sink = {
      write: (chunk: string) => (
        (late ??= /sending the email failed \(attempt 1\)/.test(chunk) ? startSmtp({}, port) : undefined), true
      ),
      columns: 120,
    } as unknown as NodeJS.WriteStream;
    const summary = await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true, retryBaseDelayMs: 100 },
      new ConsoleOutput(false, sink, sink, false),
    );
    expect(late).toBeDefined();
    const smtp = (await late)!;
    expect(summary.email?.attempts).toBeGreaterThan(1);
    expect(smtp.messages).toHaveLength(1);
  });

  it(
    'after the last retry: exits the job with why and ' + 'what to do, records the failure, keeps the workbook',
    async () => {
      const port = await unusedPort();
      const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${port}`, retries: 2 });
      const failing = writeReport(
        fixture.warehouse,
        fixture.config,
        { period, email: true, retryBaseDelayMs: 10 },
        new ConsoleOutput(true),
      );
      await expect(failing).rejects.toThrow(JobError);
      const error = (await failing.catch((e: unknown) => e)) as JobError;
      expect(error.message).toMatch(
        new RegExp(
          `Could not send the report email to finance@example.com, audit@example.com via smtp://127.0.0.1:${port} ` +
            `\\(attempt 3 of 3\\)`,
        ),
      );
      expect(error.message).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
      const workbook = path.join(fixture.config.reports.outDir, `pinrecon-${period}.xlsx`);
      expect(error.hint).toContain(workbook);
      expect(error.hint).toContain(`pinrecon report --period ${period} --email`);
      expect(existsSync(workbook)).toBe(true);
      const run = await fixture.warehouse.one(
        `SELECT status, error, details FROM pipeline_runs WHERE command = 'report'`,
      );
      expect(run!.status).toBe('failed');
      expect(String(run!.error)).toContain('Could not send the report email');
      expect(JSON.parse(String(run!.details)).workbook).toBe(workbook);
    },
  );

  it(
    'sends a summary-only workbook, saying where the full ' + 'one is, when the workbook is over the attachment limit',
    async () => {
      const smtp = await startSmtp();
      const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, maxAttachmentBytes: 2000 });
      const summary = await writeReport(
        fixture.warehouse,
        fixture.config,
        { period, email: true },
        new ConsoleOutput(true),
      );
      expect(summary.email).toMatchObject({
        summaryOnly: true,
        attachment: path.join(fixture.config.reports.outDir, `pinrecon-${period}-summary.xlsx`),
      });
      const mail = smtp.messages[0]!;
      expect(mail.attachments.map((a) => a.filename)).toEqual([`pinrecon-${period}-summary.xlsx`]);
      expect(mail.attachments[0]!.content.equals(readFileSync(summary.email!.attachment))).toBe(true);
      expect(mail.text).toContain(
        `only its summary is attached (pinrecon-${period}-summary.xlsx). The full workbook is at ${summary.workbook}`,
      );
      // A small limit reads in KB, not as "0.0 MB".
      expect(mail.text).toMatch(/The full workbook \(\d+\.\d KB\) is larger than the 2\.0 KB attachment limit/);

      const attached = new ExcelJS.Workbook();
      await attached.xlsx.load(mail.attachments[0]!.content as unknown as ArrayBuffer);
      expect(attached.worksheets.map((w) => w.name)).toEqual(['Summary']);
      const texts = (attached.worksheets[0]!.getSheetValues() as unknown[][])
        .flat()
        .filter((v): v is string => typeof v === 'string');
      expect(texts.some((t) => t.startsWith('Summary only: the full workbook') && t.includes(summary.workbook))).toBe(
        true,
      );
      expect(texts).toContain('Sheets of the full workbook');
      const full = new ExcelJS.Workbook();
      await full.xlsx.readFile(summary.workbook);
      // the Summary, 9 detail sheets, Actions (issue 15), Suggested matches (issue 29), Carried forward (issue 30)
      expect(full.worksheets).toHaveLength(13);
    },
  );

  it('--dry-run writes the message as .eml beside the workbook and connects to nothing', async () => {
    const smtp = await startSmtp();
    const fixture = await fixtureWith({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
    const summary = await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, email: true, dryRun: true },
      new ConsoleOutput(true),
    );
    const eml = path.join(fixture.config.reports.outDir, `pinrecon-${period}.eml`);
    expect(summary.email).toMatchObject({ status: 'written', eml, attempts: 0 });
    expect(smtp.connections).toBe(0);
    const mail = await simpleParser(readFileSync(eml));
    expect(mail.subject).toBe(`pinrecon ${period}: 9 findings`);
    expect(mail.attachments[0]!.content.equals(readFileSync(summary.workbook))).toBe(true);
    expect(mail.text).toContain(await dbAmount(fixture, 'provider_cost_total', 'BRL', 'R$'));
    // The fixture's missing_at_provider finding carries no proof: the body counts it as unproven.
    const unproven =
      'missing at the provider: 1 of 1 UNPROVEN (proven absent: 0 by the extract windows, 0 by an individual look-up)';
    expect(mail.text).toContain(unproven);
    expect(mail.html).toContain(unproven);
  });
});

describe('SMTP credentials in transit', () => {
  const password = 'p/a#s@s%w0rd';
  const attachment = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-mail-')), 'report.xlsx');
  writeFileSync(attachment, 'not really a workbook');
  const message = { subject: 'transit', text: 'hello', html: '<p>hello</p>', attachment };
  /** A named host that is not loopback, routed to the test's server on loopback (nothing leaves this machine). */
  const remoteHost = 'mail.example.test';
  const routeTo =
    (port: number) => (_options: unknown, callback: (error: Error | null, socket?: { connection: Socket }) => void) => {
      const connection = connect(port, '127.0.0.1', () => callback(null, { connection }));
      connection.once('error', (error) => callback(error));
    };
  /** A server that accepts AUTH over plain text (as a careless or hostile one would) and records it. */
  const authServer = (extra: Partial<SMTPServerOptions> = {}) => {
    const logins: { username?: string; password?: string; secure: boolean }[] = [];
    const started = startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, session, callback) {
        logins.push({ username: auth.username, password: auth.password, secure: session.secure });
        callback(null, { user: auth.username });
      },
      ...extra,
    });
    return { started, logins };
  };
  const emailConfig = (email: Record<string, unknown>) => configSchema.parse({ email: { retries: 0, ...email } }).email;
  const deprecations: string[] = [];
  const onWarning = (warning: Error) => deprecations.push(`${warning.name}: ${warning.message}`);
  beforeAll(() => void process.on('warning', onWarning));
  afterAll(() => void process.off('warning', onWarning));

  it('refuses to send credentials to a non-loopback server that offers no STARTTLS', async () => {
    const { started, logins } = authServer();
    const smtp = await started;
    const config = emailConfig({
      smtpUrl: `smtp://reporter:${encodeURIComponent(password)}@${remoteHost}:${smtp.port}`,
    });
    const failing = deliverReportEmail(config, message, { getSocket: routeTo(smtp.port) });
    const error = (await failing.catch((e: unknown) => e)) as JobError;
    expect(error).toBeInstanceOf(JobError);
    expect(error.hint).toMatch(/offered no TLS.*credentials were not sent/);
    expect(error.message).toContain(`smtp://***@${remoteHost}:${smtp.port}`);
    expect(`${error.message} ${error.hint}`).not.toContain(password.slice(3));
    expect(`${error.message} ${error.hint}`).not.toContain(encodeURIComponent(password).slice(3));
    expect(logins).toEqual([]);
    expect(smtp.messages).toHaveLength(0);
  });

  it('sends a percent-encoded password holding / # @ % over STARTTLS, without a deprecation warning', async () => {
    const { started, logins } = authServer({ disabledCommands: [], key: testTlsKey, cert: testTlsCertificate });
    const smtp = await started;
    const config = emailConfig({
      smtpUrl: `smtp://reporter:${encodeURIComponent(password)}@${remoteHost}:${smtp.port}`,
    });
    deprecations.length = 0;
    await deliverReportEmail(config, message, {
      getSocket: routeTo(smtp.port),
      tls: { ca: testTlsCertificate, servername: 'localhost' },
    });
    expect(logins).toEqual([{ username: 'reporter', password, secure: true }]);
    expect(smtp.messages).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(deprecations).toEqual([]);
  });

  it('takes the password from email.smtpPassword (PINRECON_SMTP_PASSWORD) as is', async () => {
    const { started, logins } = authServer({ disabledCommands: [], key: testTlsKey, cert: testTlsCertificate });
    const smtp = await started;
    const config = emailConfig({ smtpUrl: `smtp://reporter@${remoteHost}:${smtp.port}`, smtpPassword: password });
    await deliverReportEmail(config, message, {
      getSocket: routeTo(smtp.port),
      tls: { ca: testTlsCertificate, servername: 'localhost' },
    });
    expect(logins).toEqual([{ username: 'reporter', password, secure: true }]);
  });

  it('sends in plain text only when email.allowPlaintextAuth opts out, or to a loopback host', async () => {
    const { started, logins } = authServer();
    const smtp = await started;
    const optedOut = emailConfig({
      smtpUrl: `smtp://reporter:pw-1@${remoteHost}:${smtp.port}`,
      allowPlaintextAuth: true,
    });
    await deliverReportEmail(optedOut, message, { getSocket: routeTo(smtp.port) });
    const loopback = emailConfig({ smtpUrl: `smtp://reporter:pw-2@127.0.0.1:${smtp.port}` });
    await deliverReportEmail(loopback, message);
    expect(logins).toEqual([
      { username: 'reporter', password: 'pw-1', secure: false },
      { username: 'reporter', password: 'pw-2', secure: false },
    ]);
  });
});
