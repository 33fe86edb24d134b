/** `pinrecon test`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseTest } from '../../cli/commands/test.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('parseTest', () => {
  it('takes --period previous (in the configured zone) and an as-of date; without one, none is passed', () => {
    expect(parseTest({ period: 'previous' }, at)).toStrictEqual({ period: '2026-02' });
    expect(parseTest({ period: '2026-01', asOf: '2026-02-05' }, at)).toStrictEqual({
      period: '2026-01',
      asOf: '2026-02-05',
    });
  });

  it('refuses a bad period or as-of, naming the option', () => {
    expect(() => parseTest({ period: '2024-13' }, at)).toThrow(UsageError);
    expect(() => parseTest({ period: '2024-13' }, at)).toThrow(/^--period must be a month written YYYY-MM/);
    expect(() => parseTest({ period: '2024-12', asOf: '12/01/2025' }, at)).toThrow(/^--as-of must be a date/);
  });
});

describe('pinrecon test (commander, in-process)', () => {
  it('gives the parse its options, and requires --period', async () => {
    const { options } = await driven(['test', '--period', '2026-01', '--as-of', '2026-02-01']);
    expect(parseTest(options, at)).toStrictEqual({ period: '2026-01', asOf: '2026-02-01' });
    expect((await refused(['test'])).stderr).toContain("required option '--period <YYYY-MM>' not specified");
  });
});
