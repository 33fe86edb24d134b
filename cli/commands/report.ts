/**
 * `pinrecon report`: writes the period's Excel workbook and prints its path; with --email, sends it; with
 * --dry-run, also prints the path of the .eml written instead.
 */
import type { Command } from 'commander';
import { writeReport } from '../../pipelines/report/report.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { parseDateOption, periodOption, type ParseContext } from '../options.js';

export interface ReportCommandOptions extends GlobalOptions {
  period?: string;
  asOf?: string;
  email?: boolean;
  dryRun?: boolean;
}

export interface ReportRequest {
  period: string;
  asOf?: string;
  email?: boolean;
  dryRun?: boolean;
}

/** The command line of `report`, checked (issue 27: pure, tested in-process). */
export function parseReport(options: ReportCommandOptions, at: ParseContext): ReportRequest {
  const period = periodOption(options.period, at);
  const asOf = parseDateOption(options.asOf, '--as-of');
  return { period, asOf, email: options.email, dryRun: options.dryRun };
}

export function registerReport(program: Command): void {
  withGlobalOptions(
    program
      .command('report')
      .description(
        'writes the Excel workbook of a reconciled period (reports.outDir/pinrecon-<period>.xlsx); with --email, ' +
          'sends it',
      )
      .requiredOption('--period <YYYY-MM>', 'the accounting period (reconcile it first)')
      .option(
        '--as-of <YYYY-MM-DD>',
        "the period's reconciliation date (default: the date it was last reconciled as of)",
      )
      .option('--email', 'send the workbook to email.to through email.smtpUrl')
      .option('--dry-run', 'write the email as .eml beside the workbook instead of sending it'),
  ).action(
    action<ReportCommandOptions, []>(async ({ config, output }, options) => {
      const request = parseReport(options, { timeZone: config.timezone });
      const summary = await withJobWarehouse(config, (warehouse) => writeReport(warehouse, config, request, output));
      output.result(summary.workbook);
      if (summary.email?.eml) output.result(summary.email.eml);
      output.document({ ok: true, ...summary });
    }),
  );
}
