/**
 * Excel ledgers, streamed with exceljs's WorkbookReader (memory holds the shared strings and one row): the
 * sheet `ledger.sheet` or the first tab (tab order from `xl/workbook.xml`, xlsx-workbook.ts). The header is the
 * first of the first 20 non-empty rows naming every required column. Cells keep their types (formulas give their
 * cached result); empty rows are skipped; `line` is the sheet's row number.
 */
import type ExcelJS from 'exceljs';
import { ConfigError, JobError } from '../../core/errors.js';
import { HeaderSearch, type PlacedRow } from './columns.js';
import { describeStart, fileEnds } from './signature.js';
import type { CellValue, LedgerReadSettings, ProgressCallback, SourceEvent } from './types.js';
import { checkXlsxLimits, XlsxLimitExceeded } from '../../core/xlsx-limits.js';
import { listZipEntries, readWorkbookIndex, type WorkbookIndex } from './xlsx-workbook.js';
import { zipRecords, type ZipEntry } from '../../core/zip-entries.js';

const exportAgain =
  'Export the ledger again from the spreadsheet as an Excel Workbook (.xlsx), or pass --format if the file is CSV, JSON or Parquet.';

export async function* readXlsx(
  file: string,
  settings: Pick<LedgerReadSettings, 'sheet' | 'columns'>,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  const { sheet, date1904 } = chooseSheet(file, settings.sheet);
  await checkXlsxLimits(file).catch((error: unknown) => {
    if (!(error instanceof XlsxLimitExceeded)) throw unreadable(file, error);
    throw new JobError(
      `${file} is refused: ${(error as Error).message}.`,
      'If the workbook is genuine, open it in the spreadsheet and export the ledger sheet as CSV, or split it; otherwise ask who sent it.',
      { cause: error },
    );
  });
  // Before the stream opens: its 'data' listener starts the flow, and an await in between would lose bytes.
  const { default: excel } = await import('exceljs');
  const { stream: input, bytes: total } = zipRecords(file, sheetsLast(file));
  let done = 0;
  input.on('data', (chunk: Buffer) => {
    done += chunk.length;
    onProgress?.(done, total);
  });
  const workbook = new excel.stream.xlsx.WorkbookReader(input, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  // With the parts a sheet needs ahead of it and the shared strings known to exist (empty if the workbook has
  // none), exceljs reads each sheet as it comes instead of parking it in a temporary file (see sheetsLast).
  (workbook as unknown as { sharedStrings: unknown[] }).sharedStrings = [];
  let found = false;
  try {
    for await (const worksheet of workbook) {
      // Other sheets are skipped unread: the reader drains them.
      if ((worksheet as unknown as { name: string }).name !== sheet) continue;
      found = true;
      const search = new HeaderSearch<SheetRow>(
        (row) => row.values.map((v) => (v === null ? '' : String(v).trim())),
        settings.columns,
      );
      let width: number | undefined;
      const emit = function* (placed: PlacedRow<SheetRow>[]): Generator<SourceEvent> {
        for (const { role, row } of placed) {
          const raw = JSON.stringify(row.values.map((v) => (v instanceof Date ? v.toISOString() : v)));
          if (role === 'above-header') {
            yield { kind: 'above-header', line: row.line, raw };
          } else if (role === 'header') {
            width = row.values.length;
            yield {
              kind: 'header',
              names: row.values.map((v) => (v === null ? '' : String(v).trim())),
              excelDates: { date1904 },
            };
          } else if (row.values.length > width!) {
            // Trailing nulls are trimmed: a longer row has a value beyond the header.
            yield { kind: 'reject', line: row.line, reason: `values beyond the ${width} header columns`, raw };
          } else {
            yield {
              kind: 'values',
              line: row.line,
              values: Array.from({ length: width! }, (_, i) => row.values[i] ?? null),
              raw,
            };
          }
        }
      };
      for await (const row of worksheet) {
        const values = cellValues(row);
        if (values.every((v) => v === null || (typeof v === 'string' && v.trim() === ''))) continue;
        yield* emit(search.push({ line: row.number, values }));
      }
      yield* emit(search.end());
      break;
    }
  } catch (error) {
    throw unreadable(file, error);
  } finally {
    input.destroy();
  }
  if (!found) {
    throw new JobError(
      `${file}: the sheet "${sheet}" is listed in the workbook but holds no cells the reader can find (is it a chart sheet?).`,
      'Name the sheet that holds the ledger in ledger.sheet or pass --sheet.',
    );
  }
}

/**
 * The archive's entries with the worksheets after every other part. exceljs's streaming reader parks a sheet
 * met before the shared strings and the workbook in a temporary file and reads it at the end; that path lost
 * the workbook's sheet list (about 1 read in 50 of the same file) and, for a sheet skipped unread, opened its file
 * after deleting it (an unhandled ENOENT that ended the process). Excel and exceljs store the sheets first.
 */
function sheetsLast(file: string): ZipEntry[] {
  const entries = listZipEntries(file);
  const isSheet = (entry: ZipEntry) => /^\/?xl\/worksheets\/sheet\d+\.xml$/.test(entry.name);
  return [...entries.filter((entry) => !isSheet(entry)), ...entries.filter(isSheet)];
}

/** A non-empty row of the sheet: its number and its cells (trailing empty cells trimmed). */
interface SheetRow {
  line: number;
  values: CellValue[];
}

/** The sheet to read (`ledger.sheet`, else the first tab) and all the sheets in tab order; ConfigError when the named one is absent. */
export function chooseSheet(file: string, wanted: string | undefined): WorkbookIndex & { sheet: string } {
  const index = workbookIndex(file);
  const sheet = wanted ?? index.sheets[0];
  if (sheet === undefined || !index.sheets.includes(sheet)) {
    const which = wanted !== undefined ? `no sheet named "${wanted}" (ledger.sheet)` : 'no sheet';
    throw new ConfigError(
      `${file}: ${which}; sheets found: ${index.sheets.map((s) => `"${s}"`).join(', ') || '(none)'}.`,
      undefined,
      'ledger.sheet',
    );
  }
  return { ...index, sheet };
}

/** The names of the workbook's sheets, in tab order (for a hint when the sheet read is not the ledger). */
export function listSheets(file: string): string[] {
  return workbookIndex(file).sheets;
}

function workbookIndex(file: string): WorkbookIndex {
  checkWorkbookSignature(file);
  try {
    return readWorkbookIndex(file);
  } catch (error) {
    throw unreadable(file, error);
  }
}

/** An .xlsx file is a ZIP archive; an Excel 97-2003 .xls or a password-protected workbook is an OLE file. */
function checkWorkbookSignature(file: string): void {
  const { head } = fileEnds(file, 4);
  if (head.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return;
  if (head.equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) {
    throw new JobError(
      `${file} is not an XLSX workbook: it is an Excel 97-2003 (.xls) file or a password-protected workbook.`,
      'Open it in the spreadsheet and save it as an Excel Workbook (.xlsx) without a password, or export CSV.',
    );
  }
  throw new JobError(
    `${file} is not an XLSX workbook (an .xlsx file is a ZIP archive; ${describeStart(file)}).`,
    exportAgain,
  );
}

/** An error of the workbook reader (a damaged or truncated archive), with the file name and what to do. */
function unreadable(file: string, error: unknown): Error {
  if (error instanceof ConfigError || error instanceof JobError) return error;
  return new JobError(
    `${file} could not be read as an XLSX workbook: it looks damaged or truncated (${(error as Error).message}).`,
    exportAgain,
    { cause: error },
  );
}

/** exceljs row values are 1-based and sparse; cells may be rich text, formulas, hyperlinks or errors. */
function cellValues(row: ExcelJS.Row): CellValue[] {
  const values = row.values as unknown[];
  const out: CellValue[] = [];
  for (let i = 1; i < values.length; i++) {
    const value = values[i];
    // A formula's value object drops a falsy saved result (`<v>0</v>` of =IF(…;0;…)); the cell's result keeps it.
    const isFormula = typeof value === 'object' && value !== null && ('formula' in value || 'sharedFormula' in value);
    out.push(isFormula ? cellValue(row.getCell(i).result ?? null) : cellValue(value));
  }
  while (out.length > 0 && out[out.length - 1] === null) out.pop();
  return out;
}

function cellValue(value: unknown): CellValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date)
    return value;
  if (typeof value === 'object') {
    const cell = value as {
      richText?: { text: string }[];
      result?: unknown;
      formula?: string;
      sharedFormula?: string;
      text?: unknown;
      error?: string;
    };
    if (cell.richText) return cell.richText.map((part) => part.text).join('');
    if ('formula' in cell || 'sharedFormula' in cell) return cellValue(cell.result);
    if (cell.error !== undefined) return String(cell.error);
    if (cell.text !== undefined) return cellValue(cell.text);
  }
  return String(value);
}
