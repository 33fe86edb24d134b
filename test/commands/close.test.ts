/** `pinrecon close` and `reopen`'s command lines in-process (issue 27 item 5): parse functions and commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseClose, parseReopen } from '../../cli/commands/close.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('parseClose', () => {
  it('defaults: nothing allowed, no email; the actor as typed, for the action to resolve', () => {
    expect(parseClose({ period: 'previous' }, at)).toEqual({
      period: '2026-02',
      actor: {},
      allowUndecided: false,
      allowOpen: false,
      email: false,
    });
  });

  it('refuses a bad period, naming the option', () => {
    expect(() => parseClose({ period: '2026/01' }, at)).toThrow(/^--period must be a month written YYYY-MM/);
  });
});

describe('parseReopen', () => {
  it('keeps the reason and the actor; refuses a bad period', () => {
    expect(parseReopen({ period: '2026-01', reason: 'late refund', by: 'Ana' }, at)).toEqual({
      period: '2026-01',
      actor: { by: 'Ana' },
      reason: 'late refund',
    });
    expect(() => parseReopen({ period: 'someday', reason: 'x' }, at)).toThrow(/^--period must be/);
  });
});

describe('pinrecon close and reopen (commander, in-process)', () => {
  it('close gives the parse every option it declares', async () => {
    const { options } = await driven([
      ...['close', '--period', '2026-01', '--by', 'Ana', '--identity', 'ana.pem', '--note', 'January close'],
      ...['--allow-undecided', '--allow-open', '--email', '--dry-run'],
    ]);
    expect(parseClose(options, at)).toEqual({
      period: '2026-01',
      actor: { by: 'Ana', identity: 'ana.pem' },
      note: 'January close',
      allowUndecided: true,
      allowOpen: true,
      email: true,
      dryRun: true,
    });
  });

  it('reopen requires --period and --reason', async () => {
    const { options } = await driven(['reopen', '--period', '2026-01', '--reason', 'late refund']);
    expect(parseReopen(options, at)).toEqual({ period: '2026-01', actor: {}, reason: 'late refund' });
    expect((await refused(['reopen', '--period', '2026-01'])).stderr).toContain(
      "required option '--reason <text>' not specified",
    );
  });
});
