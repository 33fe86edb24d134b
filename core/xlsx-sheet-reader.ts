/**
 * Reads pinrecon workbooks back, whatever Excel or LibreOffice did to them (issue 31), through the streamed rows of
 * core/xlsx-sheet-rows.ts (which keeps multi-byte text whole across chunk boundaries). A sheet is recognised by its
 * header row (one of `layouts`, in its first rows), so sheets may be renamed, reordered or deleted; each row after
 * it comes back as the layout's named columns only. Bounded (issue 34): the XLSX guard first, a cap on shared
 * strings and on rows, one chunk in memory.
 */
import { checkXlsxLimits, defaultXlsxLimits, type XlsxLimits } from './xlsx-limits.js';
import { openWorkbook, type SheetCell, SheetReadLimitExceeded } from './xlsx-sheet-rows.js';

export { type SheetCell, SheetReadLimitExceeded } from './xlsx-sheet-rows.js';

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
  const workbook = await openWorkbook(file, limits);
  facts.date1904 = workbook.date1904;
  let rowsRead = 0;
  for (const sheet of workbook.sheets) {
    const rows = workbook.rows(sheet);
    if (!rows) continue; // a chart sheet, or a part the archive does not hold: nothing to read
    let layout: L | undefined;
    let columns: [field: string, column: number][] = [];
    for await (const chunk of rows) {
      for (const row of chunk) {
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
      if (layout === undefined && chunk.some((row) => row.number > limits.headerSearchRows)) break;
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
