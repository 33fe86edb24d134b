/** How amounts, counts and dates look in the workbook and the email: exact, in the currency's symbol. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, formatCount, formatFileSize, moneyFormat, wallClockDate } from '../../reports/formats.js';

describe('report formats', () => {
  it('writes file sizes in bytes, KB, MB or GB, never as "0.0 MB"', () => {
    expect(formatFileSize(0)).toBe('0 bytes');
    expect(formatFileSize(1)).toBe('1 byte');
    expect(formatFileSize(1023)).toBe('1023 bytes');
    expect(formatFileSize(1024)).toBe('1.0 KB');
    expect(formatFileSize(2000)).toBe('2.0 KB');
    expect(formatFileSize(512 * 1024)).toBe('512.0 KB');
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatFileSize(15 * 1024 * 1024)).toBe('15.0 MB');
    expect(formatFileSize(3 * 1024 ** 3)).toBe('3.0 GB');
  });

  it('rounds exact decimals half away from zero with integer arithmetic', () => {
    expect(formatAmount('123456.7850', 'BRL')).toBe('R$ 123,456.79');
    expect(formatAmount('0.0049', 'USD')).toBe('US$ 0.00');
    expect(formatAmount('-0.0050', 'EUR')).toBe('-€ 0.01');
    expect(formatAmount('-0.0049', 'EUR')).toBe('€ 0.00');
    expect(formatAmount('99999999999999.9950', null)).toBe('100,000,000,000,000.00');
    expect(formatAmount(null, 'BRL')).toBe('—');
    expect(formatAmount('12', 'XYZ')).toBe('XYZ 12.00');
  });

  it('agrees with cents computed from the exact value for any 4-decimal amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (tenThousandths) => {
        const negative = tenThousandths < 0n;
        const abs = negative ? -tenThousandths : tenThousandths;
        const text = `${negative ? '-' : ''}${abs / 10000n}.${String(abs % 10000n).padStart(4, '0')}`;
        const cents = (abs + 50n) / 100n;
        const sign = negative && cents > 0n ? '-' : '';
        const expected = `${sign}${(cents / 100n).toLocaleString('en-US')}.${String(cents % 100n).padStart(2, '0')}`;
        expect(formatAmount(text, null)).toBe(expected);
      }),
    );
  });

  it('formats money cells with the currency symbol, up to 4 decimals as stored', () => {
    expect(moneyFormat('BRL')).toBe('"R$ "#,##0.00##;-"R$ "#,##0.00##');
    expect(moneyFormat('usd')).toContain('"US$ "');
    expect(moneyFormat('JPY')).toBe('"¥ "#,##0;-"¥ "#,##0');
    expect(moneyFormat(null)).toBe('#,##0.00##;-#,##0.00##');
    expect(formatCount('1234567')).toBe('1,234,567');
  });

  it('turns an instant into the wall-clock time of the zone, across the day boundary', () => {
    expect(wallClockDate(new Date('2025-03-01T02:30:00Z'), 'America/Sao_Paulo').toISOString()).toBe(
      '2025-02-28T23:30:00.000Z',
    );
    expect(wallClockDate(new Date('2025-07-01T12:00:00Z'), 'Europe/Lisbon').toISOString()).toBe(
      '2025-07-01T13:00:00.000Z',
    );
  });
});
