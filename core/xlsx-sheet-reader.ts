/**
 * Reads pinrecon workbooks back, whatever Excel or LibreOffice did to them (issue 31): each part streamed by name
 * (core/zip-entries.ts), its UTF-8 decoded across chunk boundaries (node:string_decoder) and its XML parsed by
 * saxes. A hand-written reader, and exceljs's streaming one too, decode each inflated chunk apart, which splits
 * multi-byte characters (`ação` → `a��ão`). A sheet is recognised by its header row (one of `layouts`, in its
 * first rows), so sheets may be renamed, reordered or deleted; each row after it comes back as the layout's named
 * columns only. Bounded (issue 34): the XLSX guard first, a cap on shared strings and on rows, one chunk in memory.
 */
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { checkXlsxLimits, defaultXlsxLimits, type XlsxLimits } from './xlsx-limits.js';
import { openZipEntry, type ZipEntry, zipEntries } from './zip-entries.js';

/** A cell as read: text, a number (a date cell is its serial number), a boolean, or empty. */
export type SheetCell = string | number | boolean | null;

/** A kind of sheet: field → its header text (matched trimmed, any case), and the fields a header must name. */
export interface SheetLayout<F extends string = string> {
  headers: Record<F, string>;
  required: readonly F[];
}

export interface SheetReadLimits extends XlsxLimits {
  /** Rows read in the whole workbook, every sheet together; past it the workbook is refused. */
  maxRows: number;
  /** Rows searched for a header, from the top of each sheet. */
  headerSearchRows: number;
}

/**
 * A workbook pinrecon writes holds a period's findings: far below these. Shared strings are capped below the
 * ledger's 5 M (issue 34: 4.9 M of them took 1.7 GB). Measured: a 101 MB workbook of 430,000 finding rows with
 * 6 M shared strings is refused in 4 s at 87 MiB of RSS; the same rows stored inline (91 MB) are read in 16 CPU-s
 * at 790 MiB, most of it the rows kept for the importer, so the row cap holds a workbook under ≈ 2 GiB.
 */
export const defaultSheetReadLimits: SheetReadLimits = {
  ...defaultXlsxLimits,
  maxUncompressedBytes: 1024 ** 3,
  maxSharedStrings: 2_000_000,
  maxRows: 1_000_000,
  headerSearchRows: 20,
};

/** The workbook passes a cap of this reader (the caller says what to do). */
export class SheetReadLimitExceeded extends Error {
  override name = 'SheetReadLimitExceeded';
}

export type SheetEvent<L extends string> =
  /** A row above any header, within the rows searched (e.g. the Summary's `Period` line): every cell, 0-based. */
  | { kind: 'preamble'; sheet: string; row: number; cells: SheetCell[] }
  | { kind: 'header'; sheet: string; row: number; layout: L }
  /** A row after the header with a value in the layout's columns: those columns only, by field. */
  | { kind: 'row'; sheet: string; row: number; layout: L; values: Record<string, SheetCell> };

export interface WorkbookFacts {
  /** Old Mac workbooks count days from 1904-01-01: a serial number then needs 1,462 days added. */
  date1904: boolean;
}

/** A row as parsed: its number and its cells by column (0-based, sparse). */
interface ParsedRow {
  number: number;
  cells: SheetCell[];
}

/**
 * Streams the workbook's sheets in tab order. Throws XlsxLimitExceeded (the size guard) or
 * SheetReadLimitExceeded before or while reading; any other error is a damaged archive.
 */
export async function* readSheetsByHeader<L extends string>(
  file: string,
  layouts: Record<L, SheetLayout>,
  limits: SheetReadLimits = defaultSheetReadLimits,
  facts: Partial<WorkbookFacts> = {},
): AsyncGenerator<SheetEvent<L>> {
  await checkXlsxLimits(file, limits);
  const parts = zipEntries(file);
  const workbookPart = parts.get('xl/workbook.xml');
  if (!workbookPart)
    throw new Error('the archive holds no xl/workbook.xml (it is a ZIP file, but not an Excel workbook)');
  const index = await readWorkbookIndex(file, workbookPart);
  facts.date1904 = index.date1904;
  const relations = parts.get('xl/_rels/workbook.xml.rels');
  const targets = relations ? await readRelationships(file, relations) : new Map<string, string>();
  const stringsPart = parts.get('xl/sharedStrings.xml');
  const strings = stringsPart ? await readSharedStrings(file, stringsPart, limits) : [];
  let rowsRead = 0;
  for (const { name: sheet, rId } of index.sheets) {
    const target = targets.get(rId);
    const entry = target ? parts.get(target) : undefined;
    if (!entry) continue; // a chart sheet, or a part the archive does not hold: nothing to read
    let layout: L | undefined;
    let columns: [field: string, column: number][] = [];
    for await (const rows of sheetRows(file, entry, strings)) {
      for (const row of rows) {
        if (++rowsRead > limits.maxRows) {
          throw new SheetReadLimitExceeded(
            `it holds more than ${limits.maxRows.toLocaleString('en-US')} rows, more than any pinrecon workbook`,
          );
        }
        if (layout !== undefined) {
          const values = Object.fromEntries(columns.map(([field, column]) => [field, row.cells[column] ?? null]));
          if (Object.values(values).some((value) => value !== null)) {
            yield { kind: 'row', sheet, row: row.number, layout, values };
          }
          continue;
        }
        // A sheet without a header in its first rows holds nothing to read.
        if (row.number > limits.headerSearchRows) break;
        const cells = Array.from(row.cells, (cell) => cell ?? null);
        const found = headerLayout(cells, layouts);
        if (found) {
          [layout, columns] = found;
          yield { kind: 'header', sheet, row: row.number, layout };
        } else if (cells.some((cell) => cell !== null)) {
          yield { kind: 'preamble', sheet, row: row.number, cells };
        }
      }
      if (layout === undefined && rows.some((row) => row.number > limits.headerSearchRows)) break;
    }
  }
}

/** The layout a row of header cells names every required field of, with each named field's column. */
function headerLayout<L extends string>(
  cells: SheetCell[],
  layouts: Record<L, SheetLayout>,
): [L, [string, number][]] | undefined {
  const names = cells.map((cell) => (typeof cell === 'string' ? cell.trim().toLowerCase() : ''));
  for (const [name, layout] of Object.entries(layouts) as [L, SheetLayout][]) {
    const columns: [string, number][] = [];
    for (const [field, header] of Object.entries(layout.headers) as [string, string][]) {
      const at = names.indexOf(header.toLowerCase());
      if (at >= 0) columns.push([field, at]);
    }
    if (layout.required.every((field) => columns.some(([named]) => named === field))) return [name, columns];
  }
  return undefined;
}

/** Feeds a part's XML to `parser` chunk by chunk, its UTF-8 decoded across chunk boundaries; yields after each. */
async function* parsePart(file: string, entry: ZipEntry, parser: SaxesParser): AsyncGenerator<void> {
  const decoder = new StringDecoder('utf8');
  const stream = openZipEntry(file, entry);
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  try {
    for await (const chunk of stream) {
      parser.write(decoder.write(chunk as Buffer));
      if (failure) throw failure;
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

/** The sheets in tab order (name and relationship id) and the date system, from xl/workbook.xml. */
async function readWorkbookIndex(
  file: string,
  entry: ZipEntry,
): Promise<{ sheets: { name: string; rId: string }[]; date1904: boolean }> {
  const sheets: { name: string; rId: string }[] = [];
  let date1904 = false;
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const name = localName(tag);
    if (name === 'sheet') sheets.push({ name: attribute(tag, 'name') ?? '', rId: attribute(tag, 'r:id') ?? '' });
    if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attribute(tag, 'date1904') ?? '');
  });
  for await (const _ of parsePart(file, entry, parser));
  return { sheets, date1904 };
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

/** The shared strings, each the text of its runs (phonetic runs left out); at most `limits.maxSharedStrings`. */
async function readSharedStrings(file: string, entry: ZipEntry, limits: SheetReadLimits): Promise<string[]> {
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
      if (strings.length >= limits.maxSharedStrings) {
        throw new SheetReadLimitExceeded(
          `its shared strings number more than ${limits.maxSharedStrings.toLocaleString('en-US')}`,
        );
      }
      strings.push((text ?? []).join(''));
      text = undefined;
    }
  });
  for await (const _ of parsePart(file, entry, parser));
  return strings;
}

/** The rows of a worksheet part, streamed: after each chunk, the rows it completed. */
async function* sheetRows(file: string, entry: ZipEntry, strings: string[]): AsyncGenerator<ParsedRow[]> {
  let done: ParsedRow[] = [];
  let row: ParsedRow | undefined;
  let previousRow = 0;
  let column = 0;
  let cell: { type: string; value: string[]; inline: string[] } | undefined;
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
      cell = { type: attribute(tag, 't') ?? 'n', value: [], inline: [] };
    } else if (name === 'rPh') phonetic++;
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
      row.cells[column] = cellValue(cell.type, cell.value.join(''), cell.inline.join(''), strings);
      column++;
      cell = undefined;
    } else if (name === 'row' && row) {
      done.push(row);
      row = undefined;
    }
  });
  for await (const _ of parsePart(file, entry, parser)) {
    if (done.length === 0) continue;
    yield done;
    done = [];
  }
  if (done.length > 0) yield done;
}

function cellValue(type: string, raw: string, inline: string, strings: string[]): SheetCell {
  if (type === 'inlineStr') return inline;
  if (raw === '') return null;
  if (type === 's') return strings[Number(raw)] ?? null;
  if (type === 'str' || type === 'e' || type === 'd') return raw;
  if (type === 'b') return raw === '1';
  const number = Number(raw);
  return Number.isFinite(number) ? number : raw;
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
