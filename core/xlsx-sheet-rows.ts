/**
 * The rows of an XLSX workbook's sheets, streamed (issue 31): each part read by name (core/zip-entries.ts), its
 * UTF-8 decoded across chunk boundaries (node:string_decoder) and its XML parsed by saxes. A hand-written reader,
 * and exceljs's streaming one too, decode each inflated chunk apart, which splits multi-byte characters (`ação` →
 * `a��ão`). Cells keep their types: text (inline, shared or a formula's), numbers, booleans, error codes, and on
 * request dates (a number in a date format, or an ISO date cell). One chunk of a sheet is in memory at a time; the
 * shared strings are held whole, under a cap. The size guard (core/xlsx-limits.ts) is the caller's to run first.
 */
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { openZipEntry, type ZipEntry, zipEntries } from './zip-entries.js';

/** A cell as read: text, a number (a date cell is its serial number), a boolean, or empty. */
export type SheetCell = string | number | boolean | null;
/** A cell read with `dates`: a date cell is a Date of its wall-clock time in UTC (as exceljs gave it). */
export type TypedCell = SheetCell | Date;

/** A row as parsed: its number as the spreadsheet shows it, and its cells by column (0-based, sparse). */
export interface SheetRow<C = SheetCell> {
  number: number;
  cells: C[];
}

/** The workbook passes a cap of this reader (the caller says what to do). */
export class SheetReadLimitExceeded extends Error {
  override name = 'SheetReadLimitExceeded';
}

export interface WorkbookOptions {
  maxSharedStrings: number;
  /** Read the styles: numbers in a date format, and `t="d"` cells, come back as Dates. */
  dates?: boolean;
}

export interface Workbook<C> {
  /** Sheet names, in tab order. */
  sheets: string[];
  /** Old Mac workbooks count days from 1904-01-01: a serial number then needs 1,462 days added. */
  date1904: boolean;
  /**
   * The sheet's rows, streamed: after each chunk, the rows it completed; `onBytes` gets the part's inflated bytes
   * so far and its declared size. Undefined when the sheet has no worksheet part (a chart sheet).
   */
  rows(sheet: string, onBytes?: (done: number, total: number) => void): AsyncGenerator<SheetRow<C>[]> | undefined;
}

/** Reads the workbook's index, relationships, shared strings (and styles): any Error is a damaged archive. */
export async function openWorkbook(
  file: string,
  options: WorkbookOptions & { dates: true },
): Promise<Workbook<TypedCell>>;
export async function openWorkbook(file: string, options: WorkbookOptions): Promise<Workbook<SheetCell>>;
export async function openWorkbook(file: string, options: WorkbookOptions): Promise<Workbook<TypedCell>> {
  const parts = zipEntries(file);
  const workbookPart = parts.get('xl/workbook.xml');
  if (!workbookPart)
    throw new Error('the archive holds no xl/workbook.xml (it is a ZIP file, but not an Excel workbook)');
  const index = await readWorkbookIndex(file, workbookPart);
  const relations = parts.get('xl/_rels/workbook.xml.rels');
  const targets = relations ? await readRelationships(file, relations) : new Map<string, string>();
  const stringsPart = parts.get('xl/sharedStrings.xml');
  const strings = stringsPart ? await readSharedStrings(file, stringsPart, options.maxSharedStrings) : [];
  const stylesPart = parts.get('xl/styles.xml');
  const dates = options.dates
    ? { styles: stylesPart ? await readDateStyles(file, stylesPart) : new Set<number>() }
    : undefined;
  const context: CellContext = { strings, dates, date1904: index.date1904 };
  return {
    sheets: index.sheets.map(({ name }) => name),
    date1904: index.date1904,
    rows(sheet, onBytes) {
      const rId = index.sheets.find(({ name }) => name === sheet)?.rId;
      const target = rId === undefined ? undefined : targets.get(rId);
      const entry = target ? parts.get(target) : undefined;
      return entry ? sheetRows(file, entry, context, onBytes) : undefined;
    },
  };
}

/** Feeds a part's XML to `parser` chunk by chunk, its UTF-8 decoded across chunk boundaries; yields after each. */
async function* parsePart(
  file: string,
  entry: ZipEntry,
  parser: SaxesParser,
  onBytes?: (done: number, total: number) => void,
): AsyncGenerator<void> {
  const decoder = new StringDecoder('utf8');
  const stream = openZipEntry(file, entry);
  let failure: Error | undefined;
  let bytes = 0;
  parser.on('error', (error) => {
    failure ??= error;
  });
  try {
    for await (const chunk of stream) {
      parser.write(decoder.write(chunk as Buffer));
      if (failure) throw failure;
      bytes += (chunk as Buffer).length;
      onBytes?.(bytes, Math.max(bytes, entry.uncompressedSize));
      yield;
    }
    parser.write(decoder.end());
    parser.close();
    if (failure) throw failure;
  } finally {
    stream.destroy();
  }
}

const localName = (tag: { name: string }) => tag.name.slice(tag.name.indexOf(':') + 1);
const attribute = (tag: SaxesTagPlain, name: string): string | undefined => tag.attributes[name];

/** What xl/workbook.xml says: the sheets in tab order (name and relationship id) and the date system. */
export interface WorkbookIndex {
  sheets: { name: string; rId: string }[];
  date1904: boolean;
}

/**
 * A parser of xl/workbook.xml and the index it fills as the XML is written to it (in chunks, or whole: the ledger's
 * import reads the part synchronously to choose its sheet, sources/ledger/xlsx-workbook.ts).
 */
export function workbookIndexParser(): { parser: SaxesParser; index: WorkbookIndex } {
  const index: WorkbookIndex = { sheets: [], date1904: false };
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const name = localName(tag);
    if (name === 'sheet') index.sheets.push({ name: attribute(tag, 'name') ?? '', rId: attribute(tag, 'r:id') ?? '' });
    if (name === 'workbookPr') index.date1904 = ['1', 'true'].includes(attribute(tag, 'date1904') ?? '');
  });
  return { parser, index };
}

async function readWorkbookIndex(file: string, entry: ZipEntry): Promise<WorkbookIndex> {
  const { parser, index } = workbookIndexParser();
  for await (const _ of parsePart(file, entry, parser));
  return index;
}

/** Relationship id → part name inside the archive (targets are relative to xl/, or absolute). */
async function readRelationships(file: string, entry: ZipEntry): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const id = attribute(tag, 'Id');
    const target = attribute(tag, 'Target');
    if (localName(tag) !== 'Relationship' || !id || !target) return;
    targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`);
  });
  for await (const _ of parsePart(file, entry, parser));
  return targets;
}

/** The shared strings, each the text of its runs (phonetic runs left out); at most `max` of them. */
async function readSharedStrings(file: string, entry: ZipEntry, max: number): Promise<string[]> {
  const strings: string[] = [];
  let text: string[] | undefined;
  let inText = false;
  let phonetic = 0;
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const name = localName(tag);
    if (name === 'si') text = [];
    else if (name === 'rPh') phonetic++;
    else if (name === 't' && phonetic === 0) inText = !tag.isSelfClosing;
  });
  parser.on('text', (chunk) => {
    if (inText) text?.push(chunk);
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag);
    if (name === 't') inText = false;
    else if (name === 'rPh') phonetic--;
    else if (name === 'si') {
      if (strings.length >= max) {
        throw new SheetReadLimitExceeded(`its shared strings number more than ${max.toLocaleString('en-US')}`);
      }
      strings.push((text ?? []).join(''));
      text = undefined;
    }
  });
  for await (const _ of parsePart(file, entry, parser));
  return strings;
}

/** Built-in number formats that show a date or a time (ECMA-376 18.8.30, with the East Asian ones). */
const builtInDateFormats = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36]);
for (const id of [45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]) builtInDateFormats.add(id);

/** A format code shows a date when, outside quoted text and [brackets], it has a date or time letter. */
const isDateFormat = (code: string) => /[ymdhMsb]/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));

/** The cell styles (indexes into cellXfs, a cell's `s`) whose number format shows a date, from xl/styles.xml. */
async function readDateStyles(file: string, entry: ZipEntry): Promise<Set<number>> {
  const dateFormats = new Set(builtInDateFormats);
  const styles = new Set<number>();
  let inCellXfs = false;
  let xf = 0;
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const name = localName(tag);
    if (name === 'numFmt') {
      const id = Number(attribute(tag, 'numFmtId'));
      if (isDateFormat(attribute(tag, 'formatCode') ?? '')) dateFormats.add(id);
      else dateFormats.delete(id);
    } else if (name === 'cellXfs') inCellXfs = true;
    else if (name === 'xf' && inCellXfs) {
      if (dateFormats.has(Number(attribute(tag, 'numFmtId') ?? 0))) styles.add(xf);
      xf++;
    }
  });
  parser.on('closetag', (tag) => {
    if (localName(tag) === 'cellXfs') inCellXfs = false;
  });
  for await (const _ of parsePart(file, entry, parser));
  return styles;
}

/** What a cell's value depends on beyond its own XML. */
interface CellContext {
  strings: string[];
  dates: { styles: Set<number> } | undefined;
  date1904: boolean;
}

interface CellRead {
  type: string;
  style: number;
  formula: boolean;
  value: string[];
  inline: string[];
}

/** The rows of a worksheet part, streamed: after each chunk, the rows it completed. */
async function* sheetRows(
  file: string,
  entry: ZipEntry,
  context: CellContext,
  onBytes?: (done: number, total: number) => void,
): AsyncGenerator<SheetRow<TypedCell>[]> {
  let done: SheetRow<TypedCell>[] = [];
  let row: SheetRow<TypedCell> | undefined;
  let previousRow = 0;
  let column = 0;
  let cell: CellRead | undefined;
  let reading: 'v' | 't' | undefined;
  let phonetic = 0;
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const name = localName(tag);
    if (name === 'row') {
      const number = Number(attribute(tag, 'r') ?? previousRow + 1);
      previousRow = number;
      row = { number, cells: [] };
      column = 0;
    } else if (name === 'c' && row) {
      const reference = attribute(tag, 'r');
      if (reference) column = columnIndex(reference);
      const style = Number(attribute(tag, 's') ?? 0);
      cell = { type: attribute(tag, 't') ?? 'n', style, formula: false, value: [], inline: [] };
    } else if (name === 'rPh') phonetic++;
    else if (name === 'f' && cell) cell.formula = true;
    else if (cell && (name === 'v' || (name === 't' && phonetic === 0))) reading = tag.isSelfClosing ? undefined : name;
  });
  parser.on('text', (text) => {
    if (reading === 'v') cell?.value.push(text);
    else if (reading === 't') cell?.inline.push(text);
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag);
    if (name === 'v' || name === 't') reading = undefined;
    else if (name === 'rPh') phonetic--;
    else if (name === 'c' && row && cell) {
      row.cells[column] = cellValue(cell, context);
      column++;
      cell = undefined;
    } else if (name === 'row' && row) {
      done.push(row);
      row = undefined;
    }
  });
  for await (const _ of parsePart(file, entry, parser, onBytes)) {
    if (done.length === 0) continue;
    yield done;
    done = [];
  }
  if (done.length > 0) yield done;
}

function cellValue(cell: CellRead, context: CellContext): TypedCell {
  const raw = cell.value.join('');
  if (cell.type === 'inlineStr') return cell.inline.join('');
  if (raw === '') return null;
  if (cell.type === 's') return context.strings[Number(raw)] ?? null;
  if (cell.type === 'd' && context.dates) return isoDate(raw);
  if (cell.type === 'str' || cell.type === 'e' || cell.type === 'd') return raw;
  if (cell.type === 'b') return raw === '1';
  const number = Number(raw);
  if (!Number.isFinite(number)) return raw;
  // A formula's result stays a number (=A2+1 in a date column), as exceljs gave it.
  if (context.dates?.styles.has(cell.style) && !cell.formula) {
    return new Date(Math.round((number - 25569 + (context.date1904 ? 1462 : 0)) * 86_400_000));
  }
  return number;
}

/** A `t="d"` cell's ISO 8601 text: without an offset it is wall-clock time, kept as UTC like a serial's. */
function isoDate(text: string): TypedCell {
  const withTime = text.includes('T') ? text : `${text}T00:00:00`;
  const date = new Date(/(?:Z|[+-]\d\d:?\d\d)$/.test(withTime) ? withTime : `${withTime}Z`);
  return Number.isNaN(date.getTime()) ? text : date;
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
