/** `pinrecon schedule`: long-running; fires the config's schedules on their cron expressions. */
import type { Command } from 'commander';
import { runScheduler } from '../../pipelines/ops/schedule.js';
import { UsageError } from '../../core/errors.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';

export interface ScheduleCommandOptions extends GlobalOptions {
  graceSeconds?: string;
}

export interface ScheduleRequest {
  graceMs: number;
}

/**
 * The command line of `schedule`, checked (issue 27: pure, tested in-process). A grace that is not a number was
 * taken as none: the running job was abandoned at once on SIGTERM.
 */
export function parseSchedule(options: ScheduleCommandOptions): ScheduleRequest {
  const value = options.graceSeconds ?? '60';
  if (!/^\d+(\.\d+)?$/.test(value))
    throw new UsageError(`--grace-seconds must be a number of seconds (0 or more), got "${value}".`);
  return { graceMs: Number(value) * 1000 };
}

export function registerSchedule(program: Command): void {
  withGlobalOptions(
    program
      .command('schedule')
      .description('run the jobs in "schedules" of the config on their cron expressions (stop with SIGTERM or Ctrl-C)')
      .option('--grace-seconds <n>', 'after SIGTERM, how long the running job may take to finish', '60'),
  ).action(
    action<ScheduleCommandOptions, []>(async ({ config, file, output }, options) => {
      const { graceMs } = parseSchedule(options);
      const outcomes = await runScheduler(config, output, { configFile: file, graceMs });
      output.document({ ok: true, jobs: outcomes });
    }),
  );
}
