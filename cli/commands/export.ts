/**
 * `pinrecon export --period P [--format parquet|csv|arrow] [--layout flat|hive] [--out DIR]`: writes the period's
 * marts and the tables beside them for other tools (pipelines/analysts/export.ts).
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { UsageError } from '../../core/errors.js';
import type { ExportFormat, ExportLayout } from '../../pipelines/analysts/export.js';
import { lockedByAnotherProcess, Warehouse } from '../../core/warehouse.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { action, parsePeriodOption, withGlobalOptions, type GlobalOptions } from '../context.js';
import { openForReading } from '../../pipelines/analysts/query.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';

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
      const warehouse = await openBusyAware(config, output);
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

/**
 * The database itself (so the export is recorded in pipeline_runs), or, while a job holds it, the read
 * path of `pinrecon query` (the published snapshot): an export never waits for a job's lock.
 */
async function openBusyAware(config: Config, output: Output): Promise<Warehouse> {
  // No database yet: openForReading says so (rather than creating an empty one).
  if (!existsSync(config.database)) return openForReading(config, output);
  try {
    return await Warehouse.open(config.database, warehouseSettings(config, { lockWaitSeconds: 0 }));
  } catch (error) {
    if (!lockedByAnotherProcess(error)) throw error;
    return openForReading(config, output);
  }
}
