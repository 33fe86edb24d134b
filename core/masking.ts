/**
 * The one rule by which a PIN is shown outside the database, and every form of it (text, workbook cell, SQL
 * expression, JSON record): a PIN longer than 4 characters shows only its last 4 behind a mask; a PIN of 4
 * characters or fewer is masked entirely. Text (console, query, export, the client's errors, reconcile's
 * messages) masks with `****`; workbook cells with `••••` (what finance has always seen). Nothing else in
 * pinrecon masks a PIN: it calls this module. Masking in outputs is a convenience; the protection of keys
 * is that a full key is not kept on disk (`security.keys`) and that the files are private (0600).
 */
import type { Warehouse } from './warehouse.js';

/** The mask of text outputs. */
export const textMask = '****';
/** The mask of workbook cells. */
export const cellMask = '••••';

/** Longest PIN that is masked entirely: showing its "last 4" would show all of it. */
const hiddenWholeUpTo = 4;

/** `****1234` (or `****` for a PIN of 4 characters or fewer). */
export function maskPin(pin: string, mask: string = textMask): string {
  return pin.length > hiddenWholeUpTo ? `${mask}${pin.slice(-4)}` : mask;
}

/** `maskPin` in SQL: a VARCHAR expression holding a whole PIN (NULL stays NULL). */
export function maskPinSql(expression: string, mask: string = textMask): string {
  const glyphs = sqlText(mask);
  return (
    `CASE WHEN ${expression} IS NULL THEN NULL WHEN length(${expression}) > ${hiddenWholeUpTo} ` +
    `THEN ${glyphs} || right(${expression}, 4) ELSE ${glyphs} END`
  );
}

/**
 * A column holding only a PIN's last 4 characters (NULL when the PIN was 4 characters or fewer: the rule
 * as `stg_provider__sales.key_last4` applies it in SQL, `length(key) > 4`), shown behind the mask.
 */
export function maskedLast4Sql(column: string, mask: string = cellMask): string {
  const glyphs = sqlText(mask);
  return (
    `CASE WHEN ${column} IS NULL THEN NULL WHEN length(${column}) = 4 ` +
    `THEN ${glyphs} || ${column} ELSE ${glyphs} END`
  );
}

/** A column that may hold a PIN: named `key`, or with "pin" in its name. */
export function isPinColumn(name: string): boolean {
  return name.toLowerCase() === 'key' || /pin/i.test(name);
}

/**
 * The PINs stored in `sales.key`, normalized (upper case, trimmed), as DuckDB's 64-bit hashes: a CTE for
 * `maskPinValue`. DuckDB builds it once and probes it as a hash table for each text column, of 8-byte hashes instead
 * of the texts (1M sales as Arrow over whole keys: 9.9 → 6.5 s, 968 → 818 MiB). A PIN is never missed; a value that
 * is no PIN but shares a PIN's hash would be masked too, a chance of about one in two million for ten million values
 * looked up among a million PINs. Keys already masked (`security.keys` hash or drop) are left out: they reveal nothing.
 */
export const pinValuesCte =
  `pinrecon_pins AS MATERIALIZED (SELECT DISTINCT hash(upper(trim(key))) AS pin FROM sales ` +
  `WHERE key IS NOT NULL AND NOT starts_with(key, '${textMask}'))`;

/** A text expression, masked by the rule when its value is a stored PIN (needs `pinValuesCte`). */
export function maskPinValue(expression: string, mask: string = textMask): string {
  return (
    `CASE WHEN hash(upper(trim(${expression}))) IN (SELECT pin FROM pinrecon_pins) ` +
    `THEN ${maskPinSql(`trim(${expression})`, mask)} ELSE ${expression} END`
  );
}

/** Whether the database has `sales.key` to mask values by (a fresh or foreign database may not). */
export async function hasStoredPins(warehouse: Warehouse): Promise<boolean> {
  return Boolean(
    await warehouse.one(
      `SELECT 1 AS present FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'sales' AND column_name ` +
        `= 'key' AND NOT internal`,
    ),
  );
}

/**
 * The last 4 characters of a PIN behind the workbook's mask. `column` holds the whole PIN (`key`) or only
 * its last 4 (`last4`, NULL or shorter when the PIN was masked entirely).
 */
export function maskedKeySql(column: string, holds: 'key' | 'last4'): string {
  return holds === 'key' ? maskPinSql(column, cellMask) : maskedLast4Sql(column, cellMask);
}

/**
 * A raw API record (JSON text) with the value of every "key" field masked by the rule: strings longer than
 * 4 characters keep their last 4; shorter strings and non-string values are masked entirely.
 */
export function maskedRawRecordSql(column: string, mask: string = cellMask): string {
  const glyphs = mask.replace(/[\\$]/g, '\\$&');
  const keepLast4 = `regexp_replace(${column}, '("key"\\s*:\\s*")[^"]+?([^"]{4})"', '\\1${glyphs}\\2"', 'gi')`;
  const firstGlyph = mask[0] === '*' ? '\\*' : mask[0];
  return (
    `regexp_replace(${keepLast4}, '("key"\\s*:\\s*)` +
    `("[^"${firstGlyph}][^"]{0,3}"|""|[^"\\s,}\\]][^,}\\]\\s]*)', '\\1"${glyphs}"', 'gi')`
  );
}

/** `maskedRawRecordSql` applied only where the text mentions a "key" field (cheap for all other text). */
export function maskKeyFieldsSql(expression: string, mask: string = textMask): string {
  return `CASE WHEN ${expression} ILIKE '%"key"%' THEN ${maskedRawRecordSql(expression, mask)} ELSE ${expression} END`;
}

function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * A PIN of which only its last 4 characters are kept (`key_last4`), behind the mask: `maskedLast4Sql` in text.
 * Exactly 4 characters are the tail of a longer PIN and are shown (`****1000`); anything else means the PIN was
 * 4 characters or fewer, so it is hidden whole.
 */
export function maskPinLast4(last4: string, mask: string = textMask): string {
  return last4.length === 4 ? `${mask}${last4}` : mask;
}
