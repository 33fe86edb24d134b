/**
 * Reads the decisions a controller typed into a pinrecon workbook saved by Excel or LibreOffice, through the
 * generic sheet reader (core/xlsx-sheet-reader.ts: saxes over streamed parts, bounded; issue 31 replaced a
 * hand-written one that split multi-byte text). Sheets are found by their header row (a `Finding ID` and a
 * `Decision` column); dates may be date cells, Excel serials or `YYYY-MM-DD` text. It only reads and says what it
 * could not (a row's `problem`); whether a decision is valid is the importer's job.
 */
import {
  defaultSheetReadLimits,
  readSheetsByHeader,
  type SheetCell,
  type SheetLayout,
  type SheetReadLimits,
  type WorkbookFacts,
} from '../core/xlsx-sheet-reader.js';
import { matchLayout, typedMatchDecision, type TypedMatchDecision } from './match-sheet-reader.js';
import { workbookReadError } from './workbook-read-error.js';

/** The decision columns of a finding sheet (after its data), as the workbook writes them. */
export const decisionHeaders = {
  findingId: 'Finding ID',
  decision: 'Decision',
  note: 'Note',
  owner: 'Owner',
  expectedClearBy: 'Expected clear by',
  decisionRef: 'Decision ref',
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
  /**
   * The decision the workbook was written with (its recon_decisions row_sha256; null: undecided then);
   * undefined when the sheet has no `Decision ref` column (a workbook from before it, or the column deleted).
   */
  decisionRef?: string | null;
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
  /** The Suggested matches sheet's typed rows (issue 29), read in the same pass. */
  matches: TypedMatchDecision[];
}

/** A finding sheet: the decision columns, found by a header naming at least `Finding ID` and `Decision`. */
export const decisionLayout: SheetLayout<DecisionField> = {
  headers: decisionHeaders,
  required: ['findingId', 'decision'],
};

export async function readDecisionsWorkbook(
  file: string,
  limits: SheetReadLimits = defaultSheetReadLimits,
): Promise<DecisionsWorkbook> {
  const result: DecisionsWorkbook = { period: null, sheets: [], rows: [], matches: [] };
  const facts: Partial<WorkbookFacts> = {};
  const layouts = { decisions: decisionLayout, matches: matchLayout };
  try {
    // One pass over the workbook for the finding sheets and the Suggested matches sheet.
    for await (const event of readSheetsByHeader(file, layouts, limits, facts)) {
      if (event.kind === 'preamble') result.period ??= periodLine(event.cells);
      else if (event.layout === 'matches') {
        const match = event.kind === 'row' ? typedMatchDecision(event.sheet, event.row, event.values) : null;
        if (match) result.matches.push(match);
      } else if (event.kind === 'header') result.sheets.push({ name: event.sheet, headerRow: event.row });
      else {
        const typed = typedDecision(event.sheet, event.row, event.values, facts.date1904 ?? false);
        if (typed) result.rows.push(typed);
      }
    }
  } catch (error) {
    throw workbookReadError(file, error);
  }
  return result;
}

/** `Period | 2025-03` on the Summary. */
function periodLine(values: SheetCell[]): string | null {
  const [label, value] = values;
  if (typeof label !== 'string' || label.trim() !== 'Period' || typeof value !== 'string') return null;
  return /^\d{4}-(0[1-9]|1[0-2])$/.test(value.trim()) ? value.trim() : null;
}

function typedDecision(
  sheet: string,
  row: number,
  values: Partial<Record<DecisionField, SheetCell>>,
  date1904: boolean,
): TypedDecision | undefined {
  const at = (field: DecisionField) => values[field] ?? null;
  const findingId = text(at('findingId'));
  const decision = text(at('decision'));
  const note = text(at('note'));
  const owner = text(at('owner'));
  // A date cell holds its serial number; in the 1904 date system (old Mac workbooks) day 0 is 1904-01-01.
  const typedDate = at('expectedClearBy');
  const date = typeof typedDate === 'number' && date1904 ? typedDate + 1462 : typedDate;
  if (
    findingId === null &&
    decision === null &&
    note === null &&
    owner === null &&
    (date === null || date === undefined || text(date) === null)
  )
    return undefined;
  const typed: TypedDecision = { sheet, row, findingId, decision, note, owner, expectedClearBy: null };
  if ('decisionRef' in values) typed.decisionRef = text(at('decisionRef'));
  const parsed = parseDate(date);
  if (typeof parsed === 'object' && parsed !== null) typed.problem = parsed.problem;
  else typed.expectedClearBy = parsed;
  return typed;
}

/** YYYY-MM-DD from a date cell, an Excel serial or text; `problem` when the cell holds something else. */
export function parseDate(value: unknown): string | null | { problem: string } {
  if (value === null || value === undefined) return null;
  // exceljs gives a date cell as a Date of the cell's wall-clock time in UTC.
  if (value instanceof Date)
    return Number.isNaN(value.getTime())
      ? { problem: 'Expected clear by is not a valid date' }
      : value.toISOString().slice(0, 10);
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 1 || value > 2_958_465)
      return { problem: `Expected clear by ${value} is not a date` };
    return new Date(Date.UTC(1899, 11, 30) + Math.floor(value) * 86_400_000).toISOString().slice(0, 10);
  }
  // A date cell of type "d" holds ISO text, perhaps with a time of day.
  const typed = String(value)
    .trim()
    .replace(/^(\d{4}-\d{2}-\d{2})T[\d:.]*Z?$/, '$1');
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
