/**
 * What a sheet of the workbook is, as data — its columns (header, kind, width, SQL expression) and the rows it holds
 * — and the helpers that make its usual columns. A leaf: every sheet module (report-sheets, actions-sheet,
 * match-sheet) and every writer (workbook, xlsx-sheet-writer, print-setup) imports it, and it imports none of them.
 */

/**
 * How a column is written: `money` as a number in the currency format of the row's `currency` column,
 * `datetime` (a TIMESTAMPTZ) as a date in the configured zone, `date` as a date, `integer` as a number.
 */
export type ColumnKind = 'text' | 'integer' | 'money' | 'datetime' | 'date' | 'boolean';

export interface SheetColumn {
  /** The SQL alias; also what `currency` refers to. */
  key: string;
  header: string;
  kind: ColumnKind;
  /** SQL over the sheet's table. */
  sql: string;
  /** Excel column width in characters. */
  width: number;
  /** money: the key of the column holding the row's ISO 4217 code. */
  currency?: string;
  /** Shown for reading only, in grey: what pinrecon wrote, never read back. */
  readOnly?: boolean;
  /** The Decision column: its drop-down's values (default: the decisions on findings). */
  choices?: readonly string[];
}

export interface DetailSheet {
  title: string;
  /** What the sheet holds, for the Summary's list of sheets. */
  description: string;
  columns: SheetColumn[];
  /** The one table the rows come from. */
  table: string;
  /** Which of its rows. */
  where: string;
  /** A total order (ends in a unique key). */
  orderBy: string;
  /**
   * The columns a printout must show on every page (a finding sheet's key columns): those at the start are
   * repeated at the left of each page, the others (a run of adjacent columns) are the print area; the rest
   * stay on screen only. Absent: the whole sheet prints, one page wide.
   */
  printColumns?: string[];
}

/** A text column: `sql` defaults to the key (a column of the sheet's table of that name). */
export const text = (key: string, header: string, width = 16, sql = key): SheetColumn => ({
  key,
  header,
  kind: 'text',
  sql,
  width,
});

/** An integer column: `sql` defaults to the key (a column of the sheet's table of that name). */
export const integer = (key: string, header: string, width = 8, sql = key): SheetColumn => ({
  key,
  header,
  kind: 'integer',
  sql,
  width,
});

/** A money column, in the format of the currency in the row's column `currency`. */
export const money = (key: string, header: string, sql: string, currency = 'currency', width = 15): SheetColumn => ({
  key,
  header,
  kind: 'money',
  sql,
  width,
  currency,
});

/** A TIMESTAMPTZ column of the sheet's table, shown as a date and time in the configured zone. */
export const datetime = (key: string, header: string, sql = key, width = 19): SheetColumn => ({
  key,
  header,
  kind: 'datetime',
  sql,
  width,
});
