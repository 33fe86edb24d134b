/**
 * Writes a period's Excel workbook, `pinrecon-<period>.xlsx`: the Summary first, then the detail sheets of
 * report-sheets.ts, streamed from DuckDB chunk by chunk through exceljs's streaming writer so memory stays flat
 * however many sales the period has; the data rows go in as XML text (reports/xlsx-sheet-writer.ts), the page
 * setup comes from reports/print-setup.ts. A sheet longer than Excel's row limit continues on "<name> (2)",
 * "<name> (3)"…, and the Summary says so. The same data always gives the same cells: every query has a total
 * order, and the generation time is the only wall-clock value written.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import path from 'node:path';
import type { DuckDBDataChunk, DuckDBResult } from '@duckdb/node-api';
import type ExcelJS from 'exceljs';
import type { Warehouse } from '../core/warehouse.js';
import { privateAccess, writeThroughTemporary } from '../core/file-modes.js';
import type { ReportFacts } from './report-facts.js';
import { detailSheets, signoffChangesSheet } from './report-sheets.js';
import type { DetailSheet, SheetColumn } from './sheet-spec.js';
import { decisions } from '../core/decisions.js';
import type { PaperSize } from './print-layout.js';
import { printArea, printSetup, type PrintSetup } from './print-setup.js';
import { sheetSelect } from './sheet-select.js';
import { useNativeCrc32 } from './native-crc32.js';
import { moneyStyle, styles } from './workbook-styles.js';
import { writeSummary, type SummaryOnlyOf, type WrittenSheet } from './summary-sheet.js';
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
  summaryOnlyOf?: SummaryOnlyOf;
  /** Called after each chunk of detail rows. */
  onProgress?: (rowsWritten: number, rowsTotal: number) => void;
  /** The paper the sheets are laid out for when printed (config reports.paperSize; default A4). */
  paperSize?: PaperSize;
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

export async function writeWorkbook(
  warehouse: Warehouse,
  facts: ReportFacts,
  options: WorkbookOptions,
): Promise<WorkbookResult> {
  const rowsPerSheet = (options.maxRowsPerSheet ?? excelMaxRows) - 1;
  if (!Number.isInteger(rowsPerSheet) || rowsPerSheet < 1 || rowsPerSheet >= excelMaxRows) {
    throw new RangeError(
      `maxRowsPerSheet must be an integer from 2 to ${excelMaxRows}, got ${options.maxRowsPerSheet}`,
    );
  }
  const signedChanges = facts.close.status === 'changed_since_signoff' && facts.close.signoff;
  const sheets = [
    ...detailSheets(facts.period, facts.timezone),
    ...(signedChanges ? [signoffChangesSheet(facts.period, signedChanges.signoffId)] : []),
  ];
  const generatedAt = options.generatedAt ?? new Date();
  mkdirSync(path.dirname(options.file), { recursive: true });
  // One read transaction: the counts of the plan and the rows streamed come from the same snapshot. Written
  // through a temporary created exclusively, never through a link planted at its name (issue 34).
  const plan = await warehouse.transaction(async () => {
    const plan = await planSheets(warehouse, sheets, rowsPerSheet);
    await writeThroughTemporary(options.file, privateAccess, (_, fd) =>
      writeFile(warehouse, facts, sheets, plan, fd, { ...options, generatedAt, rowsPerSheet }),
    );
    return plan;
  });
  const rowsByTitle: Record<string, number> = {};
  for (const part of plan) rowsByTitle[part.title] = (rowsByTitle[part.title] ?? 0) + part.rows;
  return {
    file: options.file,
    bytes: statSync(options.file).size,
    sheets: plan,
    rowsByTitle,
    summaryOnly: Boolean(options.summaryOnlyOf),
  };
}

async function writeFile(
  warehouse: Warehouse,
  facts: ReportFacts,
  sheets: DetailSheet[],
  plan: WrittenSheet[],
  fd: number,
  options: WorkbookOptions & { generatedAt: Date; rowsPerSheet: number },
): Promise<void> {
  const { default: excel } = await import('exceljs'); // when a workbook is written, not at every start-up
  useNativeCrc32();
  const workbook = new excel.stream.xlsx.WorkbookWriter({
    // Into the descriptor of the exclusive temporary; writeThroughTemporary closes it.
    stream: createWriteStream('', { fd, autoClose: false }),
    useStyles: true,
    useSharedStrings: false,
    // Fast compression: at the default level, deflating a million-row sheet takes longer than writing it. Output
    // in 1 MiB pieces, not 16 KiB: the 879 MB sales sheet of the 1M month deflated in 2.2 s instead of 3.0 s, the
    // same bytes (each piece is a round trip between the thread pool and the main thread).
    zip: { zlib: { level: 1, chunkSize: 1 << 20 } },
  });
  workbook.creator = 'pinrecon';
  workbook.created = options.generatedAt;
  workbook.modified = options.generatedAt;
  // Sheets are written one after another: the zip holds one open entry at a time, so nothing waits in memory.
  const print = printSetup(facts, options.paperSize ?? 'A4');
  writeSummary(
    workbook.addWorksheet('Summary', print.summary),
    facts,
    sheets,
    plan,
    options.generatedAt,
    options.rowsPerSheet,
    options.summaryOnlyOf,
    print.paper,
  );
  if (!options.summaryOnlyOf) {
    const total = plan.reduce((sum, sheet) => sum + sheet.rows, 0);
    let written = 0;
    for (const sheet of sheets) {
      written = await streamSheet(
        workbook,
        warehouse,
        sheet,
        facts.timezone,
        plan,
        written,
        (rows) => options.onProgress?.(rows, total),
        print,
      );
    }
  }
  await workbook.commit();
}

/** Counts each detail sheet's rows and names the worksheets it takes. */
async function planSheets(warehouse: Warehouse, sheets: DetailSheet[], rowsPerSheet: number): Promise<WrittenSheet[]> {
  const plan: WrittenSheet[] = [];
  for (const sheet of sheets) {
    const counted = await warehouse.one<{ rows: string }>(
      `SELECT count(*) AS rows FROM ${sheet.table} WHERE ${sheet.where}`,
    );
    const rows = Number(counted?.rows ?? 0);
    const parts = Math.max(1, Math.ceil(rows / rowsPerSheet));
    for (let part = 1; part <= parts; part++) {
      plan.push({
        name: sheetName(sheet.title, part),
        title: sheet.title,
        rows: Math.min(rowsPerSheet, rows - (part - 1) * rowsPerSheet),
      });
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
  // Sort only the row ids, then read whole rows a page at a time: sorting whole rows would hold them all.
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE report_sheet_order AS
     SELECT row_number() OVER (ORDER BY ${sheet.orderBy}) AS report_position, rowid AS report_row
     FROM ${sheet.table} WHERE ${sheet.where}`,
  );
  const select = await sheetSelect(warehouse, sheet, timezone);
  // The data rows go out as XML text (reports/xlsx-sheet-writer.ts); exceljs writes the rest of the sheet.
  const rowsXml = new SheetRowsXml(sheet.columns, detailStyles, workbookStyleId(workbook));
  let written = writtenBefore;
  let partIndex = 0;
  let inSheet = 0;
  let worksheet = openDetailWorksheet(workbook, parts[0]!.name, sheet, print);
  for (let first = 1; first <= total; first += pageRows) {
    const result = await warehouse.connection.stream(
      `SELECT ${select.list}
       FROM report_sheet_order JOIN ${sheet.table} ON ${sheet.table}.rowid = report_sheet_order.report_row
       WHERE report_position >= ${first} AND report_position < ${first + pageRows}
       ORDER BY report_position`,
    );
    // Column by column from DuckDB's chunks (no array of JavaScript values per row); the next chunk is
    // asked for before this one is written, so DuckDB makes it meanwhile on its own thread.
    let next = nextChunk(result);
    for (let chunk = await next; chunk; chunk = await next) {
      next = nextChunk(result);
      const columns = select.columns(chunk);
      const rowCount = chunk.rowCount;
      for (let index = 0; index < rowCount; index++) {
        if (inSheet === parts[partIndex]!.rows && partIndex + 1 < parts.length) {
          writeSheetXml(worksheet, rowsXml.take());
          closeDetailWorksheet(worksheet, sheet, inSheet);
          worksheet = openDetailWorksheet(workbook, parts[++partIndex]!.name, sheet, print);
          inSheet = 0;
        }
        rowsXml.append(columns, index, inSheet + 2);
        inSheet++;
      }
      writeSheetXml(worksheet, rowsXml.take());
      written += rowCount;
      onProgress(written);
      await zipCaughtUp(worksheet);
    }
  }
  await warehouse.run('DROP TABLE report_sheet_order');
  closeDetailWorksheet(worksheet, sheet, inSheet);
  return written;
}

/** The result's next chunk, or null at its end; a failure waits for the caller's await, never unhandled. */
function nextChunk(result: DuckDBResult): Promise<DuckDBDataChunk | null> {
  const chunk = result.fetchChunk().then((c) => (c && c.rowCount > 0 ? c : null));
  chunk.catch(() => undefined);
  return chunk;
}

/** Rows read from DuckDB per query (then streamed chunk by chunk). */
const pageRows = 65_536;

/** Uncompressed sheet XML allowed to wait for the compressor before rows stop being produced. */
const zipBacklogBytes = 8 * 1024 * 1024;

/**
 * The pieces a detail sheet's XML goes to the zip in. The 1M month's report, runs alternated: 15.2/14.6 s with
 * exceljs's 64 KiB, 12.2/12.4 s with 4 MiB (1 MiB: 13.5 s; 16 MiB: 12.6 s), the workbook the same; +15 MiB RSS.
 */
const zipPieceBytes = 4 * 1024 * 1024;

/**
 * Waits while the compressor lags behind. exceljs's sheet stream writes into the zip entry's deflate
 * stream without heeding backpressure, so without this a fast query piles the whole sheet up in memory.
 */
async function zipCaughtUp(worksheet: ExcelJS.Worksheet): Promise<void> {
  const sheetStream = (worksheet as unknown as { stream?: { pipes?: Writable[] } }).stream;
  for (const target of sheetStream?.pipes ?? []) {
    // archiver's streams come from readable-stream 2, which has no `writableLength`.
    const pending = () =>
      target.writableLength ??
      (target as unknown as { _writableState?: { length: number } })._writableState?.length ??
      0;
    while (pending() > zipBacklogBytes && !target.destroyed) await once(target, 'drain');
  }
  // Either way, give the event loop a turn so the zip and file streams move.
  await new Promise<void>((resolve) => setImmediate(resolve));
}

function openDetailWorksheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  name: string,
  sheet: DetailSheet,
  print: PrintSetup,
): ExcelJS.Worksheet {
  const { columns } = sheet;
  const worksheet = workbook.addWorksheet(name, {
    ...print.detail(sheet),
    views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
  });
  // exceljs hands the sheet's bytes to the zip in pieces of its stream's buffer, 64 KiB: each piece is a deflate job
  // and a round trip to the main thread, which then waited ~5 s of the 1M sales sheet's 15 s for the zip.
  (worksheet as unknown as { stream: { bufSize: number } }).stream.bufSize = zipPieceBytes;
  worksheet.columns = columns.map((column) => ({ header: column.header, key: column.key, width: column.width }));
  const header = worksheet.getRow(1);
  // Wrapped: a narrow printed column ("Age (days)") shows its whole header (issue 30 item 6).
  header.eachCell((cell) => (cell.style = styles.wrappedHeader));
  // Two lines' height when a header is wider than its column: LibreOffice does not grow a streamed row to fit.
  if (columns.some((column) => column.header.length > column.width)) header.height = 30;
  header.commit();
  return worksheet;
}

/**
 * The Decision column of the data rows offers the decisions on a finding (core/decisions.ts) as a drop-down (an
 * empty cell is allowed: undecided). Only the data rows: readers such as exceljs expand a range into one entry per
 * cell.
 */
function addDecisionDropDown(worksheet: ExcelJS.Worksheet, columns: SheetColumn[], rows: number): void {
  const at = columns.findIndex((column) => column.key === 'decision');
  if (at < 0) return;
  const letter = worksheet.getColumn(at + 1).letter;
  const choices = columns[at]!.choices ?? decisions; // Suggested matches: confirm | reject (issue 29)
  // The streaming worksheet has data validations, though exceljs's types only declare them on the other one.
  const validations = (
    worksheet as unknown as { dataValidations: { add(address: string, validation: ExcelJS.DataValidation): void } }
  ).dataValidations;
  validations.add(`${letter}2:${letter}${Math.max(2, rows + 1)}`, {
    type: 'list',
    allowBlank: true,
    formulae: [`"${choices.join(',')}"`],
    showErrorMessage: true,
    errorStyle: 'stop',
    errorTitle: 'Decision',
    error: `One of: ${choices.join(', ')}`,
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
    return (
      { integer: styles.integer, datetime: styles.dateTime, date: styles.date }[column.kind as string] ?? styles.plain
    );
  },
  money: moneyStyle,
};
