/**
 * `pinrecon schedule`: fires the config's `schedules` on their cron expressions in the configured zone, each job
 * as its own `pinrecon` child process, one at a time (two jobs never hold the database at once). A job that does
 * not succeed sends one alert (reports/alert-email.ts); every outcome is kept in `schedule_runs` and the snapshot
 * republished; a fire time missed while it was down runs once at start (pipelines/ops/schedule-state.ts). SIGTERM
 * lets the running job finish (or stops it after a grace period: every job resumes) and exits cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import path from 'node:path';
import { Cron } from 'croner';
import { ConfigError } from '../../core/errors.js';
import { packageRoot } from '../../core/paths.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { periodEnd, periodStart, minDate, resolvePeriod, todayIn } from '../../core/calendar.js';
import { type AlertFacts, alertRecipients, sendAlert } from '../../reports/alert-email.js';
import {
  missedFireTimes,
  recordFire,
  recordOutcome,
  type ScheduleRunRecord,
  withScheduleState,
} from './schedule-state.js';

export type Schedule = Config['schedules'][number];

export interface SchedulerOptions {
  /** The config file the jobs are started with (so they see exactly what the scheduler saw). */
  configFile?: string;
  /** How long a running job may take to finish after SIGTERM before it is stopped. */
  graceMs?: number;
  /** Resolves when the scheduler should stop (tests); SIGTERM and SIGINT always stop it. */
  stopSignal?: Promise<void>;
  /** First wait before an alert is sent again (default the email's 2000 ms). */
  alertRetryDelayMs?: number;
}

export interface JobOutcome {
  schedule: string;
  args: string[];
  exitCode: number | null;
  seconds: number;
}

/**
 * The command line of one scheduled job, with the period resolved at fire time; an extract runs up to the day it
 * runs (`runAt`: later than the fire time when it catches up a missed one).
 */
export function jobArguments(
  schedule: Schedule,
  timezone: string,
  now: Date = new Date(),
  runAt: Date = now,
): string[] {
  const period = resolvePeriod(schedule.period, todayIn(timezone, now));
  const today = todayIn(timezone, runAt);
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
        `${configFile ?? 'built-in defaults'}: ${key}: "${schedule.cron}" is not a cron expression ` +
          `(${(error as Error).message}).`,
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
      `${options.configFile ?? 'built-in defaults'}: schedules: no schedules to run; add entries to "schedules" ` +
        '(see config/pinrecon.example.json).',
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
  let stoppedByScheduler = false;
  const waiting = new Set<string>();

  const runJob = (schedule: Schedule, firedAt: Date, caughtUp = false): void => {
    if (stopping || waiting.has(schedule.name)) return; // already queued: one pending run per schedule is enough
    waiting.add(schedule.name);
    queue = queue.then(async () => {
      waiting.delete(schedule.name);
      if (stopping) return;
      const args = jobArguments(schedule, config.timezone, firedAt, new Date());
      await withScheduleState(config, output, 'record the fire time', (w) => recordFire(w, schedule, firedAt));
      const startedAt = new Date();
      output.info(`schedule ${schedule.name}: starting pinrecon ${args.join(' ')}`);
      const log = new LastLines();
      stoppedByScheduler = false;
      const ended = await new Promise<{ exitCode: number | null; signal?: string; started: boolean }>((resolve) => {
        current = spawn(
          process.execPath,
          [cli, ...args, ...(options.configFile ? ['--config', options.configFile] : [])],
          { stdio: ['ignore', 'inherit', 'pipe'], env: process.env },
        );
        // The job's lines passed its own printable rule (cli/output.ts); kept to quote its last error in an alert.
        current.stderr?.on('data', (chunk: Buffer) => log.add(chunk.toString('utf8')));
        current.stderr?.pipe(process.stderr, { end: false });
        current.on('error', (error) => {
          output.error(`schedule ${schedule.name}: could not start the job: ${error.message}`);
          log.add(`could not start the job: ${error.message}\n`);
          resolve({ exitCode: null, started: false });
        });
        // 'close', not 'exit': its stderr is read to the end before the alert quotes it.
        current.on('close', (code, signal) => resolve({ exitCode: code, signal: signal ?? undefined, started: true }));
      });
      current = undefined;
      const finishedAt = new Date();
      const seconds = (finishedAt.getTime() - startedAt.getTime()) / 1000;
      outcomes.push({ schedule: schedule.name, args, exitCode: ended.exitCode, seconds });
      const outcome = !ended.started
        ? 'not started'
        : ended.exitCode === 0
          ? 'succeeded'
          : ended.exitCode === null || stoppedByScheduler
            ? 'abandoned'
            : 'failed';
      const verdict =
        outcome === 'succeeded'
          ? 'succeeded'
          : `${outcome.toUpperCase()} (exit ${ended.exitCode ?? ended.signal ?? 'none'}); the scheduler goes on`;
      output.info(`schedule ${schedule.name}: ${verdict} after ${seconds.toFixed(1)}s`);
      const record: ScheduleRunRecord = {
        schedule: schedule.name,
        firedAt,
        caughtUp,
        command: `pinrecon ${args.join(' ')}`,
        startedAt,
        finishedAt,
        exitCode: ended.exitCode,
        outcome,
      };
      if (outcome !== 'succeeded') {
        record.logLine = log.errorLine();
        const facts: AlertFacts = {
          schedule: schedule.name,
          failure: outcome,
          args,
          exitCode: ended.exitCode,
          signal: ended.signal,
          startedAt,
          seconds,
          host: hostname(),
          workingDirectory: process.cwd(),
          configFile: options.configFile && path.resolve(options.configFile),
          database: path.resolve(config.database),
          logLine: record.logLine,
          caughtUp,
        };
        record.alertTo = alertRecipients(config.email);
        record.alertStatus = await sendAlert(config.email, facts, { retryBaseDelayMs: options.alertRetryDelayMs }).then(
          () => 'sent',
          (error: Error) => `not sent: ${error.message}`,
        );
        const alerted = record.alertStatus === 'sent';
        output[alerted ? 'info' : 'error'](
          `schedule ${schedule.name}: alert ${alerted ? `sent to ${record.alertTo.join(', ')}` : record.alertStatus}`,
        );
      }
      await withScheduleState(config, output, 'record the outcome', (w) => recordOutcome(w, config, record));
    });
  };

  // Issue 31: a fire time missed while the scheduler was down runs once, now, before the timers start.
  const missed = await withScheduleState(config, output, 'read the last fire times', (w) =>
    missedFireTimes(w, config, new Date()),
  );
  for (const { schedule, firedAt } of missed ?? []) {
    output.info(
      `schedule ${schedule.name}: missed its fire time ${firedAt.toISOString()} while the scheduler was down; ` +
        'running it once now',
    );
    runJob(schedule, firedAt, true);
  }
  const jobs = config.schedules.map(
    (schedule) =>
      new Cron(schedule.cron, { timezone: config.timezone, name: schedule.name }, (self: Cron) =>
        runJob(schedule, self.currentRun() ?? new Date()),
      ),
  );
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
          stoppedByScheduler = true;
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
    // The "next run" lines say the scheduler is up, so they follow the handlers: a SIGTERM sent on reading them
    // stops it cleanly instead of killing it (on a busy machine it could land between the two).
    for (const job of jobs) output.info(`schedule ${job.name}: next run ${job.nextRun()?.toISOString() ?? 'never'}`);
    void options.stopSignal?.then(() => stop('stop requested'));
  });
  output.info('scheduler stopped');
  return outcomes;
}

/** The last lines a job wrote on stderr, to quote its error in an alert. */
class LastLines {
  private lines: string[] = [];
  private partial = '';

  add(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts.filter((line) => line.trim() !== ''));
    if (this.lines.length > 50) this.lines = this.lines.slice(-50);
  }

  /** The job's last `error:` line (not its "what to do"), else the last line; at most 1,000 characters. */
  errorLine(): string | undefined {
    const all = (this.partial.trim() ? [...this.lines, this.partial] : this.lines).reverse();
    const line =
      all.find((l) => /\berror:/i.test(l) && !/error: what to do:/i.test(l)) ??
      all.find((l) => /\berror\b/i.test(l)) ??
      all[0];
    return line?.slice(0, 1000);
  }
}
