/**
 * The SQL of the CSV bulk reader (sql/load/ledger_csv_lines.sql and ledger_csv_rows.sql) filled in for one
 * file's settings: the ledger's own rules (numbers.ts, dates.ts, validate.ts) written as the patterns and
 * expressions DuckDB runs. Each piece is derived from the rule's own constants or compiled pattern, so the
 * two readers share one source of truth; the differential test holds them to the same results.
 */
import { fillSqlTemplate, sqlString } from '../../core/sql.js';
import { invisibleCharacterSql } from '../../core/text-safety.js';
import { sqlText } from '../../core/paths.js';
import type { ColumnIndexes } from './columns.js';
import type { DateField, DateFormatPattern } from './dates.js';
import { maxDecimals, maxIntegerDigits } from './numbers.js';
import { ledgerColumns, type LedgerColumn, type LedgerReadSettings } from './types.js';
import { statusSynonyms } from './validate.js';

/**
 * The characters JavaScript's `String.prototype.trim` removes and its `\s` matches (white space and line
 * terminators of ECMAScript), as the body of an RE2 character class.
 */
export const javaScriptSpaceClass =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';

/** Separates nothing: a byte the file is checked not to hold, so DuckDB reads each line as one value. */
const lineDelimiter = '\u0001';

/** How a CSV's data lines are read: the settings, where the header ends, its columns, the compiled date format. */
export interface BulkCsvShape {
  settings: Pick<LedgerReadSettings, 'delimiter' | 'quote' | 'decimalSeparator'>;
  /** Physical lines up to and including the header. */
  skip: number;
  fieldCount: number;
  indexes: ColumnIndexes;
  datePattern: DateFormatPattern;
}

/** The file DuckDB reads, and as what. */
export interface BulkCsvSource {
  file: string;
  encoding: 'utf-8' | 'latin-1';
}

/** The query of ledger_csv_lines: the file's data lines, in order, decoded and checked. */
export function linesSql(shape: BulkCsvShape, source: BulkCsvSource): string {
  const { settings, datePattern } = shape;
  const groupSeparator = settings.decimalSeparator === '.' ? ',' : '.';
  const escaped = (character: string) => character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const [group, decimal] = [escaped(groupSeparator), escaped(settings.decimalSeparator)];
  // "1.234,5" → "1234.5": DuckDB's cast reads a point and no thousands separator.
  const digits = (column: string) =>
    settings.decimalSeparator === '.'
      ? `replace(${column}, ',', '')`
      : `replace(replace(${column}, '.', ''), ',', '.')`;
  return fillSqlTemplate('sql/load/ledger_csv_lines.sql', sqlText('load', 'ledger_csv_lines.sql'), {
    file: sqlString(source.file),
    skip: String(shape.skip),
    encoding: sqlString(source.encoding),
    line_delimiter: sqlString(lineDelimiter),
    split: splitSql(settings),
    field_count: String(shape.fieldCount),
    cells: ledgerColumns.map(({ name }) => `${field(shape.indexes, name)} AS ${name}`).join(',\n         '),
    space: javaScriptSpaceClass,
    invisible: sqlString(invisibleCharacterSql),
    date_pattern: sqlString(datePattern.source(javaScriptSpaceClass)),
    date_groups: `[${datePattern.groups.map((_, i) => `'g${i + 1}'`).join(', ')}]`,
    year: dateFieldSql(datePattern, ['year', 'year2']),
    month: dateFieldSql(datePattern, ['month']),
    day: dateFieldSql(datePattern, ['day']),
    hour: dateFieldSql(datePattern, ['hour']),
    minute: dateFieldSql(datePattern, ['minute']),
    second: dateFieldSql(datePattern, ['second']),
    fraction: dateFieldSql(datePattern, ['fraction']),
    money_pattern: sqlString(`^-?(?:\\d{1,3}(?:${group}\\d{3})+|\\d+)(?:${decimal}\\d{1,${maxDecimals}}0*)?$`),
    ambiguous_number: sqlString(`^-?\\d{1,3}${group}\\d{3}$`),
    price_digits: digits('sales_price'),
    cost_digits: digits('expected_cost'),
    decimal_type: `DECIMAL(${maxIntegerDigits + maxDecimals}, ${maxDecimals})`,
    status_cases: Object.entries(statusSynonyms)
      .map(([word, status]) => `WHEN ${sqlString(word)} THEN ${sqlString(status)}`)
      .join(' '),
  });
}

/** The query of the view ledger_csv_rows: the accepted lines as staged rows. */
export function rowsSql(shape: Pick<BulkCsvShape, 'skip'>): string {
  return fillSqlTemplate('sql/load/ledger_csv_rows.sql', sqlText('load', 'ledger_csv_rows.sql'), {
    first_line: String(shape.skip + 1),
  });
}

/**
 * The fields of `line` as the streaming reader's CsvSplitter makes them, where SQL can tell exactly: a line
 * without the quote character is split at each delimiter; a line whose every field is either unquoted without
 * a quote character or quoted whole without a quote inside ("a;b") gives those fields, unquoted. Any other
 * line (a doubled quote, a quote inside an unquoted field, text after a closing quote) is NULL: it is left to
 * the streaming reader. An empty line (NULL) is one empty field, as there.
 */
function splitSql(settings: Pick<LedgerReadSettings, 'delimiter' | 'quote'>): string {
  const [delimiter, quote] = [regexCharacter(settings.delimiter), regexCharacter(settings.quote)];
  const field = `${quote}[^${quote}]*${quote}|[^${delimiter}${quote}]*`;
  const quotedFields = `list_transform(regexp_extract_all(line || ${sqlString(settings.delimiter)},
          ${sqlString(`(${field})${delimiter}`)}, 1),
        cell -> CASE WHEN starts_with(cell, ${sqlString(settings.quote)})
          THEN substr(cell, 2, length(cell) - 2) ELSE cell END)`;
  return `CASE WHEN NOT contains(coalesce(line, ''), ${sqlString(settings.quote)})
        THEN string_split(coalesce(line, ''), ${sqlString(settings.delimiter)})
      WHEN regexp_full_match(line, ${sqlString(`(?:${field})(?:${delimiter}(?:${field}))*`)}) THEN ${quotedFields} END`;
}

/** A character as a regular expression reads it literally, in a class or outside one (RE2 and JavaScript). */
function regexCharacter(character: string): string {
  if (character === '\t') return '\\t';
  return /^[!-/:-@[-`{-~]$/.test(character) ? `\\${character}` : character;
}

/** A column's field of the split line `f` (1-based in SQL), NULL for an absent optional column. */
function field(indexes: ColumnIndexes, column: LedgerColumn): string {
  const index = indexes[column];
  return index === undefined ? 'NULL::VARCHAR' : `f[${index + 1}]`;
}

/**
 * One date field from the groups of the compiled format that fill it: the last group that took part in the
 * match wins (as dates.ts reads them), NULL when none did. `yy` is 2000 + its value; the fraction stays text.
 */
function dateFieldSql(pattern: DateFormatPattern, fields: DateField[]): string {
  const parts = pattern.groups
    .map((field, i) => ({ field, group: `d.g${i + 1}` }))
    .filter(({ field }) => fields.includes(field))
    .reverse()
    .map(({ field, group }) => {
      const value =
        field === 'fraction'
          ? group
          : field === 'year2'
            ? `2000 + TRY_CAST(${group} AS INTEGER)`
            : `TRY_CAST(${group} AS INTEGER)`;
      return `CASE WHEN ${group} <> '' THEN ${value} END`;
    });
  if (parts.length === 0) return fields.includes('fraction') ? 'NULL::VARCHAR' : 'NULL::INTEGER';
  return parts.length === 1 ? parts[0]! : `coalesce(${parts.join(', ')})`;
}
