/** `pinrecon extract`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { type ExtractCommandOptions, parseExtract } from '../../cli/commands/extract.js';
import { UsageError } from '../../core/errors.js';
import { driven } from './drive.js';

describe('parseExtract', () => {
  it('from the API: a range, searched by paid, created or both', () => {
    expect(parseExtract({ from: '2026-01-01', to: '2026-03-31', by: 'created' })).toStrictEqual({
      fromLanding: false,
      from: '2026-01-01',
      to: '2026-03-31',
      by: 'created',
      dryRun: false,
    });
  });

  it('from the landing files: all of them, or those of a range', () => {
    expect(parseExtract({ by: 'both', fromLanding: true })).toStrictEqual({ fromLanding: true, range: {} });
    expect(parseExtract({ by: 'both', fromLanding: true, from: '2026-01-01' })).toStrictEqual({
      fromLanding: true,
      range: { from: '2026-01-01' },
    });
  });

  it('refuses a missing or bad date, a range backwards, an unknown --by, and --dry-run with --from-landing', () => {
    const parse = (options: Partial<ExtractCommandOptions>) => () => parseExtract({ by: 'both', ...options });
    expect(parse({ from: '2026-01-01' })).toThrow(UsageError);
    expect(parse({ from: '2026-01-01' })).toThrow('--from and --to are required (YYYY-MM-DD), unless --from-landing.');
    expect(parse({ from: '2026-01-32', to: '2026-02-01' })).toThrow('--from must be a date written YYYY-MM-DD');
    expect(parse({ from: '2026-01-01', to: 'tomorrow' })).toThrow('--to must be a date written YYYY-MM-DD');
    expect(parse({ from: '2026-02-01', to: '2026-01-01' })).toThrow('--from (2026-02-01) is after --to (2026-01-01).');
    expect(parse({ from: '2026-01-01', to: '2026-01-31', by: 'sold' })).toThrow(
      '--by must be paid, created or both, got "sold".',
    );
    expect(parse({ fromLanding: true, dryRun: true })).toThrow('--dry-run and --from-landing do not go together');
    expect(parse({ fromLanding: true, to: '2026-13-01' })).toThrow('--to must be a date written YYYY-MM-DD');
  });
});

describe('pinrecon extract (commander, in-process)', () => {
  it('searches by both unless --by says otherwise, and gives the parse every option', async () => {
    const plain = await driven<ExtractCommandOptions>(['extract', '--from', '2026-01-01', '--to', '2026-01-31']);
    expect(parseExtract(plain.options)).toMatchObject({ by: 'both', dryRun: false });
    const dry = await driven<ExtractCommandOptions>([
      ...['extract', '--from', '2026-01-01', '--to', '2026-01-31', '--by', 'paid', '--dry-run'],
    ]);
    expect(parseExtract(dry.options)).toMatchObject({ by: 'paid', dryRun: true });
    const landing = await driven<ExtractCommandOptions>(['extract', '--from-landing']);
    expect(parseExtract(landing.options)).toStrictEqual({ fromLanding: true, range: {} });
  });
});
