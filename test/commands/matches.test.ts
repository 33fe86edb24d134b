/** `pinrecon matches list|confirm|reject` command lines in-process (issue 27 item 5): parse functions and wiring. */
import { describe, expect, it } from 'vitest';
import {
  type DecideOptions,
  type ListOptions,
  parseMatchesDecide,
  parseMatchesList,
} from '../../cli/commands/matches.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('matches list', () => {
  it('a table of every suggestion unless --status, --format or --json say otherwise', async () => {
    const plain = await driven<ListOptions>(['matches', 'list', '--period', 'previous']);
    expect(parseMatchesList(plain.options, at)).toEqual({ period: '2026-02', format: 'table' });
    const line = ['matches', 'list', '--period', '2026-01', '--status', 'confirmed', '--json'];
    expect(parseMatchesList((await driven<ListOptions>(line)).options, at)).toEqual({
      period: '2026-01',
      status: 'confirmed',
      format: 'json',
    });
  });

  it('refuses an unknown status or format', () => {
    const list = (options: Partial<ListOptions>) => () =>
      parseMatchesList({ period: '2026-01', format: 'table', ...options }, at);
    expect(list({ status: 'maybe' })).toThrow(UsageError);
    expect(list({ status: 'maybe' })).toThrow(/^--status must be one of .*confirmed.*, got "maybe"\.$/);
    expect(list({ format: 'html' })).toThrow('--format must be one of table, csv, json, got "html".');
  });
});

describe('matches confirm and reject', () => {
  it('take several suggestion ids, the note and who decides', async () => {
    const confirm = await driven<DecideOptions>(['matches', 'confirm', 's1', 's2', '--by', 'Ana']);
    expect(parseMatchesDecide('confirm', confirm.options, confirm.args[0] as string[])).toEqual({
      verb: 'confirm',
      suggestionIds: ['s1', 's2'],
      note: null,
      actor: { by: 'Ana' },
    });
    const reject = await driven<DecideOptions>(['matches', 'reject', 's1', '--note', 'another order']);
    expect(parseMatchesDecide('reject', reject.options, reject.args[0] as string[])).toMatchObject({
      note: 'another order',
    });
    expect((await refused(['matches', 'confirm'])).stderr).toContain("missing required argument 'suggestionId'");
  });

  it('a rejection needs a note saying why', () => {
    for (const note of [undefined, '  '])
      expect(() => parseMatchesDecide('reject', { note }, ['s1'])).toThrow(
        'matches reject needs --note: say why the two are not the same purchase.',
      );
  });
});
