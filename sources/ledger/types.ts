/**
 * The shapes every ledger reader shares: the canonical ledger columns (docs/DATA.md), the settings a file is
 * read with, the values a cell can hold, and what a reader yields (accepted rows and rejects).
 */
import path from 'node:path';
import type { LedgerConfig } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';

/** The canonical ledger columns (docs/DATA.md "ledger"), in table order. */
export const ledgerColumns = [
  { name: 'partner_reference', required: true },
  { name: 'product_id', required: true },
  { name: 'paid_at', required: true },
  { name: 'sales_price', required: true },
  { name: 'expected_cost', required: true },
  { name: 'currency_code', required: true },
  { name: 'country_code', required: false },
  { name: 'order_status', required: true },
] as const;

export type LedgerColumn = (typeof ledgerColumns)[number]['name'];

export const ledgerFormats = ['csv', 'xlsx', 'json', 'ndjson', 'parquet'] as const;
export type LedgerFormat = (typeof ledgerFormats)[number];

/** How a file is read: the `ledger` section of the config (minus `path`) plus its format. */
export type LedgerReadSettings = Omit<LedgerConfig, 'path'> & { format: LedgerFormat };

/**
 * A number whose decimal text is exact (a Parquet DECIMAL or integer, cast to text by DuckDB): read as
 * written, never through a float and never through the configured decimal separator.
 */
export class ExactNumber {
  constructor(readonly text: string) {}
}

/** What a cell may hold once read: text (CSV), typed values (XLSX, JSON), exact numbers (Parquet). */
export type CellValue = string | number | boolean | Date | ExactNumber | null;

/** One accepted line in canonical form, ready for the database (money as exact decimal text). */
export interface LedgerRow {
  partner_reference: string;
  product_id: bigint;
  /** Wall-clock time in the configured zone, `YYYY-MM-DD HH:MM:SS[.ffffff]`, when the file gave no offset. */
  paid_local: string | null;
  /** An instant with its offset, `YYYY-MM-DD HH:MM:SS[.ffffff]+HH:MM`, when the file gave one. */
  paid_instant: string | null;
  paid_at_raw: string;
  sales_price: string;
  expected_cost: string;
  currency_code: string;
  country_code: string | null;
  order_status: 'paid' | 'refunded' | 'canceled';
  /** Where the record is: see SourceEvent (a JSON array's element ordinal, else a line or row number). */
  source_line: number;
}

/** A line that was not accepted: where it is, why, and the line as read. */
export interface LedgerReject {
  source_line: number;
  reason: string;
  raw: string;
}

export type LedgerItem = { row: LedgerRow; reject?: undefined } | { reject: LedgerReject; row?: undefined };

/** The format a file's extension implies (`.csv .tsv .txt .xlsx .json .ndjson .jsonl .parquet`). */
export function formatFromExtension(file: string): LedgerFormat {
  const extension = path.extname(file).toLowerCase();
  const byExtension: Record<string, LedgerFormat> = {
    '.csv': 'csv',
    '.tsv': 'csv',
    '.txt': 'csv',
    '.xlsx': 'xlsx',
    '.json': 'json',
    '.ndjson': 'ndjson',
    '.jsonl': 'ndjson',
    '.parquet': 'parquet',
  };
  const format = byExtension[extension];
  if (!format) {
    throw new UsageError(
      `Cannot tell the format of ${file} from its extension "${extension}". Pass --format ${ledgerFormats.join('|')}.`,
    );
  }
  return format;
}

/**
 * What a format reader yields, in file order: the header (tabular formats), then each record as values
 * aligned with the header or as an object (JSON), or a reject the reader itself found (blank line, wrong
 * field count, bad JSON). `line` is 1-based: the physical line where the record starts (CSV, NDJSON), the
 * sheet or file row (XLSX, Parquet), or the element's ordinal in a JSON array (see `locationUnit`).
 */
export type SourceEvent =
  /**
   * `excelDates`: a workbook's header; a plain number in its paid_at column is a date serial of its date system.
   * `lastLine`: a CSV header's last physical line (the data lines follow it).
   */
  | { kind: 'header'; names: string[]; excelDates?: { date1904: boolean }; lastLine?: number }
  | { kind: 'values'; line: number; values: CellValue[]; raw: string }
  | { kind: 'object'; line: number; object: Record<string, CellValue>; raw: string }
  | { kind: 'reject'; line: number; reason: string; raw: string }
  /** A row above the header (a title, an export date): neither data nor a reject, not counted in the lines. */
  | { kind: 'above-header'; line: number; raw: string };

/** Called as a reader goes: how far it is (bytes or rows) out of how much. */
export type ProgressCallback = (done: number, total: number) => void;

/** How a format's `source_line` reads in messages: "line 12", "row 12" or "record 12" (a JSON array's 12th element). */
export function locationUnit(format: LedgerFormat): 'line' | 'row' | 'record' {
  if (format === 'json') return 'record';
  return format === 'xlsx' || format === 'parquet' ? 'row' : 'line';
}
