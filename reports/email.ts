/**
 * The report email: a short text and HTML body with the period's headline numbers (exact, from the
 * database) and the workbook attached by path (streamed, never read into memory); sent over SMTP with
 * retries on transient failures, or written as a .eml file for a dry run.
 */
import { suggestionsEmailLine } from './match-sheet.js';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { JobError } from '../core/errors.js';
import { escapeHtml } from '../core/text-safety.js';
import { privateAccess, writeThroughTemporary } from '../core/file-modes.js';
import { parseSmtpUrl, redactUrl, resolveLoopback, smtpRequiresTls } from '../config/transport-security.js';
import { bodyDigest, redactSecrets } from '../core/secret-redaction.js';
import { keepBody } from '../core/debug-bodies.js';
import type { EmailConfig } from '../config/schema.js';
import { formatAmount, formatCount, formatFileSize } from './formats.js';
import { describeLedgerRejects, describeMissingProof, noLedgerOrdersWarning } from './fact-lines.js';
import { totalsColumns, type ReportFacts } from './report-facts.js';
import { describeClose } from './close-facts.js';
import { closeBriefDetailLines, closeBriefStatusLines } from './close-brief.js';
import { emailLeadLines } from './email-lead.js';
import { findingTypeWords, plainWords } from './plain-words.js';
import { actionEmailLines } from './actions-sheet.js';
import { sealEmailLines } from './seal-lines.js';

/** The report email takes only the `email` section of the config (issue 27). */
export type { EmailConfig };

export interface ReportEmail {
  subject: string;
  text: string;
  html: string;
  /** The workbook sent (none for an alert, reports/alert-email.ts). */
  attachment?: string;
}

export interface ComposeOptions {
  /** The workbook to attach. */
  attachment: string;
  /** Rows per detail sheet title (for the quarantine line). */
  rowsByTitle: Record<string, number>;
  /** Set when the full workbook was too large and a summary-only one is attached instead. */
  fullWorkbook?: { file: string; bytes: number; limitBytes: number };
}

export function composeReportEmail(config: EmailConfig, facts: ReportFacts, options: ComposeOptions): ReportEmail {
  const warning = noLedgerOrdersWarning(facts);
  // An incomplete month is never sent as a plain report: the subject says so first, whatever the template.
  const close = describeClose(facts.close);
  const subject =
    close.subjectPrefix +
    (config.subject
      ? config.subject.replaceAll('{period}', facts.period)
      : `pinrecon ${facts.period}: ${formatCount(facts.totalFindings)} ` +
        `finding${facts.totalFindings === 1 ? '' : 's'}${warning ? ' — no ledger orders' : ''}`) +
    close.subjectSuffix;
  const changes = facts.changes;
  const changeNote = changes
    ? ` (since the previous reconciliation: ${formatCount(changes.new)} new, ` +
      `${formatCount(changes.stillOpen)} still open, ${formatCount(changes.cleared)} cleared)`
    : '';
  const missingProof = describeMissingProof(facts.missingProof);
  const suggestions = suggestionsEmailLine(facts.suggestionsToReview); // issue 29
  const rejects =
    `${describeLedgerRejects(facts.ledger)} · ` +
    `API records quarantined: ${formatCount(options.rowsByTitle['API quarantine'] ?? 0)}`;
  const attachmentNote = options.fullWorkbook
    ? `The full workbook (${formatFileSize(options.fullWorkbook.bytes)}) is larger than the ` +
      `${formatFileSize(options.fullWorkbook.limitBytes)} attachment limit, so only its summary is attached ` +
      `(${path.basename(options.attachment)}). The full workbook is at ${options.fullWorkbook.file}`
    : `The workbook ${path.basename(options.attachment)} is attached.`;
  const heading = `pinrecon reconciliation for ${facts.period} (as of ${facts.asOf}, dates in ${facts.timezone})`;

  // Issue 30 item 7: the email leads with what to do and by when, in plain words; the status follows the first table.
  const workbook = path.basename(options.fullWorkbook?.file ?? options.attachment);
  const lead = emailLeadLines(facts, { decideWithinDays: config.decideWithinDays, workbook });
  const status = closeBriefStatusLines(facts).map(plainWords);
  const details = closeBriefDetailLines(facts).map(plainWords);
  // Issue 15: what waits for a second person's approval, and what failed at the provider.
  const actionLines = actionEmailLines(facts.actions).map(plainWords);
  // Issue 28: the seal's hash and the signer's key leave the database with every email of a signed period.
  const sealLines = sealEmailLines(facts.close);
  const closeLines = close.lines.map(plainWords);
  const alert = close.alert ? plainWords(close.alert) : null;
  const warningLine = warning ? `WARNING: ${plainWords(warning)}` : null;
  const proofLine = missingProof ? plainWords(missingProof) : null;
  const typeRows = facts.typeCounts.map((t) => [findingTypeWords(t.findingType), formatCount(t.findings)] as const);
  const text = [
    heading,
    '',
    ...(alert || closeLines.length > 0 ? [...(alert ? [alert] : []), ...closeLines, ''] : []),
    ...(warningLine ? [warningLine, ''] : []),
    ...lead,
    '',
    ...status,
    '',
    firstTableHeading,
    ...facts.totals.flatMap((t) => [
      `${t.currency ?? '(no currency)'}`,
      `  Ledger:   ${formatCount(t.ledgerOrders)} orders, ${formatCount(t.ledgerPaidOrders)} paid · ` +
        `paid sales ${formatAmount(t.ledgerSalesTotal, t.currency)} · ` +
        `expected cost ${formatAmount(t.ledgerCostTotal, t.currency)}`,
      `  Provider: ${formatCount(t.providerSales)} sales, ${formatCount(t.providerBillableSales)} not canceled · ` +
        `their sales ${formatAmount(t.providerSalesTotal, t.currency)} · ` +
        `cost ${formatAmount(t.providerCostTotal, t.currency)} · margin ${formatAmount(t.providerMargin, t.currency)}`,
      `  Matched ${formatCount(t.matched)} · findings ${formatCount(t.findings)}`,
      '',
    ]),
    'Findings by type',
    ...typeRows.map(([label, n]) => `  ${label.padEnd(26)} ${n.padStart(9)}`),
    `  ${'total'.padEnd(26)} ${formatCount(facts.totalFindings).padStart(9)}${changeNote}`,
    ...(proofLine ? [proofLine] : []),
    ...(suggestions ? [suggestions] : []),
    '',
    ...details,
    '',
    rejects,
    '',
    ...actionLines,
    ...sealLines,
    attachmentNote,
    '',
  ].join('\n');

  // The first cell labels the row; the others are numbers, right-aligned.
  const row = (cells: readonly string[]) =>
    `<tr>${cells
      .map((value, i) => `<td style="padding:2px 10px${i === 0 ? '' : ';text-align:right'}">${escapeHtml(value)}</td>`)
      .join('')}</tr>`;
  const table = (headers: string[], rows: string[]) =>
    `<table style="border-collapse:collapse;font-family:sans-serif;font-size:13px"><tr>${headers
      .map((h) => `<th style="padding:2px 10px;text-align:left;background:#e7ecf3">${escapeHtml(h)}</th>`)
      .join('')}</tr>${rows.join('')}</table>`;
  const paragraph = (value: string) => `<p style="font-family:sans-serif">${escapeHtml(value)}</p>`;
  const pre = (lines: string[]) =>
    lines.length > 0 ? `<pre style="font-family:monospace;font-size:13px">${escapeHtml(lines.join('\n'))}</pre>` : '';
  const [leadTitle, ...leadSteps] = lead;
  const html = [
    `<p style="font-family:sans-serif"><b>${escapeHtml(heading)}</b></p>`,
    alert
      ? '<p style="font-family:sans-serif;background:#b00020;color:#ffffff;font-weight:bold;padding:6px">' +
        `${escapeHtml(alert)}</p>`
      : '',
    ...closeLines.map((l) => paragraph(l)),
    warningLine
      ? `<p style="font-family:sans-serif;color:#b00020;font-weight:bold">${escapeHtml(warningLine)}</p>`
      : '',
    `<p style="font-family:sans-serif"><b>${escapeHtml(leadTitle ?? '')}</b></p>`,
    leadSteps.length > 0
      ? `<ol style="font-family:sans-serif">${leadSteps.map((s) => `<li>${escapeHtml(stepText(s))}</li>`).join('')}` +
        '</ol>'
      : '',
    ...status.map((l) => paragraph(l)),
    `<p style="font-family:sans-serif"><b>${escapeHtml(firstTableHeading)}</b></p>`,
    table(
      ['Currency', ...totalsColumns.map((c) => c.header)],
      facts.totals.map((t) =>
        row([
          t.currency ?? '(no currency)',
          ...totalsColumns.map((c) =>
            c.kind === 'count' ? formatCount(c.value(t) ?? '0') : formatAmount(c.value(t), t.currency),
          ),
        ]),
      ),
    ),
    `<p style="font-family:sans-serif"><b>Findings by type</b></p>`,
    table(['Finding type', 'Findings'], [...typeRows.map(row), row(['total', formatCount(facts.totalFindings)])]),
    proofLine ? paragraph(proofLine) : '',
    suggestions ? paragraph(suggestions) : '',
    changeNote ? paragraph(`Total ${formatCount(facts.totalFindings)}${changeNote}.`) : '',
    pre(details),
    paragraph(rejects),
    pre(actionLines),
    pre(sealLines),
    paragraph(attachmentNote),
  ].join('\n');

  return { subject, text, html, attachment: options.attachment };
}

/** The line above the first table: what a reader sees before it is the call to action and the status (issue 30). */
export const firstTableHeading = 'Totals per currency (as in the Summary sheet)';

export interface DeliverOptions {
  /** Write the message to this .eml file instead of sending it. */
  emlFile?: string;
  /** First wait between attempts; doubled after each (default 2000 ms). */
  retryBaseDelayMs?: number;
  /** Told before each wait for another attempt. */
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
  /** TLS options for STARTTLS / smtps (e.g. a private CA). */
  tls?: ConnectionOptions;
  /**
   * Opens the connection instead of resolving the URL's host (nodemailer's `getSocket`): a proxy, or a
   * test that routes a named, non-loopback host to its server on loopback.
   */
  getSocket?: (
    options: unknown,
    callback: (error: Error | null, socket?: { connection: Socket } | false) => void,
  ) => void;
}

export interface Delivery {
  status: 'sent' | 'written';
  to: string[];
  attempts: number;
  messageId?: string;
  /** The .eml written (dry run). */
  eml?: string;
}

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Sends the message (STARTTLS when the server offers it, authentication from the URL's user:pass or
 * email.smtpPassword; credentials only over TLS unless the host is loopback or email.allowPlaintextAuth), retrying
 * connection failures and 4xx answers up to `email.retries` times with doubling waits. A final failure is a
 * JobError saying why; the password never appears in it.
 */
export async function deliverReportEmail(
  config: EmailConfig,
  message: ReportEmail,
  options: DeliverOptions = {},
): Promise<Delivery> {
  const mail = {
    from: config.from,
    to: config.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    attachments: message.attachment
      ? [{ filename: path.basename(message.attachment), path: message.attachment, contentType: xlsxType }]
      : [],
  };
  if (options.emlFile) {
    const { createTransport } = (await import('nodemailer')).default;
    const transport = createTransport({ streamTransport: true, newline: 'windows' });
    const info = await transport.sendMail(mail);
    // Through a temporary created exclusively, never through a link planted at its name (issue 34).
    await writeThroughTemporary(options.emlFile, privateAccess, (_, fd) =>
      pipeline(info.message as Readable, createWriteStream('', { fd, autoClose: false })),
    );
    return { status: 'written', to: config.to, attempts: 0, messageId: info.messageId, eml: options.emlFile };
  }

  const server = redactUrl(config.smtpUrl);
  const target = parseSmtpUrl(config.smtpUrl);
  const password = config.smtpPassword ?? target.password;
  const hasCredentials = target.user !== undefined || password !== undefined;
  // Loopback by the addresses the host resolves to, not by its name (issue 18); looked up only when it matters.
  const resolution =
    hasCredentials && !target.secure && !config.allowPlaintextAuth ? await resolveLoopback(target.host) : undefined;
  const requireTLS = smtpRequiresTls(target, hasCredentials, config.allowPlaintextAuth, resolution?.loopback ?? false);
  // Credentials in plain text to loopback: connect to the address checked, so a second lookup cannot lead elsewhere.
  const connectHost = resolution?.loopback ? resolution.addresses[0]! : target.host;
  const tls = connectHost !== target.host ? { servername: target.host, ...options.tls } : options.tls;
  const attempts = config.retries + 1;
  for (let attempt = 1; ; attempt++) {
    // Options built from the parsed URL, not `url:`: nodemailer would fall back to the deprecated url.parse.
    const { createTransport } = (await import('nodemailer')).default;
    const transport = createTransport({
      host: connectHost,
      ...(target.port !== undefined ? { port: target.port } : {}),
      secure: target.secure,
      ...(hasCredentials ? { auth: { user: target.user ?? '', pass: password ?? '' } } : {}),
      requireTLS,
      ...(options.getSocket ? { getSocket: options.getSocket } : {}),
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
      ...(tls ? { tls } : {}),
    });
    try {
      const info = await transport.sendMail(mail);
      return { status: 'sent', to: config.to, attempts: attempt, messageId: info.messageId };
    } catch (error) {
      const reason = describeSmtpError(error, config.smtpUrl, password);
      const tlsRefused = requireTLS && isMissingStartTls(error);
      if (tlsRefused || !isTransient(error) || attempt >= attempts) {
        throw new JobError(
          `Could not send the report email to ${config.to.join(', ')} via ${server} (attempt ${attempt} of ` +
            `${attempts}): ${reason}.`,
          tlsRefused
            ? 'The mail server offered no TLS (STARTTLS), so the SMTP credentials were not sent. ' +
                'Use smtps:// or a server that offers STARTTLS; ' +
                'only if the network between you is trusted, set email.allowPlaintextAuth to true.'
            : isTransient(error)
              ? 'The mail server is unreachable or busy: ' +
                'check email.smtpUrl (or PINRECON_SMTP_URL) and the server, then send again.'
              : 'The mail server refused the message: ' +
                'check email.smtpUrl credentials, email.from and email.to, then send again.',
          { cause: redactedSmtpCause(error, reason) },
        );
      }
      const delayMs = (options.retryBaseDelayMs ?? 2000) * 2 ** (attempt - 1);
      options.onRetry?.(attempt, reason, delayMs);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    } finally {
      transport.close();
    }
  }
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  message?: string;
  /** The server's reply, as nodemailer keeps it. */
  response?: string;
  /** The command it answered (e.g. "AUTH PLAIN"). */
  command?: string;
}

/** Connection failures, timeouts and 4xx answers may pass on a later try; 5xx answers will not. */
function isTransient(error: unknown): boolean {
  const { code, responseCode } = error as SmtpError;
  if (typeof responseCode === 'number') return (responseCode >= 400 && responseCode < 500) || responseCode === 503;
  return code === 'ECONNECTION' || code === 'ESOCKET' || code === 'ETIMEDOUT';
}

/** nodemailer's answer to requireTLS when the server does not offer STARTTLS (or refuses it). */
function isMissingStartTls(error: unknown): boolean {
  const { code, message } = error as SmtpError;
  return code === 'ETLS' || /STARTTLS/i.test(message ?? '');
}

/**
 * The server's answer as its code, the command it answered and the size and digest of its text, never the text
 * (issue 34: a multi-line 535 reply quoted the password piecewise, past any redaction; the whole reply is kept
 * only in `--debug`'s private file). A socket error's own message, with the credentials removed in every form
 * (core/secret-redaction.ts), as a second line of defence.
 */
function describeSmtpError(error: unknown, smtpUrl: string, password: string | undefined): string {
  const { code, responseCode, message, response, command } = error as SmtpError;
  if (response !== undefined || responseCode !== undefined) {
    const reply = response ?? message ?? '';
    keepBody(`SMTP answer${command ? ` to ${command}` : ''}`, reply);
    const to = command ? ` to ${command.split(' ').slice(0, 2).join(' ')}` : '';
    return redactSecrets(
      `the mail server answered ${responseCode ?? 'without a code'}${to} (${bodyDigest(reply)})`,
      smtpCredentials(smtpUrl, password),
    );
  }
  const text = `${message ?? String(error)}${code ? ` (${code})` : ''}`;
  return redactSecrets(text.replaceAll(smtpUrl, redactUrl(smtpUrl)), smtpCredentials(smtpUrl, password));
}

/** The user and password of an SMTP URL (decoded and as written) and the separate password, if any. */
function smtpCredentials(smtpUrl: string, password: string | undefined): string[] {
  const url = URL.canParse(smtpUrl) ? new URL(smtpUrl) : undefined;
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  };
  const user = url?.username ?? '';
  const urlPassword = url?.password ?? '';
  return [password ?? '', urlPassword, decode(urlPassword), user, decode(user)].filter((value) => value.length > 0);
}

/**
 * nodemailer's error with its text redacted and nothing else kept: the raw error carries the server's
 * answer (`response`) and would put the credentials it echoed wherever the cause is shown.
 */
function redactedSmtpCause(error: unknown, reason: string): Error {
  const { code, responseCode } = error as SmtpError;
  return Object.assign(new Error(reason), { ...(code ? { code } : {}), ...(responseCode ? { responseCode } : {}) });
}

/** A numbered step's text without its number ("  2. Review …"), for the HTML's own list. */
function stepText(line: string): string {
  return line.replace(/^\s*\d+\. /, '');
}
