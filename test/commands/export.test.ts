/** `pinrecon export`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { type ExportCommandOptions, parseExport } from '../../cli/commands/export.js';
import { UsageError } from '../../core/errors.js';
import { driven } from './drive.js';

const at = { timeZone: 'America/Sao_Paulo', now: new Date('2026-03-01T01:00:00Z') };

describe('parseExport', () => {
  it('defaults: parquet files, flat, in reports.outDir; --period previous in the configured zone', async () => {
    const { options } = await driven<ExportCommandOptions>(['export', '--period', 'previous']);
    // 01:00 UTC on 1 March is still February in São Paulo: previous is January.
    expect(parseExport(options, at)).toStrictEqual({ period: '2026-01', format: 'parquet', layout: 'flat' });
  });

  it('takes every option as given', async () => {
    const line = ['export', '--period', '2026-01', '--format', 'arrow', '--layout', 'hive', '--out', 'exports'];
    const { options } = await driven<ExportCommandOptions>(line);
    expect(parseExport(options, at)).toStrictEqual({
      period: '2026-01',
      format: 'arrow',
      layout: 'hive',
      out: 'exports',
    });
  });

  it('refuses an unknown format or layout and a bad period, naming the option', () => {
    const base = { period: '2026-01', format: 'csv', layout: 'flat' };
    expect(() => parseExport({ ...base, format: 'xlsx' }, at)).toThrow(UsageError);
    expect(() => parseExport({ ...base, format: 'xlsx' }, at)).toThrow(
      '--format must be parquet, csv or arrow, got "xlsx".',
    );
    expect(() => parseExport({ ...base, layout: 'nested' }, at)).toThrow(
      '--layout must be flat or hive, got "nested".',
    );
    expect(() => parseExport({ ...base, period: 'last' }, at)).toThrow(/^--period must be a month written YYYY-MM/);
  });
});
