/**
 * Excel ledgers, streamed through core/xlsx-sheet-rows.ts (memory holds the shared strings and one chunk of the
 * sheet; issue 31: exceljs's streaming reader split multi-byte text at chunk boundaries): the sheet
 * `ledger.sheet` or the first tab (tab order from `xl/workbook.xml`, xlsx-workbook.ts). The header is the first
 * of the first 20 non-empty rows naming every required column. Cells keep their types (dates, numbers, booleans,
 * text; formulas give their cached result); empty rows are skipped; `line` is the sheet's row number.
 */
import { ConfigError, JobError } from '../../core/errors.js';
import { checkXlsxLimits, defaultXlsxLimits, XlsxLimitExceeded } from '../../core/xlsx-limits.js';
import { openWorkbook, SheetReadLimitExceeded, type SheetRow, type TypedCell } from '../../core/xlsx-sheet-rows.js';
import { HeaderSearch, type PlacedRow } from './columns.js';
import { describeStart, fileEnds } from './signature.js';
import type { CellValue, LedgerReadSettings, ProgressCallback, SourceEvent } from './types.js';
import { readWorkbookIndex, type WorkbookIndex } from './xlsx-workbook.js';

const exportAgain =
  'Export the ledger again from the spreadsheet as an Excel Workbook (.xlsx), ' +
  'or pass --format if the file is CSV, JSON or Parquet.';

export async function* readXlsx(
  file: string,
  settings: Pick<LedgerReadSettings, 'sheet' | 'columns'>,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  const { sheet } = chooseSheet(file, settings.sheet);
  await checkXlsxLimits(file).catch((error: unknown) => {
    throw refused(file, error);
  });
  const workbook = await openWorkbook(file, {
    maxSharedStrings: defaultXlsxLimits.maxSharedStrings,
    dates: true,
  }).catch((error: unknown) => {
    throw refused(file, error);
  });
  const rows = workbook.rows(sheet, onProgress);
  if (!rows) {
    throw new JobError(
      `${file}: the sheet "${sheet}" is listed in the workbook but holds no cells the reader can find ` +
        '(is it a chart sheet?).',
      'Name the sheet that holds the ledger in ledger.sheet or pass --sheet.',
    );
  }
  const search = new HeaderSearch<SheetRow<CellValue>>(
    (row) => row.cells.map((v) => (v === null ? '' : String(v).trim())),
    settings.columns,
  );
  let width: number | undefined;
  const emit = function* (placed: PlacedRow<SheetRow<CellValue>>[]): Generator<SourceEvent> {
    for (const { role, row } of placed) {
      const raw = JSON.stringify(row.cells.map((v) => (v instanceof Date ? v.toISOString() : v)));
      if (role === 'above-header') {
        yield { kind: 'above-header', line: row.number, raw };
      } else if (role === 'header') {
        width = row.cells.length;
        yield {
          kind: 'header',
          names: row.cells.map((v) => (v === null ? '' : String(v).trim())),
          excelDates: { date1904: workbook.date1904 },
        };
      } else if (row.cells.length > width!) {
        // Trailing empty cells are trimmed: a longer row has a value beyond the header.
        yield { kind: 'reject', line: row.number, reason: `values beyond the ${width} header columns`, raw };
      } else {
        yield {
          kind: 'values',
          line: row.number,
          values: Array.from({ length: width! }, (_, i) => row.cells[i] ?? null),
          raw,
        };
      }
    }
  };
  try {
    for await (const chunk of rows) {
      for (const row of chunk) {
        const cells = denseCells(row.cells);
        if (cells.every((v) => v === null || (typeof v === 'string' && v.trim() === ''))) continue;
        yield* emit(search.push({ number: row.number, cells }));
      }
    }
    yield* emit(search.end());
  } catch (error) {
    throw unreadable(file, error);
  }
}

/** A row's cells without holes (an absent cell is empty) and without trailing empty cells. */
function denseCells(cells: TypedCell[]): CellValue[] {
  const out = Array.from(cells, (cell) => cell ?? null);
  while (out.length > 0 && out[out.length - 1] === null) out.pop();
  return out;
}

/** A workbook past a limit of the guard or of the reader: refused, saying what to do; else a damaged archive. */
function refused(file: string, error: unknown): Error {
  if (!(error instanceof XlsxLimitExceeded || error instanceof SheetReadLimitExceeded)) return unreadable(file, error);
  return new JobError(
    `${file} is refused: ${error.message}.`,
    'If the workbook is genuine, open it in the spreadsheet and export the ledger sheet as CSV, or split it; ' +
      'otherwise ask who sent it.',
    { cause: error },
  );
}

/**
 * The sheet to read (`ledger.sheet`, else the first tab) and all the sheets in tab order; ConfigError when the
 * named one is absent.
 */
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
