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
import { closeOf, describeMissingProof, noLedgerOrdersWarning, totalsColumns, type Decimal, type ReportFacts } from './report-facts.js';
import { detailSheets, signoffChangesSheet, type DetailSheet, type SheetColumn } from './report-sheets.js';
import { describeClose } from './close-facts.js';
import { writeRollForwardSection } from './roll-forward.js';
import { decisions } from '../core/decisions.js';
import { formatLocalTimeZoned, localTimeInstant, zonedTimeParts } from '../core/zoned-time.js';
import { findingAmountRule } from './finding-amount.js';
import { papers, printMargins, printScale, type PaperSize } from './print-layout.js';
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
  /** The paper the sheets are laid out for when printed (config reports.paperSize; default A4). */
  paperSize?: PaperSize;
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
  wrappedHeader: {
    font: { bold: true },
    fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE7ECF3' } },
    alignment: { wrapText: true, vertical: 'top' },
  } as Style,
  bold: { font: { bold: true } } as Style,
  warning: { font: { bold: true, color: { argb: 'FFB00020' } } } as Style,
  alertBand: { font: { bold: true, size: 13, color: { argb: 'FFFFFFFF' } }, fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFB00020' } } } as Style,
  /** Cells pinrecon writes for reading only (Decided by/at, Decision ref): grey. */
  readOnly: { font: { color: { argb: 'FF808080' } } } as Style,
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
  const print = printSetup(facts, options.paperSize ?? 'A4');
  writeSummary(workbook.addWorksheet('Summary', print.summary), facts, sheets, plan, options.generatedAt, options.rowsPerSheet, options.summaryOnlyOf);
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
  let worksheet = openDetailWorksheet(workbook, parts[0]!.name, sheet, print);
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
          closeDetailWorksheet(worksheet, sheet, inSheet);
          worksheet = openDetailWorksheet(workbook, parts[++partIndex]!.name, sheet, print);
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
  closeDetailWorksheet(worksheet, sheet, inSheet);
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

function openDetailWorksheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, sheet: DetailSheet, print: PrintSetup): ExcelJS.Worksheet {
  const { columns } = sheet;
  const worksheet = workbook.addWorksheet(name, { ...print.detail(sheet), views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }] });
  worksheet.columns = columns.map((column) => ({ header: column.header, key: column.key, width: column.width }));
  const header = worksheet.getRow(1);
  header.eachCell((cell) => (cell.style = styles.header));
  header.commit();
  return worksheet;
}

type SheetPrint = Pick<Partial<ExcelJS.AddWorksheetOptions>, 'pageSetup' | 'headerFooter'>;

interface PrintSetup {
  paper: PaperSize;
  summary: SheetPrint;
  detail(sheet: DetailSheet): SheetPrint;
}

/**
 * How each sheet prints on `paper` (reports/print-layout.ts), with a footer giving the period, the as-of, the
 * time zone, the verdict and sign-off state (the one state of close-facts.ts) and the page number:
 * - the Summary portrait, at the scale its columns fit across the page (it is laid out for at most 2 pages);
 * - a finding sheet landscape, its key columns on every page (the leading ones repeated at the left, the
 *   decision ones as the print area) at the scale they fit across; the rest of its columns stay on screen;
 * - any other sheet landscape, one page wide, its first row repeated on each page.
 */
function printSetup(facts: ReportFacts, paper: PaperSize): PrintSetup {
  const footerText = (text: string) => text.replaceAll('&', '&&');
  const headerFooter = {
    // Every printed page says the zone its dates and times are in (the time cells of a detail sheet cannot).
    oddFooter: `&L${footerText(`pinrecon ${facts.period} · as of ${facts.asOf} · times in ${facts.timezone}`)}&C${footerText(describeClose(closeOf(facts)).footer)}&RPage &P of &N`,
  };
  const common = { paperSize: papers[paper].excelCode, margins: printMargins, horizontalCentered: false };
  return {
    paper,
    summary: {
      pageSetup: { ...common, orientation: 'portrait', fitToPage: false, scale: printScale(summaryColumnWidths, paper, 'portrait') },
      headerFooter,
    },
    detail: (sheet) => {
      const keys = sheet.printColumns;
      if (!keys) return { pageSetup: { ...common, orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0, printTitlesRow: '1:1' }, headerFooter };
      const widths = sheet.columns.filter((column) => keys.includes(column.key)).map((column) => column.width);
      const leading = sheet.columns.findIndex((column) => !keys.includes(column.key));
      return {
        pageSetup: {
          ...common,
          orientation: 'landscape',
          fitToPage: false,
          scale: printScale(widths, paper, 'landscape'),
          printTitlesRow: '1:1',
          ...(leading > 0 ? { printTitlesColumn: `${columnLetter(1)}:${columnLetter(leading)}` } : {}),
        },
        headerFooter,
      };
    },
  };
}

/** The print area of a finding sheet: its key columns after the leading ones, over every row written. */
function printArea(sheet: DetailSheet, rows: number): string | undefined {
  const keys = sheet.printColumns;
  if (!keys) return undefined;
  const leading = sheet.columns.findIndex((column) => !keys.includes(column.key));
  const area = sheet.columns.map((column, i) => ({ key: column.key, at: i + 1 })).filter((c, i) => i >= leading && keys.includes(c.key));
  if (area.length === 0) return undefined;
  const first = area[0]!.at;
  const last = area[area.length - 1]!.at;
  if (last - first + 1 !== area.length) throw new RangeError(`the print columns of ${sheet.title} after the leading ones must be adjacent`);
  // exceljs puts `$` before the columns only; the rows are made absolute here (a relative one would move with the cursor).
  return `${columnLetter(first)}$1:${columnLetter(last)}$${rows + 1}`;
}

/** 1 → A, 27 → AA. */
function columnLetter(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
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

function closeDetailWorksheet(worksheet: ExcelJS.Worksheet, sheet: DetailSheet, rows: number): void {
  worksheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: rows + 1, column: sheet.columns.length } };
  const area = printArea(sheet, rows);
  if (area) worksheet.pageSetup.printArea = area;
  addDecisionDropDown(worksheet, sheet.columns, rows);
  worksheet.commit();
}

/** The detail sheets' cell styles: by column kind, money by the row's currency. */
const detailStyles: ColumnStyles = {
  fixed: (column) => {
    if (column.readOnly) return styles.readOnly;
    return ({ integer: styles.integer, datetime: styles.dateTime, date: styles.date })[column.kind as string] ?? styles.plain;
  },
  money: moneyStyle,
};

/** A cell of the Summary: a value and how it looks. */
type SummaryCell = { value: ExcelJS.CellValue; style: Style } | string | null;

/** What a Summary section writes with: whole rows, and the cells the Summary uses. */
interface SummaryPen {
  line(...cells: SummaryCell[]): void;
  /** Text across the whole width of the Summary, wrapped: it prints whole, whatever its length. */
  note(text: string, style?: Style): void;
  /** A blank row, then the section's title. */
  heading(text: string): void;
  header(...labels: (string | null)[]): void;
  styled(value: ExcelJS.CellValue, style: Style): SummaryCell;
  count(value: string | number): SummaryCell;
  money(value: Decimal, currency: string | null): SummaryCell;
  /** A local wall-clock time as the facts give it ("YYYY-MM-DD HH:MM:SS"), shown with its UTC offset. */
  localTime(text: string | null): SummaryCell;
  /** An instant, shown as the wall clock of the configured zone with its UTC offset. */
  instant(at: Date): SummaryCell;
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
  writeExceptionsByTypeSection,
  // Issue 15: the roll-forward per currency, its own section (reports/roll-forward.ts).
  (pen, { facts }) => writeRollForwardSection(pen, facts.rollForward),
  writeAgingSection,
  writeSheetsSection,
];

/** A: labels; B: a value or a time (with its offset); C–F: numbers. Nothing is written right of F. */
const summaryColumnWidths = [23, 23, 14, 14, 14, 14];
/** Characters of body text a wrapped note holds per printed line (a little under the columns' width). */
const noteLineChars = Math.floor(summaryColumnWidths.reduce((sum, width) => sum + width, 0) * 1.1);

function writeSummary(
  worksheet: ExcelJS.Worksheet,
  facts: ReportFacts,
  sheets: DetailSheet[],
  plan: WrittenSheet[],
  generatedAt: Date,
  rowsPerSheet: number,
  summaryOnlyOf: WorkbookOptions['summaryOnlyOf'],
): void {
  worksheet.columns = summaryColumnWidths.map((width) => ({ width }));
  const pen = summaryPen(worksheet, facts.timezone);
  const context: SummaryContext = { facts, sheets, plan, generatedAt, rowsPerSheet, summaryOnlyOf };
  for (const section of summarySections) section(pen, context);
  worksheet.pageSetup.printArea = `A$1:${columnLetter(summaryColumnWidths.length)}$${pen.rows()}`;
  worksheet.commit();
}

function summaryPen(worksheet: ExcelJS.Worksheet, timezone: string): SummaryPen & { rows(): number } {
  let rows = 0;
  const addRow = (cells: SummaryCell[], lines = 1) => {
    const row = worksheet.addRow(cells.map((cell) => (cell === null ? undefined : typeof cell === 'string' ? cell : cell.value)));
    cells.forEach((cell, i) => {
      if (cell !== null) row.getCell(i + 1).style = typeof cell === 'object' ? cell.style : styles.plain;
    });
    if (lines > 1) row.height = 15 * lines;
    row.commit();
    rows = row.number;
  };
  const line = (...cells: SummaryCell[]) => addRow(cells);
  const styled = (value: ExcelJS.CellValue, style: Style): SummaryCell => ({ value, style });
  // A time cell's format carries the zone's offset at that instant, so "every time says its zone" holds in print too.
  const timeCell = (instant: Date): SummaryCell => {
    const { offset } = zonedTimeParts(instant, timezone);
    return styled(wallClockDate(instant, timezone), timeStyle(offset));
  };
  return {
    line,
    styled,
    rows: () => rows,
    note: (text, style = styles.plain) => {
      const row = worksheet.addRow([text]);
      row.getCell(1).style = { ...style, alignment: { wrapText: true, vertical: 'top' } };
      const lines = Math.max(1, Math.ceil(text.length / noteLineChars));
      // 15 pt a line of the 11 pt body font; a larger font (the alert band) needs proportionally more.
      if (lines > 1) row.height = Math.ceil((15 * lines * Math.max(11, style.font?.size ?? 11)) / 11);
      worksheet.mergeCells(row.number, 1, row.number, summaryColumnWidths.length);
      row.commit();
      rows = row.number;
    },
    heading: (text) => {
      line();
      line(styled(text, styles.heading));
    },
    // A label wider than its column wraps onto more lines of a taller row, so it prints whole.
    header: (...labels) => {
      const lines = Math.max(...labels.map((label, i) => Math.ceil((label ?? '').length / (summaryColumnWidths[i] ?? 1))));
      addRow(labels.map((label) => (label === null ? null : styled(label, lines > 1 ? styles.wrappedHeader : styles.header))), lines);
    },
    count: (value) => styled(Number(value), styles.integer),
    money: (value, currency) => (value === null ? null : styled(Number(value), moneyStyle(currency))),
    localTime: (text) => (text === null ? null : timeCell(localTimeInstant(text, timezone))),
    instant: timeCell,
  };
}

/** One shared style per UTC offset: "yyyy-mm-dd hh:mm -03:00". */
const timeStyles = new Map<string, Style>();
function timeStyle(offset: string): Style {
  let style = timeStyles.get(offset);
  if (!style) timeStyles.set(offset, (style = { numFmt: `yyyy-mm-dd hh:mm "${offset}"`, alignment: { horizontal: 'left' } }));
  return style;
}

/** The verdict and sign-off state first, then the title, the period, its dates and zone, notes and warnings. */
function writeSummaryHeader({ line, note, styled, localTime, instant }: SummaryPen, { facts, generatedAt, summaryOnlyOf }: SummaryContext): void {
  // The verdict and the sign-off come first: an incomplete or restated month must not read as final.
  const close = describeClose(closeOf(facts));
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
    note(`Summary only: the full workbook (${formatFileSize(summaryOnlyOf.bytes)}) is too large to attach; it is at ${summaryOnlyOf.file}`, styles.bold);
  }
  const warning = noLedgerOrdersWarning(facts);
  if (warning) note(`WARNING: ${warning}`, styles.warning);
}

/** Where the findings that differ from the sign-off are: the state itself is said once, at the top. */
function writeSignoffSection({ note }: SummaryPen, { facts }: SummaryContext): void {
  if (closeOf(facts).status === 'changed_since_signoff') note('The findings new, cleared or changed since the sign-off are on the sheet Changed since sign-off.');
}

/** When and from what the data was extracted: the last fetch, the windows and the runs behind them. */
function writeExtractionSection({ line, heading, header, styled, count, localTime }: SummaryPen, { facts }: SummaryContext): void {
  const { windows, runs, lastFetchAt } = facts.extraction;
  heading('Data extracted from the provider API');
  line(styled('Last fetch', styles.bold), lastFetchAt ? localTime(lastFetchAt) : 'never: no extract covers this period');
  line(styled('Extract windows', styles.bold), count(windows.length), 'covering the period');
  if (windows.length > 0) {
    header('Window', 'Completed at', 'By date', 'Records', 'Quarantined');
    for (const w of windows) line(`${w.windowStart} – ${w.windowEnd}`, localTime(w.completedAt), w.by, count(w.records), count(w.quarantined));
  }
  line(styled('Extract runs', styles.bold), count(runs.length), 'that completed them');
  if (runs.length > 0) {
    header('Run', 'Started', 'Status', 'Requests', 'Retries · 503', 'Rows loaded');
    for (const r of runs) {
      line(r.runId, localTime(r.startedAt), `${r.command} ${r.status}`, count(r.requests), `${formatCount(r.retries)} · ${formatCount(r.rateLimited)}`, count(r.rowsLoaded));
    }
  }
}

/** The ledger orders reconciled and the rejected lines, with where the rejects are listed. */
function writeLedgerSection({ line, note, heading, styled, count }: SummaryPen, { facts }: SummaryContext): void {
  heading('Ledger');
  line(styled('Ledger orders', styles.bold), count(facts.ledger.orders), 'in the period');
  line(styled('Ledger lines rejected', styles.bold), count(facts.ledger.rejects), `from ${formatCount(facts.ledger.rejectFiles)} file(s), listed on the sheet Ledger rejects`);
  if (facts.ledger.unplacedRejects > 0) {
    line(styled('… of unreadable files', styles.warning), count(facts.ledger.unplacedRejects), `from ${formatCount(facts.ledger.unplacedFiles)} file(s)`);
    note('Not one line of those files was accepted: check the ledger settings (delimiter, decimalSeparator, dateFormat, columns) and import again.', styles.warning);
  }
  note(
    `A rejected line has no date to trust, so it is placed by its file: listed are the rejects of every ledger file holding orders paid in ${facts.period}, ` +
      `and of every file with no accepted line at all (it belongs to no period, so every report shows it until the file is imported again).`,
  );
}

/** Per currency, the ledger side and the provider side, each in a row of its own. */
function writeTotalsSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Totals per currency');
  // The exceptions per currency are the totals of the decisions table below.
  const ledgerColumns = totalsColumns.filter((c) => c.header.startsWith('Ledger') || c.header === 'of which paid' || c.header === 'Matched');
  const providerColumns = totalsColumns.filter((c) => !ledgerColumns.includes(c) && c.header !== 'Exceptions');
  for (const columns of [ledgerColumns, providerColumns]) {
    header('Currency', ...columns.map((c) => c.header));
    for (const t of facts.totals) {
      line(t.currency ?? '(none)', ...columns.map((c) => (c.kind === 'count' ? count(c.value(t) ?? 0) : money(c.value(t), t.currency))));
    }
  }
}

/** Per currency, the bridge's lines (their text runs into the empty B), items, amount and gross. */
function writeBridgeSection({ line, heading, header, styled, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Cost bridge: ledger expected cost → provider cost');
  const currencies = [...new Set(facts.bridge.map((b) => b.currency))];
  for (const currency of currencies) {
    header(currency ?? '(none)', null, 'Items', 'Amount', 'Gross debit', 'Gross credit');
    const steps = facts.bridge.filter((b) => b.currency === currency);
    const lastStep = Math.max(...steps.map((x) => x.step));
    // A step with no item and no amount says nothing: left out (the detail is on the sheets).
    for (const b of steps.filter((x) => x.exceptionType === null || Number(x.items) > 0 || Number(x.amount ?? 0) !== 0)) {
      const isTotal = b.exceptionType === null && (b.step === 0 || b.step === lastStep);
      const gross = facts.decisions.bridgeGross.find((g) => g.currency === b.currency && g.exceptionType === b.exceptionType);
      line(isTotal ? styled(b.label, styles.bold) : b.label, null, count(b.items), money(b.amount, b.currency),
        gross ? money(gross.grossDebit, b.currency) : null, gross ? money(gross.grossCredit, b.currency) : null);
    }
  }
}

/**
 * Per currency, two blocks that each count every finding once: by decision (undecided included) and by state
 * (undecided, overdue, pending, decided), each with a total equal to the currency's findings; every net amount
 * beside its gross debit and credit.
 */
function writeDecisionsSection({ line, note, heading, header, styled, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Decisions and states per currency');
  note(
    'Pending: decided timing with Expected clear by on or after the as-of date, or a cutoff_difference the other period has not reconciled yet. ' +
      `Overdue: timing past its Expected clear by. Everything not pending is a break to account for. ${findingAmountRule}`,
  );
  const d = facts.decisions;
  if (d.totals.length === 0) line('No findings.');
  for (const total of d.totals) {
    const currency = total.currency;
    for (const [kind, title] of [['decision', 'by decision'], ['state', 'by state']] as const) {
      header(`${currency ?? '(none)'} ${title}`, 'Findings', 'Net amount', 'Gross debit', 'Gross credit');
      for (const l of d.lines.filter((x) => x.kind === kind && x.currency === currency)) {
        const label = kind === 'state' && l.label !== 'decided' ? styled(l.label.toUpperCase(), l.label === 'pending' ? styles.bold : styles.warning) : l.label;
        line(label, count(l.findings), money(l.net, currency), money(l.grossDebit, currency), money(l.grossCredit, currency));
      }
      line(styled('Total', styles.bold), count(total.findings), money(total.net, currency), money(total.grossDebit, currency), money(total.grossCredit, currency));
    }
  }
}

/** Findings per type, with what changed since the previous reconciliation of the period. */
function writeExceptionsByTypeSection({ line, note, heading, header, styled, count }: SummaryPen, { facts }: SummaryContext): void {
  const changes = facts.changes;
  heading('Exceptions by type');
  note(
    changes?.previousBuiltAt
      ? `New, still open and cleared compared with the previous reconciliation of ${facts.period}, at ${formatLocalTimeZoned(changes.previousBuiltAt, facts.timezone)}.`
      : `First reconciliation of ${facts.period}: every finding is new.`,
  );
  header('Exception type', 'Findings', 'New', 'Still open', 'Cleared');
  const changeTypes = new Map(changes?.byType.map((c) => [c.exceptionType, c]) ?? []);
  for (const t of facts.typeCounts) {
    const c = changeTypes.get(t.exceptionType);
    line(t.exceptionType, count(t.findings), count(c?.new ?? 0), count(c?.stillOpen ?? 0), count(c?.cleared ?? 0));
  }
  line(styled('Total', styles.bold), count(facts.totalFindings), count(changes?.new ?? 0), count(changes?.stillOpen ?? 0), count(changes?.cleared ?? 0));
  const missingProof = describeMissingProof(facts.missingProof);
  if (missingProof) line(facts.missingProof.unproven > 0 ? styled(missingProof, styles.warning) : missingProof);
}

function writeAgingSection({ line, heading, header, count, money }: SummaryPen, { facts }: SummaryContext): void {
  heading('Unredeemed keys by age');
  header('Currency', 'Aging bucket (days)', 'Keys', 'Cost at stake');
  for (const a of facts.aging.filter((x) => Number(x.keys) > 0)) line(a.currency ?? '(none)', a.bucket, count(a.keys), money(a.costTotal, a.currency));
  if (!facts.aging.some((x) => Number(x.keys) > 0)) line('No unredeemed key.');
}

/** The workbook's sheets with their rows, and a note for each sheet that continues on another. */
function writeSheetsSection({ line, note, heading, header, count }: SummaryPen, { sheets, plan, rowsPerSheet, summaryOnlyOf }: SummaryContext): void {
  heading(summaryOnlyOf ? 'Sheets of the full workbook' : 'Sheets');
  for (const { title } of sheets) {
    const parts = plan.filter((part) => part.title === title);
    if (parts.length > 1) {
      const rows = parts.reduce((sum, part) => sum + part.rows, 0);
      note(
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
