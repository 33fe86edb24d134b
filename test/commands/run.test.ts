/** `pinrecon run`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseRun } from '../../cli/commands/run.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('parseRun', () => {
  it('defaults: no as-of, no ledger, no email, not incomplete', () => {
    expect(parseRun({ period: 'current' }, at)).toEqual({ period: '2026-03', allowIncomplete: false });
  });

  it('refuses a bad period or as-of, naming the option', () => {
    expect(() => parseRun({ period: 'last' }, at)).toThrow(/^--period must be a month written YYYY-MM/);
    expect(() => parseRun({ period: '2026-01', asOf: '2026-1-5' }, at)).toThrow(
      '--as-of must be a date written YYYY-MM-DD, got "2026-1-5".',
    );
  });
});

describe('pinrecon run (commander, in-process)', () => {
  it('gives the parse every option it declares, and requires --period', async () => {
    const line = ['run', '--period', '2026-01', '--ledger', 'l.csv', '--as-of', '2026-02-05', '--email', '--dry-run'];
    const { options } = await driven([...line, '--allow-incomplete']);
    expect(parseRun(options, at)).toEqual({
      period: '2026-01',
      asOf: '2026-02-05',
      ledger: 'l.csv',
      email: true,
      dryRun: true,
      allowIncomplete: true,
    });
    expect((await refused(['run', '--ledger', 'l.csv'])).error.code).toBe('commander.missingMandatoryOptionValue');
  });
});
