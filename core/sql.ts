/** Quoting for the few places SQL is assembled from names and values DuckDB cannot take as parameters. */

/** A SQL string literal: `it's` → `'it''s'` (paths, time zones, and text DuckDB functions take as arguments). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** A quoted identifier: `my "col"` → `"my ""col"""` (column and table names from a file or a query). */
export function sqlIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A query kept in `sql/` with `{{name}}` placeholders, filled with `values`. A placeholder without a value, or
 * a value without its placeholder, is a bug in the caller: it throws, naming `file`.
 */
export function fillSqlTemplate(file: string, template: string, values: Record<string, string>): string {
  const unused = new Set(Object.keys(values));
  const filled = template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    unused.delete(name);
    if (!(name in values)) throw new Error(`${file}: no value for {{${name}}}`);
    return values[name]!;
  });
  if (unused.size > 0) throw new Error(`${file}: no {{${[...unused][0]}}} for its value`);
  return filled;
}
