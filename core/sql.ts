/** Quoting for the few places SQL is assembled from names and values DuckDB cannot take as parameters. */

/** A SQL string literal: `it's` → `'it''s'` (paths, time zones, and text DuckDB functions take as arguments). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** A quoted identifier: `my "col"` → `"my ""col"""` (column and table names from a file or a query). */
export function sqlIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
