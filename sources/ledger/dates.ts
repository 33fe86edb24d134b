/**
 * `paid_at` as finance writes it: the configured `ledger.dateFormat` (date-fns tokens) first, then ISO 8601.
 * A value without offset is a wall-clock time of the configured zone, and DuckDB does the zone arithmetic, so
 * DST is exact. Common tokens are compiled to a regular expression (date-fns `parse` is too slow for a million
 * lines; other tokens fall back to it); the CSV bulk reader runs the same pattern in DuckDB.
 */
// Each function from its own module: the package index loads all of date-fns (~0.3 s at every start-up).
import { isValid } from 'date-fns/isValid';
import { parse as parseWithDateFns } from 'date-fns/parse';
import { tz } from '@date-fns/tz';
import type { Parsed } from './numbers.js';

/** Either a wall-clock time (no offset given) or an instant with its offset; both `YYYY-MM-DD HH:MM:SS[.f]`. */
export type PaidAt = { local: string; instant?: undefined } | { instant: string; local?: undefined };

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
}

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Returns a parser of text dates for one `dateFormat`. */
export function createDateParser(dateFormat: string): (text: string) => Parsed<PaidAt> {
  const compiled = compileFormat(dateFormat);
  const utc = tz('UTC');
  const formatHasOffset = /(^|[^'])[XxOz]/.test(dateFormat.replace(/'[^']*'/g, ''));
  const referenceDate = new Date(Date.UTC(2000, 0, 1));
  return (text: string) => {
    const trimmed = text.trim();
    if (trimmed === '') return { error: 'empty' };
    if (compiled) {
      const match = compiled.pattern.exec(trimmed);
      if (match) return fromFields(compiled.read(match), undefined, trimmed);
    } else {
      const parsed = parseWithDateFns(trimmed, dateFormat, referenceDate, { in: utc });
      if (isValid(parsed)) {
        const fields = utcFields(parsed);
        return formatHasOffset ? fromFields(fields, '+00:00', trimmed) : fromFields(fields, undefined, trimmed);
      }
    }
    const iso = isoPattern.exec(trimmed);
    if (iso) {
      const [, y, mo, d, h = '0', mi = '0', s = '0', f = '', offset] = iso;
      const fields = { year: +y!, month: +mo!, day: +d!, hour: +h, minute: +mi, second: +s, fraction: f };
      return fromFields(fields, offset === undefined ? undefined : normalizeOffset(offset), trimmed);
    }
    return { error: `"${trimmed}" is not a date in the format ${dateFormat} (ledger.dateFormat) nor ISO 8601` };
  };
}

/** An Excel date cell: exceljs gives the sheet's wall-clock time as a UTC Date (Excel dates have no zone). */
export function paidAtFromSheetDate(date: Date): Parsed<PaidAt> {
  if (Number.isNaN(date.getTime())) return { error: 'not a valid date' };
  return fromFields(utcFields(date), undefined, date.toISOString());
}

/** Excel serials of 1990-01-01 and 2100-01-01 (1900 date system). */
const plausibleSerials = { from: 32874, to: 73051 };

/**
 * A plain number in an XLSX paid_at cell: an Excel date serial (days since 1899-12-30, or since 1904-01-01
 * in the 1904 date system; the fraction is the time of day) whose date format was lost, or the result of a
 * date formula (=A2+1), which exceljs leaves a number. Only serials from 1990 to 2100 are read as dates:
 * anything else (20250310, a Unix time) is not a date a ledger holds, and stays an error.
 */
export function paidAtFromExcelSerial(serial: number, date1904: boolean): Parsed<PaidAt> {
  const days = serial + (date1904 ? 1462 : 0);
  if (!(days >= plausibleSerials.from && days < plausibleSerials.to)) {
    return {
      error:
        `${serial} is not a date ` +
        `(a number in an XLSX date cell is read as an Excel date serial only from 1990 to 2100)`,
    };
  }
  return paidAtFromSheetDate(new Date(Math.round((days - 25569) * 86_400_000)));
}

function utcFields(date: Date): Fields {
  const milliseconds = date.getUTCMilliseconds();
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    fraction: milliseconds ? String(milliseconds).padStart(3, '0') : '',
  };
}

function fromFields(f: Fields, offset: string | undefined, shown: string): Parsed<PaidAt> {
  const daysInMonth = new Date(Date.UTC(f.year, f.month, 0)).getUTCDate();
  if (
    f.month < 1 ||
    f.month > 12 ||
    f.day < 1 ||
    f.day > daysInMonth ||
    f.hour > 23 ||
    f.minute > 59 ||
    f.second > 59
  ) {
    return { error: `"${shown}" is not a calendar date and time` };
  }
  if (f.year < 1900 || f.year > 2999) return { error: `"${shown}" has an implausible year ${f.year}` };
  const two = (n: number) => String(n).padStart(2, '0');
  const fraction = f.fraction.replace(/0+$/, '').slice(0, 6);
  const text =
    `${String(f.year).padStart(4, '0')}-${two(f.month)}-${two(f.day)} ` +
    `${two(f.hour)}:${two(f.minute)}:${two(f.second)}${fraction ? `.${fraction}` : ''}`;
  return { value: offset === undefined ? { local: text } : { instant: `${text}${offset}` } };
}

function normalizeOffset(offset: string): string {
  if (offset === 'Z' || offset === 'z') return '+00:00';
  const digits = offset.slice(1).replace(':', '');
  return `${offset[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
}

interface CompiledFormat {
  pattern: RegExp;
  read(match: RegExpExecArray): Fields;
}

/** A field of a date or time, as a capture group of a compiled date format fills it (`year2`: `yy`, 2000 + it). */
export type DateField = 'year' | 'year2' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'fraction';

/**
 * A compiled date format as a pattern another regular-expression engine can run: `source(space)` writes it
 * with `space` (the body of a character class) for the white-space characters, JavaScript's `\s`;
 * `groups[i]` is the field the (i+1)-th capture group fills. Only digits, escaped literals, groups, classes
 * and optional parts are used, which RE2 (DuckDB) and JavaScript read alike; the later of two groups for one
 * field wins, as in `read`.
 */
export interface DateFormatPattern {
  source(space: string): string;
  groups: DateField[];
}

/** The pattern of a date format made only of the common tokens; undefined when it holds any other. */
export function dateFormatPattern(format: string): DateFormatPattern | undefined {
  return compilePattern(format);
}

/** Compiles a format made only of the common tokens; undefined when it holds any other. */
function compileFormat(format: string): CompiledFormat | undefined {
  const compiled = compilePattern(format);
  if (!compiled) return undefined;
  const pattern = new RegExp(compiled.source('\\s'));
  const readers = compiled.groups.map((field) => fieldReaders[field]);
  return {
    pattern,
    read(match) {
      const fields: Fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, fraction: '' };
      readers.forEach((reader, i) => {
        const value = match[i + 1];
        if (value !== undefined) reader(fields, value);
      });
      return fields;
    },
  };
}

const fieldReaders: Record<DateField, (fields: Fields, value: string) => void> = {
  year: (f, v) => (f.year = +v),
  year2: (f, v) => (f.year = 2000 + +v),
  month: (f, v) => (f.month = +v),
  day: (f, v) => (f.day = +v),
  hour: (f, v) => (f.hour = +v),
  minute: (f, v) => (f.minute = +v),
  second: (f, v) => (f.second = +v),
  fraction: (f, v) => (f.fraction = v),
};

/** Stands for the white-space characters inside a character class of a compiled format's source. */
const spaceMark = '\u0000';

function compilePattern(format: string): DateFormatPattern | undefined {
  const tokens = format.match(/'[^']*'|([A-Za-z])\1*|[^A-Za-z']+/g) ?? [];
  // With separators between the fields, spreadsheets drop leading zeros (1/2/2026): accept one digit too.
  const twoDigits = /[^A-Za-z']/.test(format.replace(/'[^']*'/g, '')) ? '\\d{1,2}' : '\\d{2}';
  const groups: DateField[] = [];
  let source = '^';
  const group = (regex: string, field: DateField) => {
    source += `(${regex})`;
    groups.push(field);
  };
  // Where the time part starts (with the literal before it): it is optional, so a date alone is midnight.
  let timeStart: number | undefined;
  let literalStart = -1;
  for (const token of tokens) {
    if (timeStart === undefined && /^H/.test(token)) timeStart = literalStart >= 0 ? literalStart : source.length;
    const isLiteral = token.startsWith("'") || !/^[A-Za-z]/.test(token);
    if (isLiteral && literalStart < 0) literalStart = source.length;
    if (!isLiteral) literalStart = -1;
    if (token.startsWith("'")) source += escapeLiteral(token.slice(1, -1));
    else if (!/^[A-Za-z]/.test(token)) source += escapeLiteral(token);
    else if (token === 'yyyy') group('\\d{4}', 'year');
    else if (token === 'yy') group('\\d{2}', 'year2');
    else if (token === 'MM') group(twoDigits, 'month');
    else if (token === 'M') group('\\d{1,2}', 'month');
    else if (token === 'dd') group(twoDigits, 'day');
    else if (token === 'd') group('\\d{1,2}', 'day');
    else if (token === 'HH') group('\\d{2}', 'hour');
    else if (token === 'H') group('\\d{1,2}', 'hour');
    else if (token === 'mm') group('\\d{2}', 'minute');
    else if (token === 'ss') group('\\d{2}', 'second');
    else if (/^S+$/.test(token)) group(`\\d{${token.length}}`, 'fraction');
    else return undefined;
  }
  if (!/yy/.test(format) || !/M/.test(format) || !/d/.test(format)) return undefined;
  if (timeStart !== undefined) source = `${source.slice(0, timeStart)}(?:${source.slice(timeStart)})?`;
  else {
    // A date format, yet the export wrote date-times ("31/01/2026 23:55:00"): read the time too.
    source += `(?:[T${spaceMark}]+`;
    group('\\d{1,2}', 'hour');
    source += ':';
    group('\\d{2}', 'minute');
    source += '(?::';
    group('\\d{2}', 'second');
    source += ')?)?';
  }
  const complete = `${source}$`;
  return { source: (space) => complete.replaceAll(spaceMark, space), groups };
}

function escapeLiteral(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, `[${spaceMark}]+`);
}
