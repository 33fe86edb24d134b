/**
 * `pinrecon export --period P [--format parquet|csv|arrow] [--layout flat|hive] [--out DIR]`: writes the period's
 * marts and the tables beside them for other tools (pipelines/analysts/export.ts).
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { ExportFormat, ExportLayout } from '../../pipelines/analysts/export.js';
import { action, parsePeriodOption, withGlobalOptions, type GlobalOptions } from '../context.js';
import { openDatabaseOrSnapshot } from '../../pipelines/analysts/query.js';

interface ExportCommandOptions extends GlobalOptions {
  period?: string;
  format: string;
  layout: string;
  out?: string;
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
      const period = parsePeriodOption(options.period);
      if (!['parquet', 'csv', 'arrow'].includes(options.format))
        throw new UsageError(`--format must be parquet, csv or arrow, got "${options.format}".`);
      if (!['flat', 'hive'].includes(options.layout))
        throw new UsageError(`--layout must be flat or hive, got "${options.layout}".`);
      const outDir = options.out ?? config.reports.outDir;
      // The database itself, so the export is recorded in pipeline_runs; the snapshot while a job holds it.
      const warehouse = await openDatabaseOrSnapshot(config, output, { readOnly: false });
      try {
        // apache-arrow loads only when something is exported (start-up of every other command).
        const { exportPeriod } = await import('../../pipelines/analysts/export.js');
        const summary = await exportPeriod(
          warehouse,
          config,
          { period, format: options.format as ExportFormat, layout: options.layout as ExportLayout, outDir },
          output,
        );
        output.result(summary.files.map((f) => `${f.path}  (${f.rows} rows)`).join('\n'));
        output.document({ ok: true, ...summary });
      } finally {
        warehouse.close();
      }
    }),
  );
}
