/**
 * How a detail sheet's rows are selected from DuckDB for the row writer (reports/xlsx-sheet-writer.ts): each
 * column in the form its cell takes, and a text column with few distinct values as an ENUM of them, whose
 * values JavaScript receives once per chunk instead of decoding each row's text (the largest cost of reading
 * a million-row sheet was making a string of every text value); any other text in pieces DuckDB keeps inline.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';
import type { Warehouse } from '../core/warehouse.js';
import { sqlString } from '../core/sql.js';
import type { DetailSheet, SheetColumn } from './sheet-spec.js';
import type { ColumnValues } from './xlsx-sheet-writer.js';

/** At most this many values make an ENUM (DuckDB's one-byte kind; each chunk reads the list again). */
const maxEnumValues = 255;
/** The approximate distinct count below which the exact values are fetched to try an ENUM. */
const enumCandidateCount = 200;
/** Longer value lists stay VARCHAR (the list is written into the query text). */
const maxEnumListCharacters = 16_384;

/**
 * Characters of a text value's first piece. DuckDB keeps a string of up to 12 bytes inside its vector, where
 * JavaScript reads it in place; each longer one costs a native call and a copy (2.35 s of the 1M sales sheet's main
 * thread). A value is read as its first 4 characters (at most 12 bytes: the cell mask `••••` of a PIN) and the
 * rest, joined again in JavaScript: text of up to 16 ASCII characters (a reference, a masked PIN) stays inline.
 */
const headCharacters = 4;

/** How a sheet's rows are read: the SELECT list, and each chunk's values per sheet column. */
export interface SheetSelect {
  list: string;
  columns(chunk: DuckDBDataChunk): ColumnValues[];
}

/** The sheet's SELECT list (each column in the form the row writer takes) and how to read its chunks. */
export async function sheetSelect(warehouse: Warehouse, sheet: DetailSheet, timezone: string): Promise<SheetSelect> {
  const enums = await fewValuedTextColumns(warehouse, sheet);
  const pieces: string[] = [];
  /** Per sheet column, its first vector and whether a second holds the rest of its text. */
  const vectors: { at: number; rest: boolean }[] = [];
  for (const column of sheet.columns) {
    const values = enums.get(column.key);
    const expression = selectExpression(column, timezone);
    const rest = column.kind === 'text' && !values;
    vectors.push({ at: pieces.length, rest });
    if (values) pieces.push(`${expression}::ENUM(${values.map(sqlString).join(', ')}) AS "${column.key}"`);
    else if (rest) {
      pieces.push(`left(${expression}, ${headCharacters}) AS "${column.key}"`);
      pieces.push(`nullif(substr(${expression}, ${headCharacters + 1}), '') AS "${column.key} (rest)"`);
    } else pieces.push(`${expression} AS "${column.key}"`);
  }
  return {
    list: pieces.join(', '),
    columns: (chunk) =>
      vectors.map(({ at, rest }) =>
        rest ? joined(chunk.getColumnVector(at), chunk.getColumnVector(at + 1)) : chunk.getColumnVector(at),
      ),
  };
}

/** A text column read in two pieces, as one. */
function joined(first: ColumnValues, rest: ColumnValues): ColumnValues {
  return {
    getItem(index: number): unknown {
      const head = first.getItem(index);
      if (head === null) return null;
      const tail = rest.getItem(index);
      return tail === null ? head : `${head}${tail}`;
    },
  };
}

/** The text columns with few distinct values in the sheet's rows, with those values. */
async function fewValuedTextColumns(warehouse: Warehouse, sheet: DetailSheet): Promise<Map<string, string[]>> {
  const enums = new Map<string, string[]>();
  const text = sheet.columns.filter((column) => column.kind === 'text');
  if (text.length === 0) return enums;
  const from = `FROM ${sheet.table} WHERE (${sheet.where})`;
  const counts = await warehouse.one<Record<string, string>>(
    `SELECT ${text.map((column, i) => `approx_count_distinct((${column.sql})::VARCHAR) AS c${i}`).join(', ')} ${from}`,
  );
  for (const [i, column] of text.entries()) {
    if (Number(counts?.[`c${i}`] ?? Infinity) > enumCandidateCount) continue;
    const rows = await warehouse.all<{ value: string }>(
      `SELECT DISTINCT (${column.sql})::VARCHAR AS value ${from} AND (${column.sql}) IS NOT NULL
       ORDER BY value LIMIT ${maxEnumValues + 1}`,
    );
    const values = rows.map((row) => row.value);
    const characters = values.reduce((sum, value) => sum + value.length, 0);
    // Control characters stay out of the query text; an empty list is no ENUM.
    if (values.length === 0 || values.length > maxEnumValues || characters > maxEnumListCharacters) continue;
    if (values.some((value) => /[\x00-\x1f]/.test(value))) continue;
    enums.set(column.key, values);
  }
  return enums;
}

/**
 * The column's SELECT expression, in the form the cell takes, so converting a million rows costs little:
 * numbers and money as DOUBLE (an Excel cell is a double; sums stay in DuckDB's exact decimals), dates as
 * Excel serial days of the wall-clock time in the configured zone (what exceljs writes for a Date).
 */
function selectExpression(column: SheetColumn, timezone: string): string {
  switch (column.kind) {
    case 'integer':
    case 'money':
      return `(${column.sql})::DOUBLE`;
    case 'datetime':
      return `epoch_ms(timezone(${sqlString(timezone)}, ${column.sql}))::DOUBLE / 86400000 + 25569`;
    case 'date':
      return `((${column.sql})::DATE - DATE '1899-12-30')::DOUBLE`;
    case 'boolean':
      return `(${column.sql})::BOOLEAN`;
    default:
      return `(${column.sql})::VARCHAR`;
  }
}
