/**
 * Writes a period's Excel workbook, `pinrecon-<period>.xlsx`: the Summary first, then the detail sheets
 * of report-sheets.ts, streamed from DuckDB chunk by chunk through exceljs's streaming writer so memory
 * stays flat however many sales the period has; the detail sheets' data rows are written as XML text by
 * reports/xlsx-sheet-writer.ts (exceljs's per-cell objects were most of the time of a million-row sheet). A sheet longer than Excel's row limit continues on
 * "<name> (2)", "<name> (3)"…, and the Summary says so. The same data always gives the same cells: every
 * query has a total order, and the generation time is the only wall-clock value written.
 */
import { once } from 'node:events';
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import path from 'node:path';
import ExcelJS from 'exceljs';
import type { Warehouse } from '../core/warehouse.js';
import { sqlString } from '../core/sql.js';
import { dateFormat, dateTimeFormat, formatCount, formatFileSize, integerFormat, localTextDate, moneyFormat, wallClockDate } from './formats.js';
import { noLedgerOrdersWarning, totalsColumns, type Decimal, type ReportFacts } from './report-facts.js';
import { detailSheets, signoffChangesSheet, type DetailSheet, type SheetColumn } from './report-sheets.js';
import { changeSummary, describeClose } from './close-facts.js';
import { writeRollForwardSection } from './roll-forward.js';
import { decisions } from '../core/decisions.js';
import { describeCloseState } from './decision-facts.js';
import { SheetRowsXml, workbookStyleId, writeSheetXml, type ColumnStyles } from './xlsx-sheet-writer.js';

/** Excel's rows per sheet, header included. */
export const excelMaxRows = 1_048_576;

export interface WorkbookOptions {
  /** The .xlsx to write (replaced atomically). */
  file: string;
  /** The generation time shown on the Summary (default: now). */
  generatedAt?: Date;
  /** Rows per sheet including the header (default: Excel's 1,048,576); longer sheets continue on the next. */
  maxRowsPerSheet?: number;
  /** Write only the Summary, saying where the full workbook is (the email's stand-in for a large one). */
  summaryOnlyOf?: { file: string; bytes: number };
  /** Called after each chunk of detail rows. */
  onProgress?: (rowsWritten: number, rowsTotal: number) => void;
}

/** One worksheet of the workbook (a detail sheet may take several). */
export interface WrittenSheet {
  name: string;
  /** The detail sheet it belongs to ("Sales" for "Sales (2)"). */
  title: string;
  /** Data rows, header excluded. */
  rows: number;
}

export interface WorkbookResult {
  file: string;
  bytes: number;
  /** The detail sheets' worksheets, planned (and, unless summary-only, written), in order. */
  sheets: WrittenSheet[];
  /** Data rows per detail sheet title. */
  rowsByTitle: Record<string, number>;
  summaryOnly: boolean;
}

type Style = Partial<ExcelJS.Style>;
const styles = {
  plain: {} as Style,
  title: { font: { bold: true, size: 14 } } as Style,
  heading: { font: { bold: true, size: 12 } } as Style,
  header: { font: { bold: true }, fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE7ECF3' } } } as Style,
  bold: { font: { bold: true } } as Style,
  warning: { font: { bold: true, color: { argb: 'FFB00020' } } } as Style,
  alertBand: { font: { bold: true, size: 13, color: { argb: 'FFFFFFFF' } }, fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFB00020' } } } as Style,
  integer: { numFmt: integerFormat } as Style,
  date: { numFmt: dateFormat } as Style,
  dateTime: { numFmt: dateTimeFormat } as Style,
};
/** One shared style object per currency: exceljs caches styles by object, so sharing keeps 1M rows fast. */
const moneyStyles = new Map<string, Style>();
function moneyStyle(currency: string | null | undefined): Style {
  const key = currency ?? '';
  let style = moneyStyles.get(key);
  if (!style) moneyStyles.set(key, (style = { numFmt: moneyFormat(currency) }));
  return style;
}

export async function writeWorkbook(warehouse: Warehouse, facts: ReportFacts, options: WorkbookOptions): Promise<WorkbookResult> {
  const rowsPerSheet = (options.maxRowsPerSheet ?? excelMaxRows) - 1;
  if (!Number.isInteger(rowsPerSheet) || rowsPerSheet < 1 || rowsPerSheet >= excelMaxRows) {
    throw new RangeError(`maxRowsPerSheet must be an integer from 2 to ${excelMaxRows}, got ${options.maxRowsPerSheet}`);
  }
  const signedChanges = facts.close?.status === 'changed_since_signoff' && facts.close.signoff;
  const sheets = [...detailSheets(facts.period, facts.timezone), ...(signedChanges ? [signoffChangesSheet(facts.period, signedChanges.signoffId)] : [])];
  const generatedAt = options.generatedAt ?? new Date();
  mkdirSync(path.dirname(options.file), { recursive: true });
  const temporary = `${options.file}.tmp-${process.pid}`;
  // One read transaction: the counts of the plan and the rows streamed come from the same snapshot.
  const plan = await warehouse
    .transaction(async () => {
      const plan = await planSheets(warehouse, sheets, rowsPerSheet);
      await writeFile(warehouse, facts, sheets, plan, temporary, { ...options, generatedAt, rowsPerSheet });
      renameSync(temporary, options.file);
      return plan;
    })
    .catch((error: unknown) => {
      rmSync(temporary, { force: true });
      throw error;
    });
  const rowsByTitle: Record<string, number> = {};
  for (const part of plan) rowsByTitle[part.title] = (rowsByTitle[part.title] ?? 0) + part.rows;
  return { file: options.file, bytes: statSync(options.file).size, sheets: plan, rowsByTitle, summaryOnly: Boolean(options.summaryOnlyOf) };
}

async function writeFile(
  warehouse: Warehouse,
  facts: ReportFacts,
  sheets: DetailSheet[],
  plan: WrittenSheet[],
  file: string,
  options: WorkbookOptions & { generatedAt: Date; rowsPerSheet: number },
): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: file,
    useStyles: true,
    useSharedStrings: false,
    // Fast compression: at the default level, deflating a million-row sheet takes longer than writing it.
    zip: { zlib: { level: 1 } },
  });
  workbook.creator = 'pinrecon';
  workbook.created = options.generatedAt;
  workbook.modified = options.generatedAt;
  // Sheets are written one after another: the zip holds one open entry at a time, so nothing waits in memory.
  const generatedAt = wallClockDate(options.generatedAt, facts.timezone);
  const print = printSetup(facts);
  writeSummary(workbook.addWorksheet('Summary', print), facts, sheets, plan, generatedAt, options.rowsPerSheet, options.summaryOnlyOf);
  if (!options.summaryOnlyOf) {
    const total = plan.reduce((sum, sheet) => sum + sheet.rows, 0);
    let written = 0;
    for (const sheet of sheets) {
      written = await streamSheet(workbook, warehouse, sheet, facts.timezone, plan, written, (rows) => options.onProgress?.(rows, total), print);
    }
  }
  await workbook.commit();
}

/** Counts each detail sheet's rows and names the worksheets it takes. */
async function planSheets(warehouse: Warehouse, sheets: DetailSheet[], rowsPerSheet: number): Promise<WrittenSheet[]> {
  const plan: WrittenSheet[] = [];
  for (const sheet of sheets) {
    const counted = await warehouse.one<{ rows: string }>(`SELECT count(*) AS rows FROM ${sheet.table} WHERE ${sheet.where}`);
    const rows = Number(counted?.rows ?? 0);
    const parts = Math.max(1, Math.ceil(rows / rowsPerSheet));
    for (let part = 1; part <= parts; part++) {
      plan.push({ name: sheetName(sheet.title, part), title: sheet.title, rows: Math.min(rowsPerSheet, rows - (part - 1) * rowsPerSheet) });
    }
  }
  return plan;
}

/** "Sales", "Sales (2)"…: at most 31 characters, none of * ? : / \ [ ]. */
function sheetName(title: string, part: number): string {
  const suffix = part > 1 ? ` (${part})` : '';
  const clean = title.replace(/[*?:/\\[\]]/g, '-').replace(/^'+|'+$/g, '');
  return `${clean.slice(0, 31 - suffix.length).trimEnd()}${suffix}`;
}

/** Streams one detail sheet's query into its worksheet(s); returns the running count of rows written. */
async function streamSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  warehouse: Warehouse,
  sheet: DetailSheet,
  timezone: string,
  plan: WrittenSheet[],
  writtenBefore: number,
  onProgress: (rowsWritten: number) => void,
  print: PrintSetup,
): Promise<number> {
  const parts = plan.filter((part) => part.title === sheet.title);
  const total = parts.reduce((sum, part) => sum + part.rows, 0);
  // Sort only the row ids, then read whole rows a page at a time in that order: sorting the whole rows of
  // a million-row sheet would hold all of them in memory at once.
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE report_sheet_order AS
     SELECT row_number() OVER (ORDER BY ${sheet.orderBy}) AS report_position, rowid AS report_row
     FROM ${sheet.table} WHERE ${sheet.where}`,
  );
  const select = sheet.columns.map((column) => `${selectExpression(column, timezone)} AS "${column.key}"`).join(', ');
  // The data rows go out as XML text (reports/xlsx-sheet-writer.ts); exceljs writes the rest of the sheet.
  const rowsXml = new SheetRowsXml(sheet.columns, detailStyles, workbookStyleId(workbook));
  let written = writtenBefore;
  let partIndex = 0;
  let inSheet = 0;
  let worksheet = openDetailWorksheet(workbook, parts[0]!.name, sheet.columns, print);
  for (let first = 1; first <= total; first += pageRows) {
    const result = await warehouse.connection.stream(
      `SELECT ${select}
       FROM report_sheet_order JOIN ${sheet.table} ON ${sheet.table}.rowid = report_sheet_order.report_row
       WHERE report_position >= ${first} AND report_position < ${first + pageRows}
       ORDER BY report_position`,
    );
    for await (const rows of result.yieldRowsJs()) {
      for (const values of rows) {
        if (inSheet === parts[partIndex]!.rows && partIndex + 1 < parts.length) {
          writeSheetXml(worksheet, rowsXml.take());
          closeDetailWorksheet(worksheet, sheet.columns, inSheet);
          worksheet = openDetailWorksheet(workbook, parts[++partIndex]!.name, sheet.columns, print);
          inSheet = 0;
        }
        rowsXml.append(values, inSheet + 2);
        inSheet++;
      }
      writeSheetXml(worksheet, rowsXml.take());
      written += rows.length;
      onProgress(written);
      await zipCaughtUp(worksheet);
    }
  }
  await warehouse.run('DROP TABLE report_sheet_order');
  closeDetailWorksheet(worksheet, sheet.columns, inSheet);
  return written;
}

/** Rows read from DuckDB per query (then streamed chunk by chunk). */
const pageRows = 65_536;

/** Uncompressed sheet XML allowed to wait for the compressor before rows stop being produced. */
const zipBacklogBytes = 8 * 1024 * 1024;

/**
 * Waits while the compressor lags behind. exceljs's sheet stream writes into the zip entry's deflate
 * stream without heeding backpressure, so without this a fast query piles the whole sheet up in memory.
 */
async function zipCaughtUp(worksheet: ExcelJS.Worksheet): Promise<void> {
  const sheetStream = (worksheet as unknown as { stream?: { pipes?: Writable[] } }).stream;
  for (const target of sheetStream?.pipes ?? []) {
    // archiver's streams come from readable-stream 2, which has no `writableLength`.
    const pending = () => target.writableLength ?? (target as unknown as { _writableState?: { length: number } })._writableState?.length ?? 0;
    while (pending() > zipBacklogBytes && !target.destroyed) await once(target, 'drain');
  }
  // Either way, give the event loop a turn so the zip and file streams move.
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The column's SELECT expression, in the form the cell takes, so converting a million rows costs little:
 * numbers and money as DOUBLE (an Excel cell is a double; sums stay in DuckDB's exact decimals), dates as
 * Excel serial days of the wall-clock time in the configured zone (what exceljs writes for a Date).
 */
function selectExpression(column: SheetColumn, timezone: string): string {
  switch (column.kind) {
    case 'integer':
    case 'money':
      return `(${column.sql})::DOUBLE`;
    case 'datetime':
      return `epoch_ms(timezone(${sqlString(timezone)}, ${column.sql}))::DOUBLE / 86400000 + 25569`;
    case 'date':
      return `((${column.sql})::DATE - DATE '1899-12-30')::DOUBLE`;
    case 'boolean':
      return `(${column.sql})::BOOLEAN`;
    default:
      return `(${column.sql})::VARCHAR`;
  }
}

function openDetailWorksheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, columns: SheetColumn[], print: PrintSetup): ExcelJS.Worksheet {
  const worksheet = workbook.addWorksheet(name, { ...print, views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }] });
  worksheet.columns = columns.map((column) => ({ header: column.header, key: column.key, width: column.width }));
  const header = worksheet.getRow(1);
  header.eachCell((cell) => (cell.style = styles.header));
  header.commit();
  return worksheet;
}

type PrintSetup = Pick<Partial<ExcelJS.AddWorksheetOptions>, 'pageSetup' | 'headerFooter'>;

/**
 * Every sheet prints landscape, one page wide (as many pages down as it takes), its first row repeated on
 * each page, and a footer with the period, the as-of, the verdict, the sign-off state and the page number.
 */
function printSetup(facts: ReportFacts): PrintSetup {
  const footerText = (text: string) => text.replaceAll('&', '&&');
  return {
    pageSetup: { orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0, printTitlesRow: '1:1', horizontalCentered: false },
    headerFooter: {
      oddFooter: `&L${footerText(`pinrecon ${facts.period} · as of ${facts.asOf}`)}&C${footerText(describeCloseState(facts.decisions))}&RPage &P of &N`,
    },
  };
}

/**
 * The Decision column of the data rows offers the decisions of interface.md as a drop-down (an empty cell is
 * allowed: undecided). Only the data rows: readers such as exceljs expand a range into one entry per cell.
 */
function addDecisionDropDown(worksheet: ExcelJS.Worksheet, columns: SheetColumn[], rows: number): void {
  const at = columns.findIndex((column) => column.key === 'decision');
  if (at < 0) return;
  const letter = worksheet.getColumn(at + 1).letter;
  // The streaming worksheet has data validations, though exceljs's types only declare them on the other one.
  const validations = (worksheet as unknown as { dataValidations: { add(address: string, validation: ExcelJS.DataValidation): void } }).dataValidations;
  validations.add(`${letter}2:${letter}${Math.max(2, rows + 1)}`, {
    type: 'list',
    allowBlank: true,
    formulae: [`"${decisions.join(',')}"`],
    showErrorMessage: true,
    errorStyle: 'stop',
    errorTitle: 'Decision',
    error: `One of: ${decisions.join(', ')}`,
  });
}

function closeDetailWorksheet(worksheet: ExcelJS.Worksheet, columns: SheetColumn[], rows: number): void {
  worksheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: rows + 1, column: columns.length } };
  addDecisionDropDown(worksheet, columns, rows);
  worksheet.commit();
}

/** The detail sheets' cell styles: by column kind, money by the row's currency. */
const detailStyles: ColumnStyles = {
  fixed: (column) => ({ integer: styles.integer, datetime: styles.dateTime, date: styles.date })[column.kind as string] ?? styles.plain,
  money: moneyStyle,
};

/** A cell of the Summary: a value and how it looks. */
type SummaryCell = { value: ExcelJS.CellValue; style: Style } | string | null;

/** What a Summary section writes with: whole rows, and the cells the Summary uses. */
interface SummaryPen {
  line(...cells: SummaryCell[]): void;
  /** A blank row, then the section's title. */
  heading(text: string): void;
  header(...labels: string[]): void;
  styled(value: ExcelJS.CellValue, style: Style): SummaryCell;
  count(value: string | number): SummaryCell;
  money(value: Decimal, currency: string | null): SummaryCell;
  /** A local wall-clock time as the facts give it ("YYYY-MM-DD HH:MM:SS"). */
  localTime(text: string | null): SummaryCell;
}

/** Everything a Summary section may show. */
interface SummaryContext {
  facts: ReportFacts;
  sheets: DetailSheet[];
  plan: WrittenSheet[];
  generatedAt: Date;
  rowsPerSheet: number;
  summaryOnlyOf: WorkbookOptions['summaryOnlyOf'];
}

/** One section of the Summary: its facts (ReportFacts) written beside their labels. */
type SummarySection = (pen: SummaryPen, context: SummaryContext) => void;

/** The Summary, top to bottom. A new section is a new function here. */
const summarySections: SummarySection[] = [
  writeSummaryHeader,
  writeSignoffSection,
  writeExtractionSection,
  writeLedgerSection,
  writeTotalsSection,
  writeBridgeSection,
  writeDecisionsSection,
  writeExceptionsByTypeSection,
  // Issue 15: the roll-forward per currency, its own section (reports/roll-forward.ts).
  (pen, { facts }) => writeRollForwardSection(pen, facts.rollForward),
  writeAmountsSection,
  writeAgingSection,
  writeSheetsSection,
];

function writeSummary(
  worksheet: ExcelJS.Worksheet,
  facts: ReportFacts,
  sheets: DetailSheet[],
  plan: WrittenSheet[],
  generatedAt: Date,
  rowsPerSheet: number,
  summaryOnlyOf: WorkbookOptions['summaryOnlyOf'],
): void {
  // A: labels; C holds the bridge's line texts, D exception type names; the rest are numbers.
  worksheet.columns = [{ width: 36 }, { width: 20 }, { width: 46 }, { width: 26 }, ...Array.from({ length: 8 }, () => ({ width: 20 }))];
  const pen = summaryPen(worksheet);
  const context: SummaryContext = { facts, sheets, plan, generatedAt, rowsPerSheet, summaryOnlyOf };
  for (const section of summarySections) section(pen, context);
  worksheet.commit();
}

function summaryPen(worksheet: ExcelJS.Worksheet): SummaryPen {
  const line = (...cells: SummaryCell[]) => {
    const row = worksheet.addRow(cells.map((cell) => (cell === null ? undefined : typeof cell === 'string' ? cell : cell.value)));
    cells.forEach((cell, i) => {
      if (cell !== null) row.getCell(i + 1).style = typeof cell === 'object' ? cell.style : styles.plain;
    });
    row.commit();
  };
  const styled = (value: ExcelJS.CellValue, style: Style): SummaryCell => ({ value, style });
  return {
    line,
    styled,
    heading: (text) => {
      line();
      line(styled(text, styles.heading));
    },
    header: (...labels) => line(...labels.map((label) => styled(label, styles.header))),
    count: (value) => styled(Number(value), styles.integer),
    money: (value, currency) => (value === null ? null : styled(Number(value), moneyStyle(currency))),
    localTime: (text) => (text === null ? null : styled(localTextDate(text), styles.dateTime)),
  };
}

/** The title, the period, its dates and time zone, a summary-only note and the no-ledger warning. */
function writeSummaryHeader({ line, styled, localTime }: SummaryPen, { facts, generatedAt, summaryOnlyOf }: SummaryContext): void {
  // The verdict and the sign-off come first: an incomplete or restated month must not read as final.
  const close = describeClose(facts.close, facts.timezone);
  if (close.alert) line(styled(close.alert, styles.alertBand), ...Array.from({ length: 7 }, () => styled('', styles.alertBand)));
  for (const text of close.lines) line(styled(text, close.alert ? styles.warning : styles.bold));
  line(styled(`pinrecon reconciliation — ${facts.period}`, styles.title));
  line();
  line(styled('Period', styles.bold), facts.period);
  line(styled('As of', styles.bold), styled(localTextDate(facts.asOf), styles.date));
  line(styled('Time zone (all dates)', styles.bold), facts.timezone);
  line(styled('Reconciled at', styles.bold), localTime(facts.reconciledAt));
  line(styled('Report generated at', styles.bold), styled(generatedAt, styles.dateTime));
  if (summaryOnlyOf) {
    line(
      styled('Note', styles.bold),
      `Summary only: the full workbook (${formatFileSize(summaryOnlyOf.bytes)}) is too large to attach; it is at ${summaryOnlyOf.file}`,
    );
  }

  const warning = noLedgerOrdersWarning(facts);
  if (warning) line(styled('WARNING', styles.warning), styled(warning, styles.warning));
}

/** Who signed the period off, and what changed since: new, cleared and changed findings, amount delta per currency. */
function writeSignoffSection({ line, heading, header, styled, count, money, localTime }: SummaryPen, { facts }: SummaryContext): void {
  const signoff = facts.close?.signoff;
  if (facts.close && signoff) {
    heading('Changed since sign-off');
    line(styled('Signed off by', styles.bold), signoff.signedBy);
    line(styled('Signed off at', styles.bold), localTime(`${signoff.signedAt}:00`));
    if (signoff.note) line(styled('Note', styles.bold), signoff.note);
    line(styled('Sign-off status', styles.bold), facts.close.status.replaceAll('_', ' '));
    line(styled('Since the sign-off', styles.bold), changeSummary(facts.close));
    for (const [label, n] of [['New findings', facts.close.changes.new], ['Cleared findings', facts.close.changes.cleared], ['Changed findings', facts.close.changes.changed]] as const) {
      line(styled(label, styles.bold), count(n));
    }
    if (facts.close.deltas.length > 0) {
      header('Currency', 'Amount delta (now − signed)');
      for (const d of facts.close.deltas) line(d.currencyCode ?? '(none)', money(d.amountDelta, d.currencyCode));
    }
  }
}

/** When and from what the data was extracted: the last fetch, the windows and the runs behind them. */
function writeExtractionSection({ line, heading, header, styled, count, localTime }: SummaryPen, { facts }: SummaryContext): void {
  const { windows, runs, lastFetchAt } = facts.extraction;
  heading('Data extracted from the provider API');
  line(styled('Last fetch', styles.bold), lastFetchAt ? localTime(lastFetchAt) : 'never: no extract covers this period');
  line(styled('Extract windows covering the period', styles.bold), count(windows.length));
  if (windows.length > 0) {
    header('Window start', 'Window end', 'By date', 'Completed at', 'Records', 'Quarantined', 'Run');
    for (const w of windows) {
      line(styled(localTextDate(w.windowStart), styles.date), styled(localTextDate(w.windowEnd), styles.date), w.by, localTime(w.completedAt), count(w.records), count(w.quarantined), w.runId);
    }
  }
  line(styled('Extract runs behind them', styles.bold), count(runs.length));
  if (runs.length > 0) {
    header('Run', 'Command', 'Started', 'Finished', 'Status', 'Requests', 'Retries', 'Rate limited (503)', 'Rows loaded');
    for (const r of runs) {
      line(r.runId, r.command, localTime(r.startedAt), localTime(r.finishedAt), r.status, count(r.requests), count(r.retries), count(r.rateLimited), count(r.rowsLoaded));
    }
  }
}

/** The ledger orders reconciled and the rejected lines, with where the rejects are listed. */
function writeLedgerSection({ line, heading, styled, count }: SummaryPen, { facts }: SummaryContext): void {
  heading('Ledger');
  line(styled('Ledger orders in the period', styles.bold), count(facts.ledger.orders));
  line(styled('Ledger lines rejected', styles.bold), count(facts.ledger.rejects), `from ${formatCount(facts.ledger.rejectFiles)} file(s), listed on the sheet Ledger rejects`);
  if (facts.ledger.unplacedRejects > 0) {
    line(
      styled('… from files with no accepted line', styles.warning),
      count(facts.ledger.unplacedRejects),
      `from ${formatCount(facts.ledger.unplacedFiles)} file(s) where not one line was accepted: check the ledger settings (delimiter, decimalSeparator, dateFormat, columns) and import again`,
    );
  }
  line(
    `A rejected line has no date to trust, so it is placed by its file: listed are the rejects of every ledger file holding orders paid in ${facts.period}, ` +
      `and of every file with no accepted line at all (it belongs to no period, so every report shows it until the file is imported again).`,
  );
}

function writeTotalsSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Totals per currency');
  header('Currency', ...totalsColumns.map((c) => c.header));
  for (const t of facts.totals) {
    line(t.currency ?? '(none)', ...totalsColumns.map((c) => (c.kind === 'count' ? count(c.value(t) ?? 0) : money(c.value(t), t.currency))));
  }
}

function writeBridgeSection({ line, heading, header, styled, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Cost bridge: ledger expected cost → provider cost');
  header('Currency', 'Step', 'Line', 'Exception type', 'Items', 'Amount', 'Gross debit', 'Gross credit');
  for (const b of facts.bridge) {
    const isTotal = b.exceptionType === null && (b.step === 0 || b.step === Math.max(...facts.bridge.filter((x) => x.currency === b.currency).map((x) => x.step)));
    const gross = facts.decisions.bridgeGross.find((g) => g.currency === b.currency && g.exceptionType === b.exceptionType);
    line(b.currency ?? '(none)', count(b.step), isTotal ? styled(b.label, styles.bold) : b.label, b.exceptionType, count(b.items), money(b.amount, b.currency),
      gross ? money(gross.grossDebit, b.currency) : null, gross ? money(gross.grossCredit, b.currency) : null);
  }
}

/** Per currency: findings and amounts by decision, undecided, pending and overdue, each net beside its gross debit and credit. */
function writeDecisionsSection({ line, heading, header, styled, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Decisions, pending and overdue per currency');
  line(
    'Pending: decided timing with Expected clear by on or after the as-of date, or a cutoff_difference the other period has not reconciled yet. ' +
      'Overdue: timing past its Expected clear by. Everything not pending is a break to account for. Gross debit and credit show what a net amount nets.',
  );
  header('Currency', 'Decision / state', 'Findings', 'Net amount', 'Gross debit', 'Gross credit');
  for (const d of facts.decisions.lines) {
    const label = d.kind === 'state' ? styled(d.label.toUpperCase(), d.label === 'pending' ? styles.bold : styles.warning) : d.label;
    line(d.currency ?? '(none)', label, count(d.findings), money(d.net, d.currency), money(d.grossDebit, d.currency), money(d.grossCredit, d.currency));
  }
  if (facts.decisions.lines.length === 0) line('No findings.');
}

/** Findings per type, with what changed since the previous reconciliation of the period. */
function writeExceptionsByTypeSection({ line, heading, header, styled, count }: SummaryPen, { facts }: SummaryContext): void {
  const changes = facts.changes;
  heading('Exceptions by type');
  line(
    changes?.previousBuiltAt
      ? `New, still open and cleared compared with the previous reconciliation of ${facts.period}, at ${changes.previousBuiltAt}.`
      : `First reconciliation of ${facts.period}: every finding is new.`,
  );
  header('Exception type', 'Findings', 'New', 'Still open', 'Cleared');
  const changeTypes = new Map(changes?.byType.map((c) => [c.exceptionType, c]) ?? []);
  for (const t of facts.typeCounts) {
    const c = changeTypes.get(t.exceptionType);
    line(t.exceptionType, count(t.findings), count(c?.new ?? 0), count(c?.stillOpen ?? 0), count(c?.cleared ?? 0));
  }
  line(styled('Total', styles.bold), count(facts.totalFindings), count(changes?.new ?? 0), count(changes?.stillOpen ?? 0), count(changes?.cleared ?? 0));
}

function writeAmountsSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Amounts by exception type');
  header('Exception type', 'Currency', 'Findings', 'Ledger value', 'Provider value', 'Difference', 'Cost bridge effect');
  for (const a of facts.exceptionAmounts) {
    line(a.exceptionType, a.currency, count(a.findings), money(a.ledgerValue, a.currency), money(a.providerValue, a.currency), money(a.difference, a.currency), money(a.bridgeAmount, a.currency));
  }
}

function writeAgingSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Unredeemed keys by age');
  header('Currency', 'Aging bucket (days)', 'Keys', 'Cost');
  for (const a of facts.aging) line(a.currency ?? '(none)', a.bucket, count(a.keys), money(a.costTotal, a.currency));
}

/** The workbook's sheets with their rows, and a note for each sheet that continues on another. */
function writeSheetsSection({ line, heading, header, styled, count }: SummaryPen, { sheets, plan, rowsPerSheet, summaryOnlyOf }: SummaryContext): void {
  heading(summaryOnlyOf ? 'Sheets of the full workbook' : 'Sheets');
  for (const { title } of sheets) {
    const parts = plan.filter((part) => part.title === title);
    if (parts.length > 1) {
      const rows = parts.reduce((sum, part) => sum + part.rows, 0);
      line(
        styled('Note', styles.bold),
        `${title} has ${rows.toLocaleString('en-US')} rows, more than one sheet holds (${rowsPerSheet.toLocaleString('en-US')}): it continues on ${parts
          .slice(1)
          .map((part) => part.name)
          .join(', ')}.`,
      );
    }
  }
  header('Sheet', 'Rows', 'Holds');
  const descriptions = new Map(sheets.map((sheet) => [sheet.title, sheet.description]));
  for (const part of plan) {
    const continued = part.name !== part.title ? ` (continued from ${part.title})` : '';
    line(part.name, count(part.rows), `${descriptions.get(part.title) ?? ''}${continued}`);
  }
}
