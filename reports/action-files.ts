/**
 * The files `actions export` writes: the claim list for the provider and the journal entries for the ledger,
 * as an Excel workbook (money as numbers in the currency's format, a total per currency) or as CSV (exact
 * decimal text; every text cell made safe to open in a spreadsheet: no cell runs as a formula). Each file is
 * written under a temporary name and renamed, so a reader never sees half a file.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type ExcelJS from 'exceljs';
import { neutralizeFormula, printable } from '../core/text-safety.js';
import { moneyFormat } from './formats.js';

/** A column of an export: its header, the row field it shows, and how. */
export interface FileColumn {
  header: string;
  key: string;
  kind: 'text' | 'integer' | 'money' | 'date';
  width: number;
}

/** A block of totals written after the rows (one line per currency). */
export interface FileTotals {
  title: string;
  columns: FileColumn[];
  rows: Record<string, string | null>[];
}

export interface ActionFile {
  sheet: string;
  columns: FileColumn[];
  /** Values as text (money: exact decimal text); the currency of a row is in its `currency` field. */
  rows: Record<string, string | null>[];
  totals: FileTotals;
  /** CSV only: whether the totals follow the rows (a claim list), or stay out of a file a ledger imports. */
  csvTotals: boolean;
}

export async function writeActionFile(file: string, format: 'xlsx' | 'csv', content: ActionFile): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    if (format === 'csv') writeFileSync(temporary, csvText(content));
    else await writeXlsx(temporary, content);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
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

/** A CSV field: text is printable and never a formula (a leading = + - @ gets an apostrophe); numbers stay as they are. */
function csvField(value: string | null, kind: FileColumn['kind']): string {
  if (value === null) return '';
  const text = kind === 'text' ? neutralizeFormula(printable(value)) : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

async function writeXlsx(file: string, content: ActionFile): Promise<void> {
  const { default: excel } = await import('exceljs');
  const workbook = new excel.Workbook();
  workbook.creator = 'pinrecon';
  const sheet = workbook.addWorksheet(content.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = content.columns.map((c) => ({ header: c.header, key: c.key, width: c.width }));
  sheet.getRow(1).font = { bold: true };
  const put = (columns: FileColumn[], row: Record<string, string | null>) => {
    const added = sheet.addRow(columns.map((c) => cellValue(row[c.key] ?? null, c.kind)));
    columns.forEach((c, i) => {
      const cell = added.getCell(i + 1);
      if (c.kind === 'money') cell.numFmt = moneyFormat(row.currency ?? null);
      if (c.kind === 'date') cell.numFmt = 'yyyy-mm-dd';
    });
    return added;
  };
  for (const row of content.rows) put(content.columns, row);
  if (content.totals.rows.length > 0) {
    sheet.addRow([]);
    sheet.addRow([content.totals.title]).font = { bold: true };
    sheet.addRow(content.totals.columns.map((c) => c.header)).font = { bold: true };
    for (const row of content.totals.rows) put(content.totals.columns, row);
  }
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: content.columns.length } };
  await workbook.xlsx.writeFile(file);
}

function cellValue(value: string | null, kind: FileColumn['kind']): ExcelJS.CellValue {
  if (value === null) return null;
  if (kind === 'money' || kind === 'integer') return Number(value);
  if (kind === 'date') return new Date(`${value.slice(0, 10)}T00:00:00Z`);
  // Text from the ledger or the provider: printable, and never a formula when the cell is typed over.
  return printable(value);
}
