/**
 * Reads a ledger file of any supported format into canonical rows and rejects, in file order and in flat
 * memory. Every record after the header comes out as exactly one row or one reject, so
 * `accepted + rejected = lines` holds for every file. Rows above the header of a CSV or XLSX file (a title
 * line, an export date: see HeaderSearch) are not data lines: they are neither accepted nor rejected, are
 * not counted in `lines`, and are reported through `onAboveHeader`. A reject's raw text is kept up to the
 * 32,767 characters of one Excel cell.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConfigError, JobError } from '../../core/errors.js';
import { fitCell } from '../../core/text-safety.js';
import { KeyResolver, resolveHeaders, type ColumnIndexes } from './columns.js';
import { readCsv } from './csv.js';
import { readJsonArray, readNdjson } from './json.js';
import { readParquet } from './parquet.js';
import type {
  CellValue,
  LedgerColumn,
  LedgerItem,
  LedgerReadSettings,
  ProgressCallback,
  SourceEvent,
} from './types.js';
import { createRowValidator, type RowValidator } from './validate.js';
import { listSheets, readXlsx } from './xlsx.js';

export interface ReadLedgerOptions {
  /** Parquet is read through DuckDB: a connection of its own (not the one the rows are appended on). */
  connection?: DuckDBConnection;
  onProgress?: ProgressCallback;
  /** A row above the header (not data, not counted): where it is and its text. */
  onAboveHeader?: (line: number, raw: string) => void;
}

export async function* readLedger(
  file: string,
  settings: LedgerReadSettings,
  options: ReadLedgerOptions = {},
): AsyncGenerator<LedgerItem> {
  let validate = createRowValidator(settings, {
    sheetNumbers: settings.format === 'xlsx' || settings.format === 'parquet',
  });
  let indexes: ColumnIndexes | undefined;
  let keys: KeyResolver | undefined;
  for await (const event of sourceEvents(file, settings, options)) {
    switch (event.kind) {
      case 'header':
        indexes = await resolveHeadersOf(file, settings, event.names);
        if (event.excelDates)
          validate = createRowValidator(settings, { sheetNumbers: true, excelDates: event.excelDates });
        break;
      case 'above-header':
        options.onAboveHeader?.(event.line, event.raw);
        break;
      case 'reject':
      case 'values':
        yield lineItem(event, validate, indexes!);
        break;
      case 'object': {
        if (!keys) {
          keys = new KeyResolver(settings.columns);
          keys.checkKeys(Object.keys(event.object), settings.columns, file);
        }
        const byColumn = new Map<LedgerColumn, CellValue>();
        for (const [key, value] of Object.entries(event.object)) {
          const column = keys.column(key);
          if (column && !byColumn.has(column)) byColumn.set(column, value);
        }
        const outcome = validate((column) => byColumn.get(column) ?? null, event.line);
        yield outcome.row
          ? { row: outcome.row }
          : { reject: { source_line: event.line, reason: outcome.reason, raw: fitCell(event.raw) } };
        break;
      }
    }
  }
  if (!indexes && (settings.format === 'csv' || settings.format === 'xlsx')) {
    throw new JobError(
      `${file}: the file is empty (no header line).`,
      'Export the ledger again, with its header line.',
    );
  }
}

/**
 * A data line as an accepted row or a reject: the reader's own reject (blank, wrong field count...) as it is,
 * else the line's values checked by the validator, its columns found by the header's `indexes`.
 */
export function lineItem(
  event: Extract<SourceEvent, { kind: 'values' | 'reject' }>,
  validate: RowValidator,
  indexes: ColumnIndexes,
): LedgerItem {
  if (event.kind === 'reject')
    return { reject: { source_line: event.line, reason: event.reason, raw: fitCell(event.raw) } };
  const values = event.values;
  const outcome = validate((column) => {
    const index = indexes[column];
    return index === undefined ? null : (values[index] ?? null);
  }, event.line);
  return outcome.row
    ? { row: outcome.row }
    : { reject: { source_line: event.line, reason: outcome.reason, raw: fitCell(event.raw) } };
}

/**
 * The header row's columns. What else to check when one is missing depends on the format: a CSV's
 * delimiter, a workbook's sheet (the first sheet is read by default: it may be a cover or notes sheet).
 */
async function resolveHeadersOf(file: string, settings: LedgerReadSettings, names: string[]): Promise<ColumnIndexes> {
  if (settings.format === 'csv') return resolveHeaders(names, settings.columns, file);
  if (settings.format !== 'xlsx') return resolveHeaders(names, settings.columns, file, '');
  try {
    return resolveHeaders(names, settings.columns, file, '');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const sheets = listSheets(file)
      .map((name) => `"${name}"`)
      .join(', ');
    const which =
      settings.sheet !== undefined ? `sheet "${settings.sheet}" was read (ledger.sheet)` : 'the first sheet was read';
    return resolveHeaders(
      names,
      settings.columns,
      file,
      `if the ledger is on another sheet (${which}; sheets found: ${sheets}), set ledger.sheet or pass --sheet`,
    );
  }
}

function sourceEvents(
  file: string,
  settings: LedgerReadSettings,
  options: ReadLedgerOptions,
): AsyncGenerator<SourceEvent> {
  switch (settings.format) {
    case 'csv':
      return readCsv(file, settings, options.onProgress);
    case 'xlsx':
      return readXlsx(file, settings, options.onProgress);
    case 'json':
      return readJsonArray(file, settings, options.onProgress);
    case 'ndjson':
      return readNdjson(file, settings, options.onProgress);
    case 'parquet':
      if (!options.connection) throw new Error('readLedger: Parquet needs a DuckDB connection');
      return readParquet(file, options.connection, options.onProgress);
  }
}
