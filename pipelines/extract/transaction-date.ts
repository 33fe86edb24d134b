/**
 * `transactionDate` in SQL: the spec does not publish its format, so the loader accepts the shapes seen in
 * the wild and nothing else — ISO 8601 with an offset (kept as is), ISO 8601 without one (a wall-clock
 * time in the configured zone) and `dd/MM/yyyy HH:mm:ss` (also local). Anything else yields NULL, and the
 * caller keeps the raw text and quarantines the record.
 */
import { sqlString } from '../../core/sql.js';

/** What the quarantine says about a date none of the accepted shapes matched. */
export const unparseableDateReason = 'transactionDate is not ISO 8601 or dd/MM/yyyy HH:mm:ss';

const isoDateTime = String.raw`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?`;
const withOffset = String.raw`${isoDateTime}(Z|[+-]\d{2}(:?\d{2})?)`;
const withoutOffset = String.raw`\d{4}-\d{2}-\d{2}|${isoDateTime}`;
const dayMonthYear = String.raw`\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2}`;

/**
 * A DuckDB expression turning the VARCHAR expression `text` into a TIMESTAMPTZ, or NULL when it is not one
 * of the accepted shapes or not a real instant (e.g. 30 February). Needs DuckDB's built-in ICU.
 */
export function transactionAtSql(text: string, timeZone: string): string {
  const zone = sqlString(timeZone);
  return `CASE
    WHEN regexp_full_match(${text}, ${sqlString(withOffset)}) THEN TRY_CAST(${text} AS TIMESTAMPTZ)
    WHEN regexp_full_match(${text}, ${sqlString(withoutOffset)}) THEN timezone(${zone}, TRY_CAST(${text} AS TIMESTAMP))
    WHEN regexp_full_match(${text}, ${sqlString(dayMonthYear)})
      THEN timezone(${zone}, TRY_STRPTIME(${text}, '%d/%m/%Y %H:%M:%S'))
  END`;
}
