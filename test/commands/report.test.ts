/** `pinrecon report`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseReport, type ReportCommandOptions } from '../../cli/commands/report.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'America/Sao_Paulo', now: new Date('2026-03-01T01:00:00Z') };

describe('parseReport', () => {
  it('takes the period as written or as previous/current in the configured zone; as-of and the flags as given', () => {
    expect(parseReport({ period: '2026-01' }, at)).toEqual({ period: '2026-01' });
    // 01:00 UTC on 1 March is still February in São Paulo.
    expect(parseReport({ period: 'previous' }, at).period).toBe('2026-01');
    expect(parseReport({ period: 'current' }, at).period).toBe('2026-02');
    expect(parseReport({ period: '2026-01', asOf: '2026-02-05', email: true, dryRun: true }, at)).toEqual({
      period: '2026-01',
      asOf: '2026-02-05',
      email: true,
      dryRun: true,
    });
  });

  it('refuses a malformed period or as-of date, naming the option', () => {
    const parse = (options: ReportCommandOptions) => () => parseReport(options, at);
    expect(parse({ period: '2025-13' })).toThrow(UsageError);
    expect(parse({ period: '2025-13' })).toThrow('--period must be a month written YYYY-MM, "previous" or "current"');
    expect(parse({ period: '2025-02', asOf: '2025-02-30' })).toThrow(
      '--as-of must be a date written YYYY-MM-DD, got "2025-02-30".',
    );
  });
});

describe('pinrecon report (commander, in-process)', () => {
  it('gives the parse every option it declares', async () => {
    const { options } = await driven([
      'report',
      '--period',
      '2026-01',
      '--as-of',
      '2026-02-05',
      '--email',
      '--dry-run',
    ]);
    expect(parseReport(options, at)).toEqual({ period: '2026-01', asOf: '2026-02-05', email: true, dryRun: true });
  });

  it('requires --period and explains every option in --help', async () => {
    const missing = await refused(['report']);
    expect(missing.error.code).toBe('commander.missingMandatoryOptionValue');
    expect(missing.stderr).toContain("required option '--period <YYYY-MM>' not specified");
    const help = await refused(['report', '--help']);
    expect(help.error.code).toBe('commander.helpDisplayed');
    for (const option of ['--period', '--as-of', '--email', '--dry-run', '--json', '--config'])
      expect(help.stdout).toContain(option);
  });
});
