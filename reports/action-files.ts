/**
 * The files `actions export` writes: a claim (or the undercharges) for the provider and the journal for the
 * ledger, as Excel or CSV (exact decimal text; no text cell runs as a formula). The workbook is a document a
 * reader outside finance accepts (issue 30): a heading (who, period, claim reference, totals per currency), date
 * and money cells, landscape on `reports.paperSize`, the header row on every page, the printed columns across one
 * page at ≥ 8 pt (print-layout.ts). Written under a temporary name and renamed: never half a file.
 */
import { writeFileSync } from 'node:fs';
import type ExcelJS from 'exceljs';
import { privateAccess, writeThroughTemporary } from '../core/file-modes.js';
import { neutralizeFormula, printable } from '../core/text-safety.js';
import { moneyFormat } from './formats.js';
import { headerFooterText, papers, printMargins, printScale, wrappedLines, type PaperSize } from './print-layout.js';
import { columnLetters } from './xlsx-sheet-writer.js';

/** A column of an export: its header, the row field it shows, and how. */
export interface FileColumn {
  header: string;
  key: string;
  kind: 'text' | 'integer' | 'money' | 'date';
  width: number;
  /**
   * Set apart from its neighbours: an identifier to the left (a number right-aligned ran into the text beside
   * it), a short code between a number and a text (the currency) centred.
   */
  align?: 'left' | 'center';
}

/** A block of totals (one line per currency). */
export interface FileTotals {
  title: string;
  columns: FileColumn[];
  rows: Record<string, string | null>[];
}

export interface ActionFile {
  sheet: string;
  /** The document's title and its heading lines (label, value), above the table in the workbook. */
  title?: string;
  heading?: [string, string][];
  columns: FileColumn[];
  /** How many of the leading columns print (the rest stay on screen); all when absent. */
  printColumns?: number;
  paper: PaperSize;
  /** Values as text (money: exact decimal text); the currency of a row is in its `currency` field. */
  rows: Record<string, string | null>[];
  totals: FileTotals;
  /** Where the workbook puts the totals: in the heading (a claim: what is asked, first) or after the rows. */
  totalsAt: 'heading' | 'end';
  /** CSV only: whether the totals follow the rows (a claim list), or stay out of a file a ledger imports. */
  csvTotals: boolean;
}

export async function writeActionFile(file: string, format: 'xlsx' | 'csv', content: ActionFile): Promise<void> {
  // Issue 34: through a temporary created exclusively, never through a link planted at its name.
  await writeThroughTemporary(file, privateAccess, async (temporary, fd) => {
    if (format === 'csv') writeFileSync(fd, csvText(content));
    else await writeXlsx(temporary, content);
  });
}

function csvText(content: ActionFile): string {
  const line = (columns: FileColumn[], row: Record<string, string | null>) =>
    columns.map((c) => csvField(row[c.key] ?? null, c.kind)).join(',');
  const header = (columns: FileColumn[]) => columns.map((c) => csvField(c.header, 'text')).join(',');
  const lines = [header(content.columns), ...content.rows.map((row) => line(content.columns, row))];
  if (content.csvTotals && content.totals.rows.length > 0) {
    lines.push(
      '',
      header(content.totals.columns),
      ...content.totals.rows.map((row) => line(content.totals.columns, row)),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A CSV field: text is printable and never a formula (a leading = + - @ gets an apostrophe); numbers stay as they are.
 */
function csvField(value: string | null, kind: FileColumn['kind']): string {
  if (value === null) return '';
  const text = kind === 'text' ? neutralizeFormula(printable(value)) : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

async function writeXlsx(file: string, content: ActionFile): Promise<void> {
  const { default: excel } = await import('exceljs');
  const workbook = new excel.Workbook();
  workbook.creator = 'pinrecon';
  const sheet = workbook.addWorksheet(content.sheet);
  sheet.columns = content.columns.map((c) => ({ key: c.key, width: c.width }));
  const put = (columns: FileColumn[], row: Record<string, string | null>) => {
    const added = sheet.addRow(columns.map((c) => cellValue(row[c.key] ?? null, c.kind)));
    columns.forEach((c, i) => {
      const cell = added.getCell(i + 1);
      if (c.kind === 'money') cell.numFmt = moneyFormat(row.currency ?? null);
      if (c.kind === 'date') cell.numFmt = 'yyyy-mm-dd';
      // Every cell at the top of its row: a number beside a wrapped text printed a line or two below it. A date
      // to the left: right-aligned it ran into the text of the next column ("2026-10-012201 Netflix").
      cell.alignment = {
        vertical: 'top',
        ...(c.kind === 'text' ? { wrapText: true } : {}),
        ...(c.kind === 'date' ? { horizontal: 'left' as const } : {}),
        ...(c.align ? { horizontal: c.align } : {}),
      };
    });
    fitHeight(added, columns, row);
    return added;
  };
  const totalsBlock = () => {
    if (content.totals.rows.length === 0) return;
    sheet.addRow([content.totals.title]).font = { bold: true };
    sheet.addRow(content.totals.columns.map((c) => c.header)).font = { bold: true };
    for (const row of content.totals.rows) put(content.totals.columns, row);
  };
  if (content.title) sheet.addRow([content.title]).font = { bold: true, size: 14 };
  // A heading's label across the first two columns, its value from the third: in the first alone "Claim
  // reference" ran into its value.
  for (const [label, value] of content.heading ?? []) {
    const added = sheet.addRow([label, null, printable(value)]);
    added.getCell(1).font = { bold: true };
    sheet.mergeCells(added.number, 1, added.number, 2);
  }
  if (content.totalsAt === 'heading') totalsBlock();
  if (sheet.rowCount > 0) sheet.addRow([]);
  const headerRow = sheet.addRow(content.columns.map((c) => c.header));
  headerRow.font = { bold: true };
  // A printed document shows every header and every text whole: wrapped in its column, never cut.
  headerRow.alignment = { wrapText: true, vertical: 'top' };
  fitHeight(headerRow, content.columns, Object.fromEntries(content.columns.map((c) => [c.key, c.header])), true);
  const headerAt = headerRow.number;
  for (const row of content.rows) put(content.columns, row);
  if (content.totalsAt === 'end') {
    sheet.addRow([]);
    totalsBlock();
  }
  sheet.views = [{ state: 'frozen', ySplit: headerAt }];
  sheet.autoFilter = { from: { row: headerAt, column: 1 }, to: { row: headerAt, column: content.columns.length } };
  const printed = content.columns.slice(0, content.printColumns ?? content.columns.length);
  sheet.pageSetup = {
    paperSize: papers[content.paper].excelCode,
    orientation: 'landscape',
    margins: printMargins,
    fitToPage: false,
    // The printed columns across one page, never below 8 pt (printScale throws rather than print smaller).
    scale: printScale(
      printed.map((c) => c.width),
      content.paper,
      'landscape',
    ),
    printTitlesRow: `${headerAt}:${headerAt}`,
    // exceljs puts `$` before the columns only: the rows are made absolute here (as reports/print-setup.ts does).
    printArea: `A$1:${columnLetters(printed.length)}$${Math.max(sheet.rowCount, headerAt)}`,
  };
  sheet.headerFooter = { oddFooter: `&L${headerFooterText(content.sheet)}&RPage &P of &N` };
  await workbook.xlsx.writeFile(file);
}

/**
 * A row as tall as its longest wrapped text: a spreadsheet program keeps an .xlsx row's height as written, so a
 * wrapped cell would print cut to one line. Lines counted by the printed width of the text (print-layout.ts), 15 pt
 * each (Calibri 11); a character a width unit made a journal's memo three lines tall for two (issue 30: 26 pages).
 */
function fitHeight(added: ExcelJS.Row, columns: FileColumn[], row: Record<string, string | null>, bold = false): void {
  const lines = Math.max(
    1,
    ...columns.filter((c) => c.kind === 'text').map((c) => wrappedLines(String(row[c.key] ?? ''), c.width, bold)),
  );
  if (lines > 1) added.height = 15 * lines;
}

function cellValue(value: string | null, kind: FileColumn['kind']): ExcelJS.CellValue {
  if (value === null) return null;
  if (kind === 'money' || kind === 'integer') return Number(value);
  if (kind === 'date') return new Date(`${value.slice(0, 10)}T00:00:00Z`);
  // Text from the ledger or the provider: printable, and never a formula when the cell is typed over.
  return printable(value);
}
