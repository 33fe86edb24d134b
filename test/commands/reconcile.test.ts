/** `pinrecon reconcile`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseReconcile } from '../../cli/commands/reconcile.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'Asia/Tokyo', now: new Date('2026-01-31T16:00:00Z') };

describe('parseReconcile', () => {
  it('resolves previous and current in the configured zone; no as-of means none is passed (today)', () => {
    // 16:00 UTC on 31 January is 1 February in Tokyo.
    expect(parseReconcile({ period: 'current' }, at)).toStrictEqual({ period: '2026-02', allowIncomplete: false });
    expect(parseReconcile({ period: 'previous', asOf: '2026-02-05', allowIncomplete: true }, at)).toStrictEqual({
      period: '2026-01',
      asOf: '2026-02-05',
      allowIncomplete: true,
    });
  });

  it('refuses a bad period or as-of, naming the option', () => {
    expect(() => parseReconcile({ period: '2026-00' }, at)).toThrow(/^--period must be/);
    expect(() => parseReconcile({ period: '2026-01', asOf: '2026-02-29' }, at)).toThrow(/^--as-of must be a date/);
  });
});

describe('pinrecon reconcile (commander, in-process)', () => {
  it('gives the parse its options, and requires --period', async () => {
    const { options } = await driven([
      'reconcile',
      '--period',
      '2026-01',
      '--as-of',
      '2026-02-05',
      '--allow-incomplete',
    ]);
    expect(parseReconcile(options, at)).toStrictEqual({ period: '2026-01', asOf: '2026-02-05', allowIncomplete: true });
    expect((await refused(['reconcile'])).stderr).toContain("required option '--period <YYYY-MM>' not specified");
    expect((await refused(['reconcile', '--period', '2026-01', '--bogus'])).stderr).toContain(
      "error: unknown option '--bogus'",
    );
  });
});
