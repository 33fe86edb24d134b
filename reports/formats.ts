/**
 * How values look in the workbook and the email: currency symbols, Excel number formats, exact amounts
 * as text, and dates as the local wall-clock time of the configured zone (Excel dates have no zone: the
 * cell shows what it holds).
 */
import { TZDate } from '@date-fns/tz';

/** Exact decimal text as DuckDB prints it ("1234.5600"), or null: money is never a float (issue 27: one type). */
export type Decimal = string | null;

export const dateFormat = 'yyyy-mm-dd';
export const dateTimeFormat = 'yyyy-mm-dd hh:mm:ss';
export const integerFormat = '0';
/** Amounts without a currency; up to 4 decimals, as stored. */
export const plainMoneyFormat = '#,##0.00##;-#,##0.00##';

/** Symbols finance teams expect; other currencies show their ISO code. */
const currencySymbols: Record<string, string> = {
  BRL: 'R$',
  USD: 'US$',
  EUR: '€',
  GBP: '£',
  JPY: '¥',
  CNY: 'CN¥',
  INR: '₹',
  CAD: 'CA$',
  AUD: 'A$',
  CHF: 'CHF',
  MXN: 'MX$',
  ARS: 'AR$',
  CLP: 'CLP$',
  COP: 'COL$',
  PEN: 'S/',
  UYU: '$U',
};
/** Currencies without minor units. */
const wholeCurrencies = new Set(['JPY', 'CLP', 'PYG', 'KRW', 'VND', 'ISK']);

/** "R$" for BRL, "US$" for USD, the ISO code for currencies without a listed symbol. */
export function currencySymbol(currency: string): string {
  const code = currency.trim().toUpperCase();
  return currencySymbols[code] ?? code;
}

/** The Excel number format of an amount in `currency` (ISO 4217), e.g. `"R$ "#,##0.00##` for BRL. */
export function moneyFormat(currency: string | null | undefined): string {
  if (!currency) return plainMoneyFormat;
  const symbol = currencySymbol(currency).replace(/"/g, '');
  const number = wholeCurrencies.has(currency.trim().toUpperCase()) ? '#,##0' : '#,##0.00##';
  return `"${symbol} "${number};-"${symbol} "${number}`;
}

/**
 * An exact decimal ("12345.6750") as "R$ 12,345.68" ("-R$ 1.00" when negative): rounded half away from zero to 2
 * decimals with integer arithmetic, so the text is exactly the database's value.
 */
export function formatAmount(exact: string | null, currency: string | null): string {
  if (exact === null) return '—';
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(exact.trim());
  if (!match) return exact;
  const [, sign, whole, fraction = ''] = match;
  const hundredths =
    BigInt(`${whole}${fraction.padEnd(2, '0').slice(0, 2)}`) + (Number(fraction[2] ?? '0') >= 5 ? 1n : 0n);
  const digits = hundredths.toString().padStart(3, '0');
  const grouped = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const negative = sign === '-' && hundredths !== 0n ? '-' : '';
  return `${negative}${currency ? `${currencySymbol(currency)} ` : ''}${grouped}.${digits.slice(-2)}`;
}

/** A file size for people, in the largest unit that keeps it at 1 or more: "512 bytes", "2.0 KB", "15.0 MB". */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  // Compare what is printed, so 1,048,575 bytes reads "1.0 MB", not "1024.0 KB".
  while (Number(value.toFixed(1)) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A count with thousands separators. */
export function formatCount(value: string | number): string {
  return BigInt(value).toLocaleString('en-US');
}

/**
 * A JS Date whose UTC fields are the wall-clock time of `instant` in `timeZone`: what exceljs turns
 * into the Excel serial date a reader in that zone expects to see.
 */
export function wallClockDate(instant: Date, timeZone: string): Date {
  const local = new TZDate(instant.getTime(), timeZone);
  return new Date(
    Date.UTC(
      local.getFullYear(),
      local.getMonth(),
      local.getDate(),
      local.getHours(),
      local.getMinutes(),
      local.getSeconds(),
      local.getMilliseconds(),
    ),
  );
}

/** "YYYY-MM-DD[ HH:MM:SS]" (already local) as the Date exceljs writes as that wall-clock time. */
export function localTextDate(text: string): Date {
  return new Date(`${text.length === 10 ? `${text}T00:00:00` : text.replace(' ', 'T')}Z`);
}

/** A database value as text, null kept (money stays the database's exact decimal text). */
export function nullableText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
