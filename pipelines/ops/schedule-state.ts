/**
 * What `pinrecon schedule` keeps in the database between jobs (issue 31): each schedule's last fire time
 * (`schedule_fires`), so a fire time missed while the scheduler was down is run once when it starts again; and
 * each job's outcome with its alert (`schedule_runs`). The scheduler opens the database only between jobs.
 */
import { Cron } from 'croner';
import type { Config } from '../../config/schema.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import type { Output } from '../../core/output.js';
import { publishSnapshot, type Warehouse, withWarehouse } from '../../core/warehouse.js';
import { analystsAccess } from '../keys/private-files.js';

type Schedule = Config['schedules'][number];

/** Fire times looked at when catching up: a per-second cron down for a day is 86,400; beyond, the latest reached. */
const maxFireTimesWalked = 100_000;

/** One scheduled job's outcome, as `schedule_runs` keeps it. */
export interface ScheduleRunRecord {
  schedule: string;
  firedAt: Date;
  caughtUp: boolean;
  command: string;
  startedAt: Date;
  finishedAt: Date;
  exitCode: number | null;
  outcome: 'succeeded' | 'failed' | 'abandoned' | 'not started';
  logLine?: string;
  alertTo?: string[];
  alertStatus?: string;
}

/**
 * Opens the database, runs `work` and closes it; a database that cannot be opened (held by someone's --live
 * query past lockWaitSeconds) is logged and skipped: the scheduler goes on.
 */
export async function withScheduleState<T>(
  config: Config,
  output: Output,
  what: string,
  work: (warehouse: Warehouse) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await withWarehouse(config.database, warehouseSettings(config), work);
  } catch (error) {
    output.error(`scheduler: could not ${what} in ${config.database}: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The latest fire time of each schedule after its recorded one and not after `now`: the one missed while the
 * scheduler was down (at most one per schedule, however many passed). A schedule never seen, or whose cron
 * expression changed, is recorded as seen `now` and has none.
 */
export async function missedFireTimes(
  warehouse: Warehouse,
  config: Config,
  now: Date,
): Promise<{ schedule: Schedule; firedAt: Date }[]> {
  const recorded = new Map(
    (
      await warehouse.all<{ schedule: string; cron: string; last: string }>(
        `SELECT schedule, cron, epoch_ms(last_fired_at)::VARCHAR AS last FROM schedule_fires`,
      )
    ).map((row) => [row.schedule, row]),
  );
  const missed: { schedule: Schedule; firedAt: Date }[] = [];
  for (const schedule of config.schedules) {
    const row = recorded.get(schedule.name);
    if (!row || row.cron !== schedule.cron) {
      await recordFire(warehouse, schedule, now);
      continue;
    }
    const cron = new Cron(schedule.cron, { timezone: config.timezone, paused: true });
    let latest: Date | undefined;
    let next = cron.nextRun(new Date(Number(row.last)));
    for (let walked = 0; next && next <= now && walked < maxFireTimesWalked; walked++) {
      latest = next;
      next = cron.nextRun(next);
    }
    cron.stop();
    if (latest) missed.push({ schedule, firedAt: latest });
  }
  return missed;
}

/** Keeps `firedAt` as the schedule's last fire time. */
export async function recordFire(warehouse: Warehouse, schedule: Schedule, firedAt: Date): Promise<void> {
  await warehouse.run(
    `INSERT OR REPLACE INTO schedule_fires (schedule, cron, last_fired_at) VALUES ($1, $2, $3::TIMESTAMPTZ)`,
    [schedule.name, schedule.cron, firedAt.toISOString()],
  );
}

/** Records a job's outcome, then republishes the analysts' snapshot (after every job, failed or not). */
export async function recordOutcome(warehouse: Warehouse, config: Config, record: ScheduleRunRecord): Promise<void> {
  await warehouse.run(
    `INSERT INTO schedule_runs (schedule, fired_at, caught_up, command, started_at, finished_at, exit_code, outcome,
       log_line, alert_to, alert_status)
     VALUES ($1, $2::TIMESTAMPTZ, $3, $4, $5::TIMESTAMPTZ, $6::TIMESTAMPTZ, $7, $8, $9, $10, $11)`,
    [
      record.schedule,
      record.firedAt.toISOString(),
      record.caughtUp,
      record.command,
      record.startedAt.toISOString(),
      record.finishedAt.toISOString(),
      record.exitCode,
      record.outcome,
      record.logLine ?? null,
      record.alertTo?.join(', ') ?? null,
      record.alertStatus ?? null,
    ],
  );
  await publishSnapshot(warehouse, analystsAccess(config));
}
