/**
 * Every way a PIN is shown outside the database: only its last 4 characters leave it. Text (console,
 * query, export, errors) and the SQL that builds workbook cells and masks query results all come from here.
 */
import type { Warehouse } from './warehouse.js';

/** `****1234`: the form in which a PIN may be shown in text (the workbook's cells use `••••1234`). */
export function maskPin(pin: string): string {
  return `****${pin.slice(-4)}`;
}

/** A column that may hold a PIN: named `key`, or with "pin" in its name. */
export function isPinColumn(name: string): boolean {
  return name.toLowerCase() === 'key' || /pin/i.test(name);
}

/**
 * The PINs stored in `sales.key`, normalized (upper case, trimmed): a CTE for `maskPinValue`. DuckDB
 * builds it once and probes it as a hash table (about 0.2 s for 5 text columns of 100k rows).
 */
export const pinValuesCte = 'pinrecon_pins AS MATERIALIZED (SELECT DISTINCT upper(trim(key)) AS pin FROM sales WHERE key IS NOT NULL)';

/** A text expression, masked to `****` + its last 4 characters when its value is a stored PIN (needs `pinValuesCte`). */
export function maskPinValue(expression: string): string {
  return `CASE WHEN upper(trim(${expression})) IN (SELECT pin FROM pinrecon_pins) THEN '****' || right(trim(${expression}), 4) ELSE ${expression} END`;
}

/** Whether the database has `sales.key` to mask values by (a fresh or foreign database may not). */
export async function hasStoredPins(warehouse: Warehouse): Promise<boolean> {
  return Boolean(
    await warehouse.one(`SELECT 1 AS present FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'sales' AND column_name = 'key' AND NOT internal`),
  );
}

/**
 * The last 4 characters of a PIN behind bullets. `column` holds the whole PIN (`key`: one of 4 characters
 * or fewer is hidden whole) or only its last 4 (`last4`: fewer than 4 means the PIN itself was that short).
 */
export function maskedKeySql(column: string, holds: 'key' | 'last4'): string {
  const shortest = holds === 'key' ? 5 : 4;
  return `CASE WHEN ${column} IS NULL THEN NULL WHEN length(${column}) >= ${shortest} THEN '••••' || right(${column}, 4) ELSE '••••' END`;
}

/**
 * A raw API record (JSON text) with the value of every "key" field masked: strings longer than 4
 * characters keep their last 4; shorter strings and non-string values are hidden whole.
 */
export function maskedRawRecordSql(column: string): string {
  const keepLast4 = `regexp_replace(${column}, '("key"\\s*:\\s*")[^"]+?([^"]{4})"', '\\1••••\\2"', 'gi')`;
  return `regexp_replace(${keepLast4}, '("key"\\s*:\\s*)("[^"•][^"]{0,3}"|""|[^"\\s,}\\]][^,}\\]\\s]*)', '\\1"••••"', 'gi')`;
}

/** A PIN of which only the last 4 characters are known (`key_last4`): fewer than 4 means the PIN itself was that short, so it is hidden whole. */
export function maskPinLast4(last4: string): string {
  return last4.length >= 4 ? maskPin(last4) : '****';
}
