/**
 * Reads the decisions a controller typed into a pinrecon workbook saved by Excel or LibreOffice: parts read
 * by name through the ZIP's directory (core/zip-entries.ts), each sheet streamed. Sheets are found by their header
 * row (a `Finding ID` and a `Decision` column), so sheets may be renamed, reordered or deleted; dates may be date
 * cells, Excel serials or `YYYY-MM-DD` text. It only reads and says what it could not (a row's `problem`);
 * whether a decision is valid is the importer's job.
 */
import { JobError } from '../core/errors.js';
import { checkXlsxLimits, XlsxLimitExceeded } from '../core/xlsx-limits.js';
import { openZipEntry, readZipText, zipEntries, type ZipEntry } from '../core/zip-entries.js';

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
}

/** Rows searched for the header, from the top of each sheet. */
const headerSearchRows = 20;

export async function readDecisionsWorkbook(file: string): Promise<DecisionsWorkbook> {
  const result: DecisionsWorkbook = { period: null, sheets: [], rows: [] };
  // The guard `ledger import` uses, before any part is read: a zip bomb took minutes of CPU here (issue 18).
  await refuseHostileWorkbook(file);
  try {
    const parts = zipEntries(file);
    const workbookXml = parts.get('xl/workbook.xml');
    if (!workbookXml)
      throw new Error('the archive holds no xl/workbook.xml (it is a ZIP file, but not an Excel workbook)');
    const index = parseWorkbookXml(await readZipText(file, workbookXml));
    const relsEntry = parts.get('xl/_rels/workbook.xml.rels');
    const targets = relsEntry ? parseRelationships(await readZipText(file, relsEntry)) : new Map<string, string>();
    const stringsEntry = parts.get('xl/sharedStrings.xml');
    const strings = stringsEntry ? parseSharedStrings(await readZipText(file, stringsEntry)) : [];
    for (const sheet of index.sheets) {
      const target = targets.get(sheet.rId);
      const entry = target ? parts.get(target) : undefined;
      if (!entry) continue; // a chart sheet, or a part the archive does not hold: nothing to read
      let columns: Partial<Record<DecisionField, number>> | undefined;
      // Until the header is found every cell is read; after it, only the decision columns.
      const wanted = new Set<number>();
      for await (const { number, values } of sheetRows(file, entry, strings, wanted)) {
        if (!columns) {
          if (number > headerSearchRows) break; // a sheet without decisions
          result.period ??= periodLine(values);
          columns = headerColumns(values);
          if (columns) {
            result.sheets.push({ name: sheet.name, headerRow: number });
            for (const column of Object.values(columns)) wanted.add(column);
          }
          continue;
        }
        const typed = typedDecision(sheet.name, number, values, columns, index.date1904);
        if (typed) result.rows.push(typed);
      }
    }
  } catch (error) {
    throw new JobError(
      `${file} could not be read as an XLSX workbook (${(error as Error).message}).`,
      'Save the workbook from Excel or LibreOffice as an Excel Workbook (.xlsx) and import that file.',
      { cause: error },
    );
  }
  return result;
}

/** Throws a JobError naming the limit a hostile workbook passes; a damaged archive is left to the reader's own message. */
async function refuseHostileWorkbook(file: string): Promise<void> {
  try {
    await checkXlsxLimits(file);
  } catch (error) {
    if (!(error instanceof XlsxLimitExceeded)) return;
    throw new JobError(
      `${file} is refused: ${error.message}.`,
      'Import the workbook `pinrecon report` wrote, as Excel or LibreOffice saved it; if this file is not one, ask who sent it.',
      { cause: error },
    );
  }
}

/** The sheets in tab order (name and relationship id) and the date system, from xl/workbook.xml. */
function parseWorkbookXml(xml: string): { sheets: { name: string; rId: string }[]; date1904: boolean } {
  const sheets = [...xml.matchAll(/<(?:\w+:)?sheet\b([^>]*)>/g)].map((match) => ({
    name: decodeXml(attribute(match[1]!, 'name') ?? ''),
    rId: attribute(match[1]!, 'r:id') ?? '',
  }));
  const date1904 = /<(?:\w+:)?workbookPr\b[^>]*\bdate1904\s*=\s*["'](?:1|true)["']/.test(xml);
  return { sheets, date1904 };
}

/** Relationship id → part name inside the archive (targets are relative to xl/, or absolute). */
function parseRelationships(xml: string): Map<string, string> {
  const targets = new Map<string, string>();
  for (const match of xml.matchAll(/<(?:\w+:)?Relationship\b([^>]*)>/g)) {
    const id = attribute(match[1]!, 'Id');
    const target = attribute(match[1]!, 'Target');
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`);
  }
  return targets;
}

/** The shared strings, each the text of its runs (phonetic runs left out). */
function parseSharedStrings(xml: string): string[] {
  return [...xml.matchAll(/<(?:\w+:)?si\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?si>)/g)].map((match) =>
    runsText(match[1] ?? ''),
  );
}

function runsText(xml: string): string {
  const withoutPhonetic = xml.replace(/<(?:\w+:)?rPh\b[\s\S]*?<\/(?:\w+:)?rPh>/g, '');
  return [...withoutPhonetic.matchAll(/<(?:\w+:)?t\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?t>)/g)]
    .map((m) => decodeXml(m[1] ?? ''))
    .join('');
}

/** The rows of a worksheet part, streamed: each row's number and its cells by column (0-based, sparse). */
async function* sheetRows(
  file: string,
  entry: ZipEntry,
  strings: string[],
  wanted: Set<number>,
): AsyncGenerator<{ number: number; values: unknown[] }> {
  let pending = '';
  let previous = 0;
  const parse = function* (xml: string) {
    for (const match of xml.matchAll(/<(?:\w+:)?row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?row>)/g)) {
      const number = Number(attribute(match[1]!, 'r') ?? previous + 1);
      previous = number;
      yield { number, values: rowCells(match[2] ?? '', strings, wanted) };
    }
  };
  const stream = openZipEntry(file, entry);
  try {
    for await (const chunk of stream) {
      pending += (chunk as Buffer).toString('utf8');
      const end = pending.lastIndexOf('</row>');
      if (end < 0) continue;
      yield* parse(pending.slice(0, end + 6));
      pending = pending.slice(end + 6);
    }
    yield* parse(pending);
  } finally {
    stream.destroy();
  }
}

/** A row's cells as values: text, numbers (a date cell is its serial number), booleans; only `wanted` columns unless it is empty. */
function rowCells(xml: string, strings: string[], wanted: Set<number>): unknown[] {
  const values: unknown[] = [];
  let column = 0;
  for (const match of xml.matchAll(/<(?:\w+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g)) {
    const reference = attribute(match[1]!, 'r');
    if (reference) column = columnIndex(reference);
    if (wanted.size > 0 && !wanted.has(column)) {
      column++;
      continue;
    }
    const type = attribute(match[1]!, 't') ?? 'n';
    const inner = match[2] ?? '';
    const raw = /<(?:\w+:)?v\b[^>]*>([\s\S]*?)<\/(?:\w+:)?v>/.exec(inner)?.[1];
    let value: unknown = null;
    if (type === 'inlineStr') value = runsText(inner);
    else if (raw === undefined) value = null;
    else if (type === 's') value = strings[Number(raw)] ?? null;
    else if (type === 'str' || type === 'e' || type === 'd') value = decodeXml(raw);
    else if (type === 'b') value = raw === '1';
    else value = Number(raw);
    values[column] = value;
    column++;
  }
  return Array.from(values, (value) => value ?? null);
}

/** "AB12" → 27 (0-based). */
function columnIndex(reference: string): number {
  let index = 0;
  for (const char of reference) {
    const code = char.charCodeAt(0);
    if (code < 65 || code > 90) break;
    index = index * 26 + (code - 64);
  }
  return index - 1;
}

/** One compiled pattern per attribute name: a sheet of 100,000 rows asks for millions of attributes. */
const attributePatterns = new Map<string, RegExp>();

function attribute(attributes: string, name: string): string | undefined {
  let pattern = attributePatterns.get(name);
  if (!pattern) attributePatterns.set(name, (pattern = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`)));
  const match = pattern.exec(attributes);
  return match ? (match[1] ?? match[2]) : undefined;
}

function decodeXml(text: string): string {
  return text.replace(
    /&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g,
    (_, hex: string, decimal: string, named: string) => {
      if (hex) return String.fromCodePoint(parseInt(hex, 16));
      if (decimal) return String.fromCodePoint(parseInt(decimal, 10));
      return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[named]!;
    },
  );
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

function typedDecision(
  sheet: string,
  row: number,
  values: unknown[],
  columns: Partial<Record<DecisionField, number>>,
  date1904: boolean,
): TypedDecision | undefined {
  const at = (field: DecisionField) => (columns[field] === undefined ? null : values[columns[field]!]);
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
  if (columns.decisionRef !== undefined) typed.decisionRef = text(at('decisionRef'));
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
