/**
 * `pinrecon export --period P [--format parquet|csv|arrow] [--layout flat|hive] [--out DIR]`: writes the period's
 * marts and the tables beside them for other tools (pipelines/analysts/export.ts).
 */
import type { Command } from 'commander';
import type { ExportFormat, ExportLayout } from '../../pipelines/analysts/export.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { parseChoice, periodOption, type ParseContext } from '../options.js';
import { openDatabaseOrSnapshot } from '../../pipelines/analysts/query.js';

export interface ExportCommandOptions extends GlobalOptions {
  period?: string;
  format: string;
  layout: string;
  out?: string;
}

export interface ExportRequest {
  period: string;
  format: ExportFormat;
  layout: ExportLayout;
  /** Undefined: reports.outDir. */
  out?: string;
}

/** The command line of `export`, checked (issue 27: pure, tested in-process). */
export function parseExport(options: ExportCommandOptions, at: ParseContext): ExportRequest {
  const period = periodOption(options.period, at);
  const formats: readonly ExportFormat[] = ['parquet', 'csv', 'arrow'];
  const format = parseChoice(options.format, formats, '--format', 'parquet, csv or arrow');
  const layout = parseChoice(options.layout, ['flat', 'hive'] as readonly ExportLayout[], '--layout', 'flat or hive');
  return { period, format, layout, ...(options.out !== undefined && { out: options.out }) };
}

export function registerExport(program: Command): void {
  withGlobalOptions(
    program
      .command('export')
      .description(
        "write a reconciled period's marts (recon_exceptions, recon_summary, recon_bridge, recon_aging), its " +
          'decisions, actions, action events, roll-forward, suggested matches and carried-forward findings, one ' +
          'file each; PINs only as their last 4 characters',
      )
      .requiredOption('--period <YYYY-MM>', 'the reconciled period (or previous, current)')
      .option('--format <format>', 'parquet, csv or arrow (Arrow IPC file)', 'parquet')
      .option('--layout <layout>', 'flat (<mart>-<period>.<ext>) or hive (<mart>/period=<period>/part-0.<ext>)', 'flat')
      .option('--out <dir>', 'directory for the files (default: reports.outDir)'),
  ).action(
    action<ExportCommandOptions, []>(async ({ config, output }, options) => {
      const { period, format, layout, out } = parseExport(options, { timeZone: config.timezone });
      const outDir = out ?? config.reports.outDir;
      // The database itself, so the export is recorded in pipeline_runs; the snapshot while a job holds it.
      const warehouse = await openDatabaseOrSnapshot(config, output, { readOnly: false });
      try {
        // apache-arrow loads only when something is exported (start-up of every other command).
        const { exportPeriod } = await import('../../pipelines/analysts/export.js');
        const summary = await exportPeriod(warehouse, config, { period, format, layout, outDir }, output);
        output.result(summary.files.map((f) => `${f.path}  (${f.rows} rows)`).join('\n'));
        output.document({ ok: true, ...summary });
      } finally {
        warehouse.close();
      }
    }),
  );
}
