/**
 * `pinrecon schedule`: fires the config's `schedules` on their cron expressions in the configured time
 * zone. Each job runs as its own `pinrecon` child process (so a crashing job cannot take the scheduler
 * down, and memory is returned after every job), one at a time: a job that fires while another runs waits
 * its turn, so two jobs never hold the database at once. SIGTERM/SIGINT stop the timers, let the running
 * job finish (or stop it after a grace period: every job is resumable) and exit cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Cron } from 'croner';
import { ConfigError } from '../../core/errors.js';
import { packageRoot } from '../../core/paths.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { periodEnd, periodStart, minDate, resolvePeriod, todayIn } from '../../core/calendar.js';

export type Schedule = Config['schedules'][number];

export interface SchedulerOptions {
  /** The config file the jobs are started with (so they see exactly what the scheduler saw). */
  configFile?: string;
  /** How long a running job may take to finish after SIGTERM before it is stopped. */
  graceMs?: number;
  /** Resolves when the scheduler should stop (tests); SIGTERM and SIGINT always stop it. */
  stopSignal?: Promise<void>;
}

export interface JobOutcome {
  schedule: string;
  args: string[];
  exitCode: number | null;
  seconds: number;
}

/** The command line of one scheduled job, with the period resolved at fire time. */
export function jobArguments(schedule: Schedule, timezone: string, now: Date = new Date()): string[] {
  const today = todayIn(timezone, now);
  const period = resolvePeriod(schedule.period, today);
  switch (schedule.job) {
    case 'run':
      return [
        'run',
        '--period',
        period,
        ...(schedule.ledger ? ['--ledger', schedule.ledger] : []),
        ...(schedule.email ? ['--email'] : []),
      ];
    case 'extract':
      return ['extract', '--from', periodStart(period), '--to', minDate(periodEnd(period), today)];
    case 'reconcile':
      return ['reconcile', '--period', period];
    case 'report':
      return ['report', '--period', period, ...(schedule.email ? ['--email'] : [])];
    case 'catalog':
      return ['catalog'];
  }
}

/** Refuses a cron expression croner cannot read, naming the config file and the key. */
export function validateSchedules(config: Config, configFile?: string): void {
  config.schedules.forEach((schedule, index) => {
    try {
      new Cron(schedule.cron, { timezone: config.timezone, paused: true }).stop();
    } catch (error) {
      const key = `schedules.${index}.cron`;
      throw new ConfigError(
        `${configFile ?? 'built-in defaults'}: ${key}: "${schedule.cron}" is not a cron expression (${(error as Error).message}).`,
        configFile,
        key,
      );
    }
  });
}

export async function runScheduler(
  config: Config,
  output: Output,
  options: SchedulerOptions = {},
): Promise<JobOutcome[]> {
  if (config.schedules.length === 0) {
    throw new ConfigError(
      `${options.configFile ?? 'built-in defaults'}: schedules: no schedules to run; add entries to "schedules" (see config/pinrecon.example.json).`,
      options.configFile,
      'schedules',
    );
  }
  validateSchedules(config, options.configFile);
  const cli = path.join(packageRoot(), 'dist', 'cli', 'main.js');
  const outcomes: JobOutcome[] = [];
  let queue: Promise<void> = Promise.resolve();
  let current: ChildProcess | undefined;
  let stopping = false;
  const waiting = new Set<string>();

  const runJob = (schedule: Schedule, firedAt: Date): void => {
    if (stopping || waiting.has(schedule.name)) return; // already queued: one pending run per schedule is enough
    waiting.add(schedule.name);
    queue = queue.then(async () => {
      waiting.delete(schedule.name);
      if (stopping) return;
      const args = jobArguments(schedule, config.timezone, firedAt);
      const started = Date.now();
      output.info(`schedule ${schedule.name}: starting pinrecon ${args.join(' ')}`);
      const exitCode = await new Promise<number | null>((resolve) => {
        current = spawn(
          process.execPath,
          [cli, ...args, ...(options.configFile ? ['--config', options.configFile] : [])],
          {
            stdio: ['ignore', 'inherit', 'inherit'],
            env: process.env,
          },
        );
        current.on('error', (error) => {
          output.error(`schedule ${schedule.name}: could not start the job: ${error.message}`);
          resolve(null);
        });
        current.on('exit', (code) => resolve(code));
      });
      current = undefined;
      const seconds = (Date.now() - started) / 1000;
      outcomes.push({ schedule: schedule.name, args, exitCode, seconds });
      const verdict = exitCode === 0 ? 'succeeded' : `FAILED (exit ${exitCode ?? 'signal'}); the scheduler goes on`;
      output.info(`schedule ${schedule.name}: ${verdict} after ${seconds.toFixed(1)}s`);
    });
  };

  const jobs = config.schedules.map(
    (schedule) =>
      new Cron(schedule.cron, { timezone: config.timezone, name: schedule.name }, (self: Cron) =>
        runJob(schedule, self.currentRun() ?? new Date()),
      ),
  );
  for (const job of jobs) output.info(`schedule ${job.name}: next run ${job.nextRun()?.toISOString() ?? 'never'}`);

  await new Promise<void>((resolve) => {
    const stop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      output.info(`scheduler stopping (${reason}); waiting for the running job, if any`);
      for (const job of jobs) job.stop();
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      const grace = setTimeout(() => {
        if (current) {
          output.warn('the running job did not finish in time: stopping it (it resumes on its next run)');
          current.kill('SIGTERM');
        }
      }, options.graceMs ?? 60_000);
      void queue.then(() => {
        clearTimeout(grace);
        resolve();
      });
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
    void options.stopSignal?.then(() => stop('stop requested'));
  });
  output.info('scheduler stopped');
  return outcomes;
}
