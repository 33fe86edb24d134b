/**
 * Money and integers as finance writes them, turned into exact decimal text (`-1234.56`) for DECIMAL(18,4):
 * never through a float. With decimal separator `.` the thousands separator is `,`; with `,` it is `.`;
 * spaces (also no-break and thin spaces) group thousands in both. Malformed and ambiguous numbers are
 * errors with a reason a person can act on.
 */

export type Parsed<T> = { value: T; error?: undefined } | { error: string; value?: undefined };

export const maxDecimals = 4;
/** DECIMAL(18,4) holds 14 integer digits. */
export const maxIntegerDigits = 14;
/** Binary doubles hold 15 significant decimal digits exactly (Excel shows no more either). */
const maxFloatDigits = 15;

const patterns = {
  '.': /^([+-])?(\d{1,3}(?:([, \u00A0\u202F])\d{3})(?:\3\d{3})*|\d+)(?:\.(\d+))?$/,
  ',': /^([+-])?(\d{1,3}(?:([. \u00A0\u202F])\d{3})(?:\3\d{3})*|\d+)(?:,(\d+))?$/,
} as const;

/** A currency symbol or code before or after the amount ("R$ 10,30", "10.30 USD"). */
const currencyDecoration = /^(?:R\$|US\$|\$|€|£|[A-Z]{3})\s*(?=[-+(\d])|(?<=[\d)])\s*(?:R\$|US\$|\$|€|£|[A-Z]{3})$/g;

/**
 * The bare number of an amount as spreadsheets export it: without a currency symbol or code, and with the
 * accountants' parentheses for a negative amount turned into a minus sign.
 */
function withoutMoneyDecoration(text: string): string {
  const bare = text.replace(currencyDecoration, '').trim();
  const parenthesized = /^\((.+)\)$/.exec(bare);
  return parenthesized ? `-${parenthesized[1]!.trim()}` : bare;
}

/** Parses a decimal written as text with the given decimal separator. */
export function parseDecimalText(text: string, decimalSeparator: '.' | ','): Parsed<string> {
  const trimmed = text.trim();
  if (trimmed === '') return { error: 'empty' };
  const match = patterns[decimalSeparator].exec(withoutMoneyDecoration(trimmed));
  const example = decimalSeparator === '.' ? '1,234.56' : '1.234,56';
  if (!match) {
    return {
      error:
        `malformed number "${trimmed}": expected a number like ${example} ` +
        `(decimal separator "${decimalSeparator}", ledger.decimalSeparator)`,
    };
  }
  const [, sign = '', integerPart = '', groupSeparator, decimals] = match;
  const punctuationGroup = groupSeparator === ',' || groupSeparator === '.';
  // "1,234" under "." could be 1234 or, from a decimal-comma file, 1.234: refuse to guess.
  if (punctuationGroup && decimals === undefined && integerPart.split(groupSeparator).length === 2) {
    const [whole, part] = integerPart.split(groupSeparator) as [string, string];
    const otherSeparator = decimalSeparator === '.' ? ',' : '.';
    return {
      error:
        `ambiguous number "${trimmed}": with decimal separator "${decimalSeparator}" it reads ${whole}${part}, ` +
        `but written with decimal "${otherSeparator}" it means ${whole}.${part}; ` +
        `write its decimals (like ${example}) or check ledger.decimalSeparator`,
    };
  }
  const digits = groupSeparator ? integerPart.split(groupSeparator).join('') : integerPart;
  return normalize(sign, digits, decimals ?? '', trimmed);
}

/**
 * Parses a number that arrived as a binary double (XLSX cell, JSON number). Excel keeps 15 significant
 * digits, so XLSX values are rounded to 15 (removing float noise like 30.299999999999997); a JSON number
 * with more than 15 significant digits cannot be read exactly and is refused.
 */
export function parseDecimalNumber(value: number, roundToFloatPrecision: boolean): Parsed<string> {
  if (!Number.isFinite(value)) return { error: `not a finite number (${value})` };
  const text = roundToFloatPrecision ? String(Number(value.toPrecision(maxFloatDigits))) : String(value);
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return { error: `number ${text} is out of range` };
  const [, sign = '', digits = '', decimals = ''] = match;
  if ((digits + decimals).replace(/^0+/, '').length > maxFloatDigits) {
    return {
      error:
        `number ${text} has more than ${maxFloatDigits} significant digits ` +
        `and cannot be read exactly; write it as text`,
    };
  }
  return normalize(sign, digits, decimals, text);
}

/** A decimal already in canonical text (Parquet numbers cast by DuckDB: `-12.3400`). */
export function parseExactDecimal(text: string): Parsed<string> {
  const match = /^([+-])?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return { error: `malformed number "${text}"` };
  return normalize(match[1] ?? '', match[2] ?? '', match[3] ?? '', text);
}

function normalize(sign: string, digits: string, decimals: string, shown: string): Parsed<string> {
  const significantDecimals = decimals.replace(/0+$/, '');
  if (significantDecimals.length > maxDecimals)
    return { error: `number "${shown}" has more than ${maxDecimals} decimals` };
  const integer = digits.replace(/^0+(?=\d)/, '');
  if (integer.length > maxIntegerDigits)
    return { error: `number "${shown}" is too large (at most ${maxIntegerDigits} integer digits)` };
  const negative = sign === '-' && /[1-9]/.test(integer + significantDecimals);
  return { value: `${negative ? '-' : ''}${integer}${significantDecimals ? `.${significantDecimals}` : ''}` };
}

/** A positive whole number (product ids): digits only as text, or an integral number. */
export function parseIdentifier(value: string | number): Parsed<bigint> {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value <= 0) return { error: `${value} is not a positive whole number` };
    return { value: BigInt(value) };
  }
  const trimmed = value.trim();
  if (!/^\d{1,18}$/.test(trimmed) || /^0+$/.test(trimmed))
    return { error: `"${trimmed}" is not a positive whole number` };
  return { value: BigInt(trimmed) };
}
