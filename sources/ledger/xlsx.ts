/**
 * Excel ledgers, streamed with exceljs's WorkbookReader (memory holds the shared strings and one row):
 * the sheet `ledger.sheet` or the first one; its first non-empty row is the header. Cells keep their
 * types: numbers, real dates (the sheet's wall-clock time) and text; formulas give their cached result.
 * Empty rows are not data and are skipped (spreadsheets carry many formatted empty rows); `line` is the
 * sheet's row number.
 */
import { createReadStream, statSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { ConfigError } from '../../config/errors.js';
import type { CellValue, LedgerReadSettings, ProgressCallback, SourceEvent } from './types.js';

export async function* readXlsx(
  file: string,
  settings: Pick<LedgerReadSettings, 'sheet'>,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  const total = statSync(file).size;
  let done = 0;
  const input = createReadStream(file, { highWaterMark: 1024 * 1024 });
  input.on('data', (chunk) => {
    done += chunk.length;
    onProgress?.(done, total);
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  const seen: string[] = [];
  let found = false;
  try {
    for await (const worksheet of workbook) {
      const name = (worksheet as unknown as { name: string }).name;
      seen.push(name);
      if (settings.sheet !== undefined && name !== settings.sheet) continue;
      found = true;
      let width: number | undefined;
      for await (const row of worksheet) {
        const values = cellValues(row.values as unknown[]);
        if (values.every((v) => v === null || (typeof v === 'string' && v.trim() === ''))) continue;
        if (width === undefined) {
          width = values.length;
          yield { kind: 'header', names: values.map((v) => (v === null ? '' : String(v).trim())) };
          continue;
        }
        const aligned = Array.from({ length: width }, (_, i) => values[i] ?? null);
        const extra = values.slice(width).filter((v) => v !== null);
        const raw = JSON.stringify(values.map((v) => (v instanceof Date ? v.toISOString() : v)));
        if (extra.length > 0) {
          yield { kind: 'reject', line: row.number, reason: `values beyond the ${width} header columns`, raw };
        } else {
          yield { kind: 'values', line: row.number, values: aligned, raw };
        }
      }
      break;
    }
  } finally {
    input.destroy();
  }
  if (!found) {
    const which = settings.sheet !== undefined ? `no sheet named "${settings.sheet}" (ledger.sheet)` : 'no sheet';
    throw new ConfigError(`${file}: ${which}; sheets found: ${seen.map((s) => `"${s}"`).join(', ') || '(none)'}.`, undefined, 'ledger.sheet');
  }
}

/** exceljs row values are 1-based and sparse; cells may be rich text, formulas, hyperlinks or errors. */
function cellValues(values: unknown[]): CellValue[] {
  const out: CellValue[] = [];
  for (let i = 1; i < values.length; i++) out.push(cellValue(values[i]));
  while (out.length > 0 && out[out.length - 1] === null) out.pop();
  return out;
}

function cellValue(value: unknown): CellValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  if (typeof value === 'object') {
    const cell = value as { richText?: { text: string }[]; result?: unknown; formula?: string; sharedFormula?: string; text?: unknown; error?: string };
    if (cell.richText) return cell.richText.map((part) => part.text).join('');
    if ('formula' in cell || 'sharedFormula' in cell) return cellValue(cell.result);
    if (cell.error !== undefined) return String(cell.error);
    if (cell.text !== undefined) return cellValue(cell.text);
  }
  return String(value);
}
