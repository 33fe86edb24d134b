/**
 * Reads the decisions a controller typed into a pinrecon workbook, saved by Excel or by LibreOffice. The
 * workbook is streamed (exceljs WorkbookReader: memory holds the shared strings and one row at a time).
 * Sheets are found by their header row, not their name or place: any sheet with a `Finding ID` and a
 * `Decision` column among its first rows holds decisions, so the user may rename, reorder or delete sheets,
 * sort and filter rows and add columns. Cells are read as typed: a date may be a real date cell, an Excel
 * serial number or text `YYYY-MM-DD`. The workbook's period comes from the Summary's `Period` line.
 *
 * This module only reads and says what it could not read (a row's `problem`); whether a decision is valid
 * for the database (known finding, right period, one of the decisions) is the importer's job.
 */
import { createReadStream } from 'node:fs';
import ExcelJS from 'exceljs';
import { JobError } from '../core/errors.js';

/** The decision columns of a finding sheet (after its data), as the workbook writes them. */
export const decisionHeaders = {
  findingId: 'Finding ID',
  decision: 'Decision',
  note: 'Note',
  owner: 'Owner',
  expectedClearBy: 'Expected clear by',
} as const;

type DecisionField = keyof typeof decisionHeaders;

/** One row of a finding sheet that carries a finding id or anything typed into the decision columns. */
export interface TypedDecision {
  sheet: string;
  /** The row number as the spreadsheet shows it. */
  row: number;
  findingId: string | null;
  decision: string | null;
  note: string | null;
  owner: string | null;
  /** YYYY-MM-DD. */
  expectedClearBy: string | null;
  /** Why the row cannot be read as a decision (e.g. a date that is not one). */
  problem?: string;
}

export interface DecisionSheet {
  name: string;
  headerRow: number;
}

export interface DecisionsWorkbook {
  /** YYYY-MM from the Summary's `Period` line, if the workbook still has it. */
  period: string | null;
  sheets: DecisionSheet[];
  rows: TypedDecision[];
}

/** Rows searched for the header, from the top of each sheet. */
const headerSearchRows = 20;

export async function readDecisionsWorkbook(file: string): Promise<DecisionsWorkbook> {
  const result: DecisionsWorkbook = { period: null, sheets: [], rows: [] };
  const input = createReadStream(file, { highWaterMark: 1024 * 1024 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  try {
    for await (const worksheet of workbook) {
      const name = (worksheet as unknown as { name: string }).name;
      let columns: Partial<Record<DecisionField, number>> | undefined;
      for await (const row of worksheet) {
        const values = cellValues(row);
        if (!columns) {
          if (row.number > headerSearchRows) continue; // drain the rest of a sheet without decisions
          result.period ??= periodLine(values);
          columns = headerColumns(values);
          if (columns) result.sheets.push({ name, headerRow: row.number });
          continue;
        }
        const typed = typedDecision(name, row.number, values, columns);
        if (typed) result.rows.push(typed);
      }
    }
  } catch (error) {
    throw new JobError(
      `${file} could not be read as an XLSX workbook (${(error as Error).message}).`,
      'Save the workbook from Excel or LibreOffice as an Excel Workbook (.xlsx) and import that file.',
      { cause: error },
    );
  } finally {
    input.destroy();
  }
  return result;
}

/** The column (0-based) of each decision header when the row names at least `Finding ID` and `Decision`. */
function headerColumns(values: unknown[]): Partial<Record<DecisionField, number>> | undefined {
  const names = values.map((v) => (typeof v === 'string' ? v.trim().toLowerCase() : ''));
  const columns: Partial<Record<DecisionField, number>> = {};
  for (const [field, header] of Object.entries(decisionHeaders) as [DecisionField, string][]) {
    const at = names.indexOf(header.toLowerCase());
    if (at >= 0) columns[field] = at;
  }
  return columns.findingId !== undefined && columns.decision !== undefined ? columns : undefined;
}

/** `Period | 2025-03` on the Summary. */
function periodLine(values: unknown[]): string | null {
  const [label, value] = values;
  if (typeof label !== 'string' || label.trim() !== 'Period' || typeof value !== 'string') return null;
  return /^\d{4}-(0[1-9]|1[0-2])$/.test(value.trim()) ? value.trim() : null;
}

function typedDecision(sheet: string, row: number, values: unknown[], columns: Partial<Record<DecisionField, number>>): TypedDecision | undefined {
  const at = (field: DecisionField) => (columns[field] === undefined ? null : values[columns[field]!]);
  const findingId = text(at('findingId'));
  const decision = text(at('decision'));
  const note = text(at('note'));
  const owner = text(at('owner'));
  const date = at('expectedClearBy');
  if (findingId === null && decision === null && note === null && owner === null && (date === null || date === undefined || text(date) === null)) return undefined;
  const typed: TypedDecision = { sheet, row, findingId, decision, note, owner, expectedClearBy: null };
  const parsed = parseDate(date);
  if (typeof parsed === 'object' && parsed !== null) typed.problem = parsed.problem;
  else typed.expectedClearBy = parsed;
  return typed;
}

/** YYYY-MM-DD from a date cell, an Excel serial or text; `problem` when the cell holds something else. */
export function parseDate(value: unknown): string | null | { problem: string } {
  if (value === null || value === undefined) return null;
  // exceljs gives a date cell as a Date of the cell's wall-clock time in UTC.
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? { problem: 'Expected clear by is not a valid date' } : value.toISOString().slice(0, 10);
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 1 || value > 2_958_465) return { problem: `Expected clear by ${value} is not a date` };
    return new Date(Date.UTC(1899, 11, 30) + Math.floor(value) * 86_400_000).toISOString().slice(0, 10);
  }
  const typed = String(value).trim();
  if (typed === '') return null;
  if (/^\d+(\.\d+)?$/.test(typed)) return parseDate(Number(typed));
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(typed);
  const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || new Date(time).toISOString().slice(0, 10) !== typed) {
    return { problem: `Expected clear by "${typed}" is not a date (type a date, or text YYYY-MM-DD)` };
  }
  return typed;
}

/** Trimmed text of a cell; null when empty. */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const typed = (value instanceof Date ? value.toISOString().slice(0, 10) : String(value)).trim();
  return typed === '' ? null : typed;
}

/** exceljs row values are 1-based and sparse; cells may be rich text, formulas, hyperlinks or errors. */
function cellValues(row: ExcelJS.Row): unknown[] {
  const values = row.values as unknown[];
  const out: unknown[] = [];
  for (let i = 1; i < values.length; i++) out.push(cellValue(values[i]));
  return out;
}

function cellValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || value instanceof Date) return value;
  const cell = value as { richText?: { text: string }[]; result?: unknown; formula?: string; sharedFormula?: string; text?: unknown; error?: string };
  if (cell.richText) return cell.richText.map((part) => part.text).join('');
  if ('formula' in cell || 'sharedFormula' in cell) return cellValue(cell.result);
  if (cell.error !== undefined) return String(cell.error);
  if (cell.text !== undefined) return cellValue(cell.text);
  return String(value);
}
