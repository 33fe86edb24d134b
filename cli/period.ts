/**
 * The one parser of a `--period` option (issue 31): `YYYY-MM`, or `previous` / `current` (the month before this
 * one, this month) in the configured time zone, as schedules already accept. Commands resolve it here, so
 * `pinrecon report --period previous` in a cron line means the same month as a schedule's `period: previous`.
 */
import { resolvePeriod, todayIn } from '../core/calendar.js';
import { UsageError } from '../core/errors.js';

/**
 * Parses a YYYY-MM option, `previous` or `current` in `timeZone` (the config's: each command's parse is given it, in
 * its ParseContext, rather than reading a zone the action set), naming the option on failure.
 */
export function parsePeriodOption(
  value: string | undefined,
  option: string,
  timeZone: string,
  now: Date = new Date(),
): string {
  const word = value?.trim().toLowerCase();
  if (word === 'previous' || word === 'current') return resolvePeriod(word, todayIn(timeZone, now));
  if (!value || !/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) {
    throw new UsageError(`${option} must be a month written YYYY-MM, "previous" or "current", got "${value ?? ''}".`);
  }
  return value;
}
