/**
 * The one parser of a `--period` option (issue 31): `YYYY-MM`, or `previous` / `current` (the month before this
 * one, this month) in the configured time zone, as schedules already accept. Commands resolve it here, so
 * `pinrecon report --period previous` in a cron line means the same month as a schedule's `period: previous`.
 */
import { resolvePeriod, todayIn } from '../core/calendar.js';
import { UsageError } from '../core/errors.js';

/** The zone `previous` and `current` are resolved in: the loaded config's (set by `action`), UTC before it. */
let periodTimeZone = 'UTC';

export function setPeriodTimeZone(timeZone: string): void {
  periodTimeZone = timeZone;
}

/** Parses a YYYY-MM option, `previous` or `current`, naming the option on failure. */
export function parsePeriodOption(
  value: string | undefined,
  option = '--period',
  timeZone: string = periodTimeZone,
  now: Date = new Date(),
): string {
  const word = value?.trim().toLowerCase();
  if (word === 'previous' || word === 'current') return resolvePeriod(word, todayIn(timeZone, now));
  if (!value || !/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) {
    throw new UsageError(`${option} must be a month written YYYY-MM, "previous" or "current", got "${value ?? ''}".`);
  }
  return value;
}
