/**
 * The workbook's Summary sheet: the header and sign-off state, then one section each for extraction, ledger,
 * totals, bridge, decisions, findings by type, aging and the sheets written. Written by workbook.ts.
 */
import { unattestedNotice } from '../core/signatures.js';
import type ExcelJS from 'exceljs';
import { formatCount, formatFileSize, localTextDate } from './formats.js';
import { describeMissingProof, noLedgerOrdersWarning } from './fact-lines.js';
import { totalsColumns, type ReportFacts } from './report-facts.js';
import type { DetailSheet } from './sheet-spec.js';
import { describeClose } from './close-facts.js';
import { writeRollForwardSection } from './roll-forward.js';
import { writeCarriedForwardSection } from './carried-forward-sheet.js';
import { formatLocalTimeZoned } from '../core/zoned-time.js';
import { findingAmountRule } from './finding-amount.js';
import { columnLetters } from './xlsx-sheet-writer.js';
import { summaryColumnWidths, summaryPen, type SummaryPen } from './summary-pen.js';

import { scaleToFitPages, type PaperSize } from './print-layout.js';
import { styles } from './workbook-styles.js';

/** The workbook that was too large to send: the Summary-only one names it. */
export interface SummaryOnlyOf {
  file: string;
  bytes: number;
}

/** One worksheet of the workbook (a detail sheet may take several). */
export interface WrittenSheet {
  name: string;
  /** The detail sheet it belongs to ("Sales" for "Sales (2)"). */
  title: string;
  /** Data rows, header excluded. */
  rows: number;
}

/** Everything a Summary section may show. */
interface SummaryContext {
  facts: ReportFacts;
  sheets: DetailSheet[];
  plan: WrittenSheet[];
  generatedAt: Date;
  rowsPerSheet: number;
  summaryOnlyOf: SummaryOnlyOf | undefined;
}

/** One section of the Summary: its facts (ReportFacts) written beside their labels. */
type SummarySection = (pen: SummaryPen, context: SummaryContext) => void;

/**
 * The Summary, top to bottom. A new section is a new function here, written in the six columns below
 * (labels in A, values in B–F) so the Summary keeps printing on at most 2 pages at 8 pt or more
 * (test/cli/workbook-print.test.ts converts it with LibreOffice and counts).
 */
const summarySections: SummarySection[] = [
  writeSummaryHeader,
  writeSignoffSection,
  writeExtractionSection,
  writeLedgerSection,
  writeTotalsSection,
  writeBridgeSection,
  writeDecisionsSection,
  writeFindingsByTypeSection,
  // Issue 15: the roll-forward per currency, its own section (reports/roll-forward.ts).
  (pen, { facts }) => writeRollForwardSection(pen, facts.rollForward),
  // Issue 30: what earlier periods left open (the Carried forward sheet lists them).
  (pen, { facts }) => writeCarriedForwardSection(pen, facts.carriedForward),
  writeAgingSection,
  writeSheetsSection,
];

/** The Summary is meant to print on at most this many pages. */
const summaryPages = 2;

export function writeSummary(
  worksheet: ExcelJS.Worksheet,
  facts: ReportFacts,
  sheets: DetailSheet[],
  plan: WrittenSheet[],
  generatedAt: Date,
  rowsPerSheet: number,
  summaryOnlyOf: SummaryOnlyOf | undefined,
  paper: PaperSize,
): void {
  worksheet.columns = summaryColumnWidths.map((width) => ({ width }));
  const pen = summaryPen(worksheet, facts.timezone);
  const context: SummaryContext = { facts, sheets, plan, generatedAt, rowsPerSheet, summaryOnlyOf };
  for (const section of summarySections) section(pen, context);
  worksheet.pageSetup.printArea = `A$1:${columnLetters(summaryColumnWidths.length)}$${pen.rows()}`;
  // The width sets the scale; a Summary taller than two pages at it prints smaller, down to the readable minimum.
  const { scale } = worksheet.pageSetup;
  if (scale !== undefined)
    worksheet.pageSetup.scale = scaleToFitPages(scale, pen.heightPt(), summaryPages, paper, 'portrait');
  worksheet.commit();
}

/** The verdict and sign-off state first, then the title, the period, its dates and zone, notes and warnings. */
function writeSummaryHeader(
  { line, note, styled, localTime, instant }: SummaryPen,
  { facts, generatedAt, summaryOnlyOf }: SummaryContext,
): void {
  // The verdict and the sign-off come first: an incomplete or restated month must not read as final.
  const close = describeClose(facts.close);
  if (close.alert) note(close.alert, styles.alertBand);
  for (const text of close.lines) note(text, close.alert ? styles.warning : styles.bold);
  line(styled(`pinrecon reconciliation — ${facts.period}`, styles.title));
  line(styled('Period', styles.bold), facts.period);
  line(styled('As of', styles.bold), styled(localTextDate(facts.asOf), styles.date));
  line(styled('Time zone', styles.bold), facts.timezone, 'every date is in it; every time shows its UTC offset');
  line(styled('Reconciled at', styles.bold), localTime(facts.reconciledAt));
  line(styled('Report generated at', styles.bold), instant(generatedAt));
  if (close.signoffState === 'unsigned') line(styled('Sign-off', styles.bold), 'unsigned');
  if (summaryOnlyOf) {
    note(
      `Summary only: the full workbook (${formatFileSize(summaryOnlyOf.bytes)}) is too large to attach; it is at ` +
        `${summaryOnlyOf.file}`,
      styles.bold,
    );
  }
  const warning = noLedgerOrdersWarning(facts);
  if (warning) note(`WARNING: ${warning}`, styles.warning);
}

/** Where the findings that differ from the sign-off are: the state itself is said once, at the top. */
function writeSignoffSection({ note }: SummaryPen, { facts }: SummaryContext): void {
  if (facts.close.status === 'changed_since_signoff')
    note('The findings new, cleared or changed since the sign-off are on the sheet Changed since sign-off.');
  // Who vouches for the signer's name, in plain words (issue 28).
  const seal = facts.close.status === 'unsigned' ? undefined : facts.close.seal;
  if (seal?.signerKeySha256) note(`Sign-off signed with the key whose sha256 is ${seal.signerKeySha256}`);
  else if (seal) note(`Sign-off: ${unattestedNotice}`);
}

/** When and from what the data was extracted: the last fetch, the windows and the runs behind them. */
function writeExtractionSection(
  { line, heading, header, styled, count, localTime }: SummaryPen,
  { facts }: SummaryContext,
): void {
  const { windows, runs, lastFetchAt } = facts.extraction;
  heading('Data extracted from the provider API');
  line(
    styled('Last fetch', styles.bold),
    lastFetchAt ? localTime(lastFetchAt) : 'never: no extract covers this period',
  );
  line(styled('Extract windows', styles.bold), count(windows.length), 'covering the period');
  if (windows.length > 0) {
    header('Window', 'Completed at', 'By date', 'Records', 'Quarantined');
    for (const w of windows) {
      const window = `${w.windowStart} – ${w.windowEnd}`;
      line(window, localTime(w.completedAt), w.by, count(w.records), count(w.quarantined));
    }
  }
  line(styled('Extract runs', styles.bold), count(runs.length), 'that completed them');
  if (runs.length > 0) {
    header('Run', 'Started', 'Status', 'Requests', 'Retries · 503', 'Rows loaded');
    for (const r of runs) {
      line(
        r.runId,
        localTime(r.startedAt),
        `${r.command} ${r.status}`,
        count(r.requests),
        `${formatCount(r.retries)} · ${formatCount(r.rateLimited)}`,
        count(r.rowsLoaded),
      );
    }
  }
}

/** The ledger orders reconciled and the rejected lines, with where the rejects are listed. */
function writeLedgerSection({ line, note, heading, styled, count }: SummaryPen, { facts }: SummaryContext): void {
  heading('Ledger');
  line(styled('Ledger orders', styles.bold), count(facts.ledger.orders), 'in the period');
  line(
    styled('Ledger lines rejected', styles.bold),
    count(facts.ledger.rejects),
    `from ${formatCount(facts.ledger.rejectFiles)} file(s), listed on the sheet Ledger rejects`,
  );
  if (facts.ledger.unplacedRejects > 0) {
    line(
      styled('… of unreadable files', styles.warning),
      count(facts.ledger.unplacedRejects),
      `from ${formatCount(facts.ledger.unplacedFiles)} file(s)`,
    );
    note(
      'Not one line of those files was accepted: check the ledger settings (delimiter, decimalSeparator, dateFormat, ' +
        'columns) and import again.',
      styles.warning,
    );
  }
  // Where the rejects come from matters only when there are some (issue 30: three lines of a two-page Summary).
  if (facts.ledger.rejects > 0)
    note(
      'A rejected line has no date to trust, so it is placed by its file: listed are the rejects of every ledger ' +
        `file holding orders paid in ${facts.period}, ` +
        `and of every file with no accepted line at all (it belongs to no period, so every report shows it until the ` +
        `file is imported again).`,
    );
}

/**
 * Shorter headers in the Summary's totals (the email keeps the long ones): each row of headers printed three lines
 * tall in the columns of 14, and the Summary ran onto a third Letter page (issue 30). The block says whose they are.
 */
const summaryTotalsHeaders: Record<string, string> = {
  'Ledger expected cost (paid)': 'Expected cost (paid)',
  'Provider sales total (not canceled)': 'their sales total',
  'Provider cost (not canceled)': 'their cost',
  'Provider margin (not canceled)': 'their margin',
};

/** Per currency, the ledger side and the provider side, each in a row of its own. */
function writeTotalsSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Totals per currency');
  // The findings per currency are the totals of the decisions table below.
  const ledgerColumns = totalsColumns.filter(
    (c) => c.header.startsWith('Ledger') || c.header === 'of which paid' || c.header === 'Matched',
  );
  const providerColumns = totalsColumns.filter((c) => !ledgerColumns.includes(c) && c.header !== 'Findings');
  for (const columns of [ledgerColumns, providerColumns]) {
    header('Currency', ...columns.map((c) => summaryTotalsHeaders[c.header] ?? c.header));
    for (const t of facts.totals) {
      line(
        t.currency ?? '(none)',
        ...columns.map((c) => (c.kind === 'count' ? count(c.value(t) ?? 0) : money(c.value(t), t.currency))),
      );
    }
  }
}

/** Per currency, the bridge's lines (their text runs into the empty B), items, amount and gross. */
function writeBridgeSection(
  { line, heading, header, styled, count, money }: SummaryPen,
  { facts }: SummaryContext,
): void {
  heading('Cost bridge: ledger expected cost → provider cost');
  const currencies = [...new Set(facts.bridge.map((b) => b.currency))];
  for (const currency of currencies) {
    header(currency ?? '(none)', null, 'Items', 'Amount', 'Gross debit', 'Gross credit');
    const steps = facts.bridge.filter((b) => b.currency === currency);
    const lastStep = Math.max(...steps.map((x) => x.step));
    // A step with no item and no amount says nothing: left out (the detail is on the sheets).
    for (const b of steps.filter((x) => x.findingType === null || Number(x.items) > 0 || Number(x.amount ?? 0) !== 0)) {
      const isTotal = b.findingType === null && (b.step === 0 || b.step === lastStep);
      const gross = facts.decisions.bridgeGross.find(
        (g) => g.currency === b.currency && g.findingType === b.findingType,
      );
      line(
        isTotal ? styled(b.label, styles.bold) : b.label,
        null,
        count(b.items),
        money(b.amount, b.currency),
        gross ? money(gross.grossDebit, b.currency) : null,
        gross ? money(gross.grossCredit, b.currency) : null,
      );
    }
  }
}

/**
 * Per currency, two blocks that each count every finding once: by decision (undecided included) and by state
 * (undecided, overdue, pending, decided), each with a total equal to the currency's findings; every net amount
 * beside its gross debit and credit.
 */
function writeDecisionsSection(
  { line, note, heading, header, styled, count, money }: SummaryPen,
  { facts }: SummaryContext,
): void {
  heading('Decisions and states per currency');
  note(
    'Pending: timing not yet past its Expected clear by, or a cutoff_difference the other period has not ' +
      'reconciled yet; overdue: timing past it. Everything not pending is a break to account for. ' +
      `${findingAmountRule}`,
  );
  const d = facts.decisions;
  if (d.totals.length === 0) line('No findings.');
  for (const total of d.totals) {
    const currency = total.currency;
    for (const [kind, title] of [
      ['decision', 'by decision'],
      ['state', 'by state'],
    ] as const) {
      // Exposure (unredeemed keys' cost at stake) is its own column, never in the amounts (issue 30).
      header(`${currency ?? '(none)'} ${title}`, 'Findings', 'Net amount', 'Gross debit', 'Gross credit', 'Exposure');
      for (const l of d.lines.filter((x) => x.kind === kind && x.currency === currency)) {
        const label =
          kind === 'state' && l.label !== 'decided'
            ? styled(l.label.toUpperCase(), l.label === 'pending' ? styles.bold : styles.warning)
            : l.label;
        line(
          label,
          count(l.findings),
          money(l.net, currency),
          money(l.grossDebit, currency),
          money(l.grossCredit, currency),
          money(l.exposure, currency),
        );
      }
      line(
        styled('Total', styles.bold),
        count(total.findings),
        money(total.net, currency),
        money(total.grossDebit, currency),
        money(total.grossCredit, currency),
        money(total.exposure, currency),
      );
    }
    // Issue 30: what the materiality rule accepted is said apart from what people accepted, never dropped.
    const byRule = d.acceptedByRule.find((r) => r.currency === currency);
    if (byRule)
      line(
        `${currency ?? '(none)'} accepted by rule:materiality (reconciliation.materiality)`,
        count(byRule.findings),
        money(byRule.amount, currency),
      );
  }
}

/** Findings per type, with what changed since the previous reconciliation of the period. */
function writeFindingsByTypeSection(
  { line, note, heading, header, styled, count }: SummaryPen,
  { facts }: SummaryContext,
): void {
  const changes = facts.changes;
  heading('Findings by type');
  note(
    changes?.previousBuiltAt
      ? `New, still open and cleared compared with the previous reconciliation of ${facts.period}, ` +
          `at ${formatLocalTimeZoned(changes.previousBuiltAt, facts.timezone)}.`
      : `First reconciliation of ${facts.period}: every finding is new.`,
  );
  header('Finding type', 'Findings', 'New', 'Still open', 'Cleared');
  const changeTypes = new Map(changes?.byType.map((c) => [c.findingType, c]) ?? []);
  for (const t of facts.typeCounts) {
    const c = changeTypes.get(t.findingType);
    line(t.findingType, count(t.findings), count(c?.new ?? 0), count(c?.stillOpen ?? 0), count(c?.cleared ?? 0));
  }
  line(
    styled('Total', styles.bold),
    count(facts.totalFindings),
    count(changes?.new ?? 0),
    count(changes?.stillOpen ?? 0),
    count(changes?.cleared ?? 0),
  );
  const missingProof = describeMissingProof(facts.missingProof);
  if (missingProof) line(facts.missingProof.unproven > 0 ? styled(missingProof, styles.warning) : missingProof);
}

function writeAgingSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Unredeemed keys by age');
  header('Currency', 'Aging bucket (days)', 'Keys', 'Cost at stake');
  for (const a of facts.aging.filter((x) => Number(x.keys) > 0))
    line(a.currency ?? '(none)', a.bucket, count(a.keys), money(a.costTotal, a.currency));
  if (!facts.aging.some((x) => Number(x.keys) > 0)) line('No unredeemed key.');
}

/** The workbook's sheets with their rows, and a note for each sheet that continues on another. */
function writeSheetsSection(
  { line, note, heading, header, count }: SummaryPen,
  { sheets, plan, rowsPerSheet, summaryOnlyOf }: SummaryContext,
): void {
  heading(summaryOnlyOf ? 'Sheets of the full workbook' : 'Sheets');
  for (const { title } of sheets) {
    const parts = plan.filter((part) => part.title === title);
    if (parts.length > 1) {
      const rows = parts.reduce((sum, part) => sum + part.rows, 0);
      note(
        `${title} has ${rows.toLocaleString('en-US')} rows, ` +
          `more than one sheet holds (${rowsPerSheet.toLocaleString('en-US')}): ` +
          `it continues on ${parts
            .slice(1)
            .map((part) => part.name)
            .join(', ')}.`,
      );
    }
  }
  // What a sheet holds across B–E, its rows in F: in C–F it wrapped onto two lines a sheet (issue 30: the
  // Summary printed on a third page), in C alone it printed cut at the print area's edge.
  header('Sheet', 'Holds', null, null, null, 'Rows');
  const descriptions = new Map(sheets.map((sheet) => [sheet.title, sheet.description]));
  for (const part of plan) {
    const continued = part.name !== part.title ? ` (continued from ${part.title})` : '';
    line(part.name, `${descriptions.get(part.title) ?? ''}${continued}`, null, null, null, count(part.rows));
  }
}
