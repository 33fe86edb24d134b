/**
 * How an instant is shown to a person: the wall-clock time of the configured zone with its UTC offset and
 * the zone's name, "2026-02-03 14:05 -03:00 (America/Sao_Paulo)". Consoles, the workbook and the email all
 * use this one form (issue 14: close printed São Paulo time and reconcile UTC without a zone, for the same
 * sign-off).
 */

import { sqlString } from './sql.js';

export interface ZonedTimeParts {
  /** "YYYY-MM-DD HH:MM" or "YYYY-MM-DD HH:MM:SS": the wall clock in the zone. */
  local: string;
  /** "-03:00", "+00:00": the zone's offset from UTC at that instant. */
  offset: string;
  timeZone: string;
}

export function zonedTimeParts(
  instant: Date | number,
  timeZone: string,
  precision: 'minute' | 'second' = 'minute',
): ZonedTimeParts {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(typeof instant === 'number' ? new Date(instant) : instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const seconds = precision === 'second' ? `:${part('second')}` : '';
  // longOffset reads "GMT-03:00", or plain "GMT" at offset zero.
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return {
    local: `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}${seconds}`,
    offset,
    timeZone,
  };
}

/** "2026-02-03 14:05 -03:00 (America/Sao_Paulo)". */
export function formatZonedTime(
  instant: Date | number,
  timeZone: string,
  precision: 'minute' | 'second' = 'minute',
): string {
  const { local, offset } = zonedTimeParts(instant, timeZone, precision);
  return `${local} ${offset} (${timeZone})`;
}

/**
 * A wall-clock text of `timeZone` ("YYYY-MM-DD HH:MM[:SS]", as the SQL of the reports gives it) as shown to a
 * person: "2026-02-03 14:05:00 -03:00 (America/Sao_Paulo)". In the hour a clock is set back, the earlier
 * of the two instants is meant.
 */
export function formatLocalTimeZoned(local: string, timeZone: string): string {
  return `${local} ${zonedTimeParts(localTimeInstant(local, timeZone), timeZone).offset} (${timeZone})`;
}

/** The instant a wall-clock text of `timeZone` stands for. */
export function localTimeInstant(local: string, timeZone: string): Date {
  const [date, time = '00:00:00'] = local.trim().split(/[ T]/);
  const asUtc = Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}Z`);
  // The zone's offset at the guess, then again at the corrected instant (they differ only around a change).
  const offsetAt = (ms: number) => {
    const { local: shown } = zonedTimeParts(ms, timeZone, 'second');
    return Date.parse(`${shown.replace(' ', 'T')}Z`) - ms;
  };
  const first = asUtc - offsetAt(asUtc);
  return new Date(asUtc - offsetAt(first));
}

/**
 * The same texts computed in SQL for a TIMESTAMPTZ column: "YYYY-MM-DD HH:MM[:SS]" in `timeZone`; with `zoned`,
 * followed by the offset and the zone as formatZonedTime writes them: "2026-02-03 14:05 -03:00 (America/Sao_Paulo)".
 */
export function localTimeSql(
  column: string,
  timeZone: string,
  options: { seconds?: boolean; zoned?: boolean } = {},
): string {
  const zone = sqlString(timeZone);
  const local = `strftime(timezone(${zone}, ${column}), '%Y-%m-%d %H:%M${options.seconds ? ':%S' : ''}')`;
  if (!options.zoned) return local;
  const minutes = `datediff('minute', timezone('UTC', ${column}), timezone(${zone}, ${column}))`;
  const offset =
    `CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || lpad((abs(${minutes}) // 60)::VARCHAR, 2, '0') || ':' || ` +
    `lpad((abs(${minutes}) % 60)::VARCHAR, 2, '0')`;
  return `${local} || ' ' || ${offset} || ' (' || ${zone} || ')'`;
}
