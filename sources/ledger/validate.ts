/**
 * Turns one record's cells into a canonical ledger row, or into the list of everything wrong with it
 * (all problems at once, each naming its column), so a person can fix a line in one go.
 *
 * `order_status` is `paid`, `refunded` or `canceled`, case- and accent-insensitive; the only synonyms
 * accepted are the British spelling and the Portuguese words of Brazilian exports (see statusSynonyms).
 */
import { createDateParser, paidAtFromExcelSerial, paidAtFromSheetDate, type PaidAt } from './dates.js';
import { normalizeHeader } from './columns.js';
import { parseDecimalNumber, parseDecimalText, parseExactDecimal, parseIdentifier, type Parsed } from './numbers.js';
import { ExactNumber, type CellValue, type LedgerColumn, type LedgerReadSettings, type LedgerRow } from './types.js';
import { invisibleIn } from '../../core/text-safety.js';

/** Status words (normalized: lowercase, no accents) → canonical status. */
export const statusSynonyms: Record<string, LedgerRow['order_status']> = {
  paid: 'paid',
  pago: 'paid',
  paga: 'paid',
  refunded: 'refunded',
  reembolsado: 'refunded',
  reembolsada: 'refunded',
  estornado: 'refunded',
  estornada: 'refunded',
  canceled: 'canceled',
  cancelled: 'canceled',
  cancelado: 'canceled',
  cancelada: 'canceled',
};

export type RowOutcome = { row: LedgerRow; reason?: undefined } | { reason: string; row?: undefined };

export interface ValueSource {
  /** Numbers are typed cells (XLSX, Parquet DOUBLE), shown rounded to 15 significant digits. */
  sheetNumbers: boolean;
  /** XLSX: a plain number in paid_at is an Excel date serial (see paidAtFromExcelSerial). */
  excelDates?: { date1904: boolean };
}

/** Checks one record: its cells by canonical column, and where it is. */
export type RowValidator = (get: (column: LedgerColumn) => CellValue, sourceLine: number) => RowOutcome;

/** Builds the validator for one import (compiles the date format once). */
export function createRowValidator(
  settings: Pick<LedgerReadSettings, 'decimalSeparator' | 'dateFormat'>,
  source: ValueSource,
): RowValidator {
  const { sheetNumbers, excelDates } = source;
  const parseDate = createDateParser(settings.dateFormat);

  const money = (value: CellValue): Parsed<string> => {
    if (value instanceof ExactNumber) return parseExactDecimal(value.text);
    if (typeof value === 'number') return parseDecimalNumber(value, sheetNumbers);
    if (typeof value === 'string') return parseDecimalText(value, settings.decimalSeparator);
    return { error: `${describe(value)} is not a number` };
  };

  const paidAt = (value: CellValue): Parsed<PaidAt> => {
    if (value instanceof Date) return paidAtFromSheetDate(value);
    if (typeof value === 'string') return parseDate(value);
    if (typeof value === 'number' && excelDates) return paidAtFromExcelSerial(value, excelDates.date1904);
    return { error: `${describe(value)} is not a date` };
  };

  return (get: (column: LedgerColumn) => CellValue, sourceLine: number): RowOutcome => {
    const problems: string[] = [];
    const required = (column: LedgerColumn): CellValue => {
      const value = get(column);
      if (value === null || (typeof value === 'string' && value.trim() === '')) {
        problems.push(`${column}: missing`);
        return null;
      }
      return value;
    };
    const check = <T>(column: LedgerColumn, value: CellValue, parse: (v: CellValue) => Parsed<T>): T | undefined => {
      if (value === null) return undefined;
      const parsed = parse(value);
      if (parsed.error !== undefined) problems.push(`${column}: ${parsed.error}`);
      return parsed.value;
    };

    const reference = check('partner_reference', required('partner_reference'), partnerReference);
    const productId = check('product_id', required('product_id'), (v) =>
      typeof v === 'string' || typeof v === 'number'
        ? parseIdentifier(v)
        : v instanceof ExactNumber
          ? parseIdentifier(v.text)
          : { error: `${describe(v)} is not a product id` },
    );
    const paidAtValue = required('paid_at');
    const paid = check('paid_at', paidAtValue, paidAt);
    const salesPrice = check('sales_price', required('sales_price'), money);
    const expectedCost = check('expected_cost', required('expected_cost'), money);
    const currency = check('currency_code', required('currency_code'), (v) =>
      code(v, 3, 3, 'an ISO 4217 currency code (3 letters)'),
    );
    const countryValue = get('country_code');
    const country =
      countryValue === null || (typeof countryValue === 'string' && countryValue.trim() === '')
        ? null
        : check('country_code', countryValue, (v) => code(v, 2, 3, 'an ISO 3166 country code (2 or 3 letters)'));
    const status = check('order_status', required('order_status'), orderStatus);

    if (problems.length > 0) return { reason: problems.join('; ') };
    return {
      row: {
        partner_reference: reference!,
        product_id: productId!,
        paid_local: paid!.local ?? null,
        paid_instant: paid!.instant ?? null,
        paid_at_raw: paidAtValue instanceof Date ? paidAtValue.toISOString() : String(paidAtValue),
        sales_price: salesPrice!,
        expected_cost: expectedCost!,
        currency_code: currency!,
        country_code: country ?? null,
        order_status: status!,
        source_line: sourceLine,
      },
    };
  };
}

function text(value: CellValue): Parsed<string> {
  if (typeof value === 'string') return { value };
  if (value instanceof ExactNumber) return { value: value.text };
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { value: String(value) };
  return { error: `${describe(value)} is not a reference` };
}

/**
 * A reference as text, refused when it holds a NUL or a byte order mark: neither is typed by a person, and
 * both are invisible when printed, so two references that look the same would not match (issue 18).
 */
function partnerReference(value: CellValue): Parsed<string> {
  const parsed = text(value);
  if (parsed.value === undefined) return parsed;
  const nul = parsed.value.indexOf('\u0000');
  if (nul >= 0) {
    return {
      error: `holds a NUL byte at character ${nul + 1}: the file is damaged or not plain text; export the ledger again`,
    };
  }
  const bom = parsed.value.indexOf('\uFEFF');
  if (bom >= 0) {
    return {
      error:
        `holds a byte order mark (U+FEFF) at character ${bom + 1}, which starts a file, not a reference: ` +
        'were two exports joined into one file? Export the ledger again as one file',
    };
  }
  // Issue 34: a zero-width space, NBSP, soft hyphen, word joiner, line separator or direction override is not seen.
  const invisible = invisibleIn(parsed.value);
  if (invisible) {
    return {
      error:
        `holds an invisible character (${invisible.what}) at character ${invisible.at}: the reference would not ` +
        'match the one that looks the same; remove it in the ledger and export it again',
    };
  }
  return parsed;
}

const letterCodes: Record<string, RegExp> = { '3,3': /^[A-Za-z]{3}$/, '2,3': /^[A-Za-z]{2,3}$/ };

function code(value: CellValue, min: number, max: number, what: string): Parsed<string> {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (!letterCodes[`${min},${max}`]!.test(trimmed)) return { error: `${describe(value)} is not ${what}` };
  return { value: trimmed.toUpperCase() };
}

function orderStatus(value: CellValue): Parsed<LedgerRow['order_status']> {
  // Plain lowercase first: accent folding (NFD) is only needed for the rare accented spelling.
  const status =
    typeof value === 'string'
      ? (statusSynonyms[value.trim().toLowerCase()] ?? statusSynonyms[normalizeHeader(value)])
      : undefined;
  if (!status) return { error: `${describe(value)} is not paid, refunded or canceled` };
  return { value: status };
}

function describe(value: CellValue): string {
  if (value instanceof Date) return `the date ${value.toISOString()}`;
  if (value instanceof ExactNumber) return value.text;
  return typeof value === 'string' ? `"${value.trim()}"` : String(value);
}
