/**
 * `pinrecon findings import|decide|history|list` command lines in-process (issue 27 item 5): their parse functions
 * and their commander wiring.
 */
import { describe, expect, it } from 'vitest';
import {
  type DecideOptions,
  type HistoryOptions,
  type ListOptions,
  parseFindingsDecide,
  parseFindingsHistory,
  parseFindingsImport,
  parseFindingsList,
} from '../../cli/commands/findings.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('parseFindingsImport', () => {
  it('takes the workbook, who decides and --overwrite', async () => {
    const { options, args } = await driven(['findings', 'import', 'w.xlsx', '--by', 'Ana', '--overwrite']);
    expect(parseFindingsImport(options, args[0] as string)).toEqual({
      file: 'w.xlsx',
      actor: { by: 'Ana' },
      overwrite: true,
    });
    expect(parseFindingsImport({}, 'w.xlsx')).toEqual({ file: 'w.xlsx', actor: {}, overwrite: false });
  });
});

describe('parseFindingsDecide', () => {
  const decide = (options: Partial<DecideOptions>, ids: string[] = []) =>
    parseFindingsDecide({ decision: 'investigating', ...options }, ids, at);

  it('by ids: the decision and what it keeps', async () => {
    const { options, args } = await driven<DecideOptions>([
      ...['findings', 'decide', 'f1', 'f2', '--decision', 'timing', '--expected-clear-by', '2026-04-10'],
      ...['--owner', 'ana', '--note', 'bank delay', '--identity', 'ana.pem'],
    ]);
    expect(parseFindingsDecide(options, args[0] as string[], at)).toEqual({
      decision: 'timing',
      note: 'bank delay',
      owner: 'ana',
      expectedClearBy: '2026-04-10',
      actor: { identity: 'ana.pem' },
      chosen: { findingIds: ['f1', 'f2'] },
    });
  });

  it("by a period's filters, several types after --type, amounts kept as written", async () => {
    const { options, args } = await driven<DecideOptions>([
      ...['findings', 'decide', '--decision', 'accepted', '--period', 'previous', '--type', 'unredeemed_key'],
      ...['missing_at_provider', '--undecided', '--max-amount', '12.50', '--max-exposure', '3', '--dry-run'],
    ]);
    expect(parseFindingsDecide(options, args[0] as string[], at)).toEqual({
      decision: 'accepted',
      actor: {},
      chosen: {
        filter: {
          period: '2026-02',
          types: ['unredeemed_key', 'missing_at_provider'],
          undecided: true,
          maxAmount: '12.50',
          maxExposure: '3',
        },
        dryRun: true,
      },
    });
  });

  it('refuses an unknown decision, a bad date, and no choice or two ways of choosing', () => {
    expect(() => decide({ decision: 'ignore' }, ['f1'])).toThrow(UsageError);
    expect(() => decide({ decision: 'ignore' }, ['f1'])).toThrow(/^--decision must be one of .*, got "ignore"\.$/);
    expect(() => decide({ expectedClearBy: '10/04/2026' }, ['f1'])).toThrow(
      '--expected-clear-by must be a date written YYYY-MM-DD',
    );
    expect(() => decide({})).toThrow(/^Name the findings: finding ids/);
    expect(() => decide({ period: '2026-01' }, ['f1'])).toThrow(
      'Choose findings either by id or with --period and filters, not both.',
    );
    expect(() => decide({ maxAmount: '5', dryRun: true }, ['f1'])).toThrow(
      '--max-amount, --dry-run choose findings of a period: give --period YYYY-MM too.',
    );
  });

  it('refuses a filter that is not one, naming the option and what it takes', () => {
    expect(() => decide({ period: '2026-13' })).toThrow(/^--period must be/);
    expect(() => decide({ period: '2026-01', type: ['missing'] })).toThrow(/^--type must be among .*, got "missing"/);
    expect(() => decide({ period: '2026-01', family: 'money' })).toThrow(/^--family must be one of .*, got "money"/);
    for (const [option, value] of [
      ['maxAmount', '-5'],
      ['maxExposure', '1.23456'],
    ] as const) {
      const flag = option === 'maxAmount' ? '--max-amount' : '--max-exposure';
      expect(() => decide({ period: '2026-01', [option]: value })).toThrow(
        `${flag} must be a non-negative amount such as 50 or 12.50, got "${value}".`,
      );
    }
  });
});

describe('parseFindingsHistory', () => {
  it('one finding or a whole period, as a table unless --format or --json', async () => {
    const one = await driven<HistoryOptions>(['findings', 'history', 'f1']);
    expect(parseFindingsHistory(one.options, one.args[0] as string, at)).toEqual({
      format: 'table',
      selector: { findingId: 'f1' },
    });
    const period = await driven<HistoryOptions>(['findings', 'history', '--period', '2026-01', '--json']);
    expect(parseFindingsHistory(period.options, undefined, at)).toEqual({
      format: 'json',
      selector: { period: '2026-01' },
    });
  });

  it('refuses both or neither, and an unknown format', () => {
    const history = (options: Partial<HistoryOptions>, id?: string) =>
      parseFindingsHistory({ format: 'table', ...options }, id, at);
    expect(() => history({})).toThrow('Give either a finding id or --period YYYY-MM.');
    expect(() => history({ period: '2026-01' }, 'f1')).toThrow('Give either a finding id or --period YYYY-MM.');
    expect(() => history({ format: 'xlsx' }, 'f1')).toThrow('--format must be one of table, csv, json, got "xlsx".');
  });
});

describe('parseFindingsList', () => {
  it('the period, --undecided and the format; --period is required', async () => {
    const { options } = await driven<ListOptions>(['findings', 'list', '--period', '2026-01', '--undecided']);
    expect(parseFindingsList(options, at)).toEqual({ period: '2026-01', undecided: true, format: 'table' });
    expect(() => parseFindingsList({ period: '2026-01', format: 'xml' }, at)).toThrow(
      '--format must be one of table, csv, json, got "xml".',
    );
    expect((await refused(['findings', 'list'])).stderr).toContain("required option '--period <YYYY-MM>'");
  });
});
