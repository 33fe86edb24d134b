/**
 * `pinrecon run`: the month-end job (extract, ledger import, reconcile, report, email) with one summary at
 * the end: the table of steps, printed too when a step fails (then the error, exit 1).
 */
import type { Command } from 'commander';
import { MonthEndJobError, runMonthEnd, type RunProgress } from '../../pipelines/ops/month-end.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { parseDateOption, periodOption, type ParseContext } from '../options.js';
import { formatTable } from '../../core/output.js';

export interface RunCommandOptions extends GlobalOptions {
  period?: string;
  ledger?: string;
  asOf?: string;
  email?: boolean;
  dryRun?: boolean;
  allowIncomplete?: boolean;
}

export interface RunRequest {
  period: string;
  asOf?: string;
  ledger?: string;
  email?: boolean;
  dryRun?: boolean;
  allowIncomplete: boolean;
}

/** The command line of `run`, checked (issue 27: pure, tested in-process). */
export function parseRun(options: RunCommandOptions, at: ParseContext): RunRequest {
  const period = periodOption(options.period, at);
  const asOf = parseDateOption(options.asOf, '--as-of');
  return {
    period,
    asOf,
    ledger: options.ledger,
    email: options.email,
    dryRun: options.dryRun,
    allowIncomplete: Boolean(options.allowIncomplete),
  };
}

export function registerRun(program: Command): void {
  withGlobalOptions(
    program
      .command('run')
      .description(
        'the month-end job: extract the period plus the lookback, import the ledger, reconcile, report, email',
      )
      .requiredOption('--period <YYYY-MM>', 'the accounting period')
      .option('--ledger <file>', 'the ledger file to import (default: ledger.path of the config, if it exists)')
      .option('--as-of <YYYY-MM-DD>', 'date the findings are judged at (default: today in the configured time zone)')
      .option('--email', 'send the workbook by email')
      .option('--dry-run', 'with --email: write the message as .eml beside the workbook instead of sending it')
      .option(
        '--allow-incomplete',
        'reconcile and report even if the period is not completely extracted (verdict incomplete)',
      ),
  ).action(
    action<RunCommandOptions, []>(async ({ config, output }, options) => {
      const request = parseRun(options, { timeZone: config.timezone });
      const summary = await withJobWarehouse(config, (warehouse) =>
        runMonthEnd(warehouse, config, request, output),
      ).catch((error: unknown) => {
        if (error instanceof MonthEndJobError) output.result(describeRun(error.progress));
        throw error;
      });
      output.result(describeRun(summary));
      output.document({ ok: true, ...summary });
    }),
  );
}

export function describeRun(summary: RunProgress): string {
  const steps = summary.steps.map((s) => ({
    step: s.step,
    status: s.status,
    seconds: s.seconds.toFixed(1),
    result: s.summary,
  }));
  const failed = summary.steps.find((s) => s.status === 'failed');
  return [
    `pinrecon run ${summary.period} (as of ${summary.asOf}; extracted ${summary.extractRange.from} .. ` +
      `${summary.extractRange.to}) — run ${summary.runId}` +
      (failed ? ` — FAILED at ${failed.step}` : ''),
    formatTable(steps),
  ].join('\n');
}
