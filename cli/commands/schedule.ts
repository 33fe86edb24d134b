/** `pinrecon schedule`: long-running; fires the config's schedules on their cron expressions. */
import type { Command } from 'commander';
import { runScheduler } from '../../pipelines/ops/schedule.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';

interface ScheduleCommandOptions extends GlobalOptions {
  graceSeconds?: string;
}

export function registerSchedule(program: Command): void {
  withGlobalOptions(
    program
      .command('schedule')
      .description('run the jobs in "schedules" of the config on their cron expressions (stop with SIGTERM or Ctrl-C)')
      .option('--grace-seconds <n>', 'after SIGTERM, how long the running job may take to finish', '60'),
  ).action(
    action<ScheduleCommandOptions, []>(async ({ config, file, output }, options) => {
      const outcomes = await runScheduler(config, output, {
        configFile: file,
        graceMs: Number(options.graceSeconds ?? 60) * 1000,
      });
      output.document({ ok: true, jobs: outcomes });
    }),
  );
}
