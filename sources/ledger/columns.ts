/**
 * Finds the canonical ledger columns among a file's headers: first the header named in `ledger.columns`
 * (canonical → header), else a header that spells the canonical name. Matching ignores case, accents,
 * spaces, `_`, `-` and `.`, so `Partner Reference`, `PARTNER_REFERENCE` and `Situação`/`situacao` match.
 * A required column that cannot be found is a configuration matter (exit 2): the error names the column,
 * the config key, and the headers found.
 */
import { ConfigError } from '../../core/errors.js';
import { ledgerColumns, type LedgerColumn } from './types.js';

/** `Pago em` → `pagoem`, `Situação` → `situacao`. */
export function normalizeHeader(header: string): string {
  return header
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_.-]+/g, '');
}

/** Checks `ledger.columns` names only canonical columns (a typo there would silently do nothing). */
export function checkColumnMapping(columns: Record<string, string>): void {
  const known = new Set<string>(ledgerColumns.map((c) => c.name));
  for (const key of Object.keys(columns)) {
    if (!known.has(key)) {
      throw new ConfigError(
        `ledger.columns.${key}: "${key}" is not a ledger column. The keys of ledger.columns are the canonical ` +
          `columns (${[...known].join(', ')}) and the values are headers in the file.`,
        undefined,
        `ledger.columns.${key}`,
      );
    }
  }
}

/** For each canonical column, the index of its header (or undefined for an absent optional column). */
export type ColumnIndexes = Record<LedgerColumn, number | undefined>;

/**
 * Maps a header row; throws ConfigError when a required column is missing or two headers claim one column.
 * `otherCause` ends the missing-column message: what else to check for this format (CSV: the delimiter).
 */
export function resolveHeaders(
  headers: string[],
  columns: Record<string, string>,
  file: string,
  otherCause = 'check ledger.delimiter',
): ColumnIndexes {
  checkColumnMapping(columns);
  const normalized = headers.map(normalizeHeader);
  const result = {} as ColumnIndexes;
  for (const column of ledgerColumns) {
    const mapped = columns[column.name];
    const wanted = normalizeHeader(mapped ?? column.name);
    // An exact header match wins over a normalized one (two headers may differ only by case or accents).
    let index = mapped !== undefined ? headers.indexOf(mapped) : -1;
    if (index < 0) {
      const candidates = normalized.flatMap((n, i) => (n === wanted ? [i] : []));
      if (candidates.length > 1) {
        throw new ConfigError(
          `${file}: the headers ${candidates.map((i) => `"${headers[i]}"`).join(' and ')} ` +
            `both match the ledger column ${column.name}. Name the one to use in ledger.columns.${column.name}.`,
          undefined,
          `ledger.columns.${column.name}`,
        );
      }
      index = candidates[0] ?? -1;
    }
    if (index < 0 && (column.required || mapped !== undefined))
      throw missingColumn(column.name, mapped, headers, file, otherCause);
    result[column.name] = index < 0 ? undefined : index;
  }
  return result;
}

/** For readers of objects (JSON): the canonical column a key stands for, cached per key. */
export class KeyResolver {
  private readonly cache = new Map<string, LedgerColumn | null>();
  private readonly byWanted = new Map<string, LedgerColumn>();
  private readonly exact = new Map<string, LedgerColumn>();

  constructor(columns: Record<string, string>) {
    checkColumnMapping(columns);
    for (const column of ledgerColumns) {
      const mapped = columns[column.name];
      if (mapped !== undefined) this.exact.set(mapped, column.name);
      this.byWanted.set(normalizeHeader(mapped ?? column.name), column.name);
    }
  }

  column(key: string): LedgerColumn | null {
    let found = this.cache.get(key);
    if (found === undefined) {
      found = this.exact.get(key) ?? this.byWanted.get(normalizeHeader(key)) ?? null;
      this.cache.set(key, found);
    }
    return found;
  }

  /** Throws like resolveHeaders when the first object's keys lack a required column (they act as the header). */
  checkKeys(keys: string[], columns: Record<string, string>, file: string): void {
    const present = new Set(keys.map((k) => this.column(k)));
    for (const column of ledgerColumns) {
      if (column.required && !present.has(column.name))
        throw missingColumn(column.name, columns[column.name], keys, file);
    }
  }
}

function missingColumn(
  column: LedgerColumn,
  mapped: string | undefined,
  headers: string[],
  file: string,
  otherCause?: string,
): ConfigError {
  const lookedFor =
    mapped !== undefined ? `the header "${mapped}" (ledger.columns.${column})` : `a header named like "${column}"`;
  const undecodable = headers.some((h) => h.includes('\uFFFD'))
    ? ' Some headers hold undecodable bytes: is the file Latin-1 or Windows-1252? ' +
      'Set ledger.encoding or pass --encoding.'
    : '';
  // Issue 34: the headers are not quoted. A ledger's content never goes into a message (nor pipeline_runs.error,
  // nor an alert): a wrong path could name a private file whose first line would be printed and stored.
  const found =
    headers.length > 0
      ? `The header row has ${headers.length} column${headers.length === 1 ? '' : 's'} ` +
        `(not quoted: open the file to see them).`
      : 'The file has no header row.';
  return new ConfigError(
    `${file}: no column for ${column}: looked for ${lookedFor}. ${found}${undecodable} ` +
      `Map it in the config, e.g. "ledger": { "columns": { "${column}": "<header in the file>" } }` +
      `${otherCause ? `, or ${otherCause}` : ''}.`,
    undefined,
    `ledger.columns.${column}`,
  );
}

/** Whether a row names every required column and every mapped one: what makes it the header row. */
export function namesRequiredColumns(headers: string[], columns: Record<string, string>): boolean {
  const exact = new Set(headers);
  const normalized = new Set(headers.map(normalizeHeader));
  return ledgerColumns.every((column) => {
    const mapped = columns[column.name];
    if (!column.required && mapped === undefined) return true;
    return (mapped !== undefined && exact.has(mapped)) || normalized.has(normalizeHeader(mapped ?? column.name));
  });
}

/** How many rows from the top may hold the header (a title, a period or blank rows may come first). */
export const headerSearchRows = 20;

export type PlacedRow<T> = { role: 'above-header' | 'header' | 'data'; row: T };

/**
 * Finds the header of a tabular file: the first of its first rows that names every required column. The
 * rows above it (a title, an export date) are not data. Rows are held until the header is known (at most
 * `headerSearchRows`), then released in file order with their role. When none qualifies, the first row
 * with text is the header, as before, so resolveHeaders says what is missing from it. `names` gives a
 * row's cells, or undefined for a blank row (never the header; the reader decides what a blank row is).
 */
export class HeaderSearch<T> {
  private held: T[] = [];
  private found = false;

  constructor(
    private readonly names: (row: T) => string[] | undefined,
    private readonly columns: Record<string, string>,
  ) {}

  push(row: T): PlacedRow<T>[] {
    if (this.found) return [{ role: 'data', row }];
    this.held.push(row);
    const names = this.names(row);
    if (names !== undefined && namesRequiredColumns(names, this.columns)) return this.release(this.held.length - 1);
    return this.held.length >= headerSearchRows ? this.release(undefined) : [];
  }

  end(): PlacedRow<T>[] {
    return this.found ? [] : this.release(undefined);
  }

  private release(header: number | undefined): PlacedRow<T>[] {
    this.found = true;
    const held = this.held;
    this.held = [];
    const at = header ?? held.findIndex((row) => this.names(row) !== undefined);
    return held.map((row, i) => ({
      row,
      role:
        i === at ? 'header' : header !== undefined && i < at && this.names(row) !== undefined ? 'above-header' : 'data',
    }));
  }
}
