/**
 * How an instant is shown to a person: the wall-clock time of the configured zone with its UTC offset and
 * the zone's name, "2026-02-03 14:05 -03:00 (America/Sao_Paulo)". Consoles, the workbook and the email all
 * use this one form (issue 14: close printed São Paulo time and reconcile UTC without a zone, for the same
 * sign-off). The one implementation of zoned time (issue 27): the simulator's clock below is it too.
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
  const clock = clockOf(timeZone);
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  const local = clock.isoLocal(ms).replace('T', ' ');
  return {
    local: precision === 'second' ? local : local.slice(0, 16),
    offset: formatOffset(clock.offsetMinutes(ms)),
    timeZone,
  };
}

/** One clock per zone, kept: a clock remembers the offsets it looked up. */
const clocks = new Map<string, ZonedClock>();
function clockOf(timeZone: string): ZonedClock {
  let clock = clocks.get(timeZone);
  if (!clock) {
    clock = new ZonedClock(timeZone);
    clocks.set(timeZone, clock);
  }
  return clock;
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
  const clock = clockOf(timeZone);
  const offsetAt = (ms: number) => clock.offsetMinutes(ms) * 60_000;
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

const QUARTER_HOUR = 15 * 60_000;

/**
 * Wall-clock time in one IANA time zone, fast enough to format millions of timestamps (the simulator's sales): the
 * UTC offset is looked up once per quarter hour (Intl is slow) and then the local fields are plain arithmetic.
 */
export class ZonedClock {
  private readonly formatter: Intl.DateTimeFormat;
  private readonly offsets = new Map<number, number>();

  constructor(readonly timeZone: string) {
    this.formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  }

  /** Minutes to add to UTC to get local time at instant `ms` (e.g. -180 in São Paulo). */
  offsetMinutes(ms: number): number {
    const bucket = Math.floor(ms / QUARTER_HOUR);
    let offset = this.offsets.get(bucket);
    if (offset === undefined) {
      const at = bucket * QUARTER_HOUR;
      const parts: Record<string, number> = {};
      for (const part of this.formatter.formatToParts(new Date(at))) {
        if (part.type !== 'literal') parts[part.type] = Number(part.value);
      }
      const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
      offset = Math.round((asUtc - at) / 60_000);
      if (this.offsets.size > 200_000) this.offsets.clear(); // bounded: ~5 years of quarter hours
      this.offsets.set(bucket, offset);
    }
    return offset;
  }

  /** The instant at which the local calendar day `date` (YYYY-MM-DD) begins. */
  startOfDay(date: string): number {
    const [y, m, d] = date.split('-').map(Number) as [number, number, number];
    const wall = Date.UTC(y, m - 1, d);
    let guess = wall - this.offsetMinutes(wall) * 60_000;
    guess = wall - this.offsetMinutes(guess) * 60_000; // second pass settles DST edges
    return guess;
  }

  /** Local fields of `ms`, as a Date whose UTC getters read local wall-clock time. */
  private wall(ms: number): Date {
    return new Date(ms + this.offsetMinutes(ms) * 60_000);
  }

  /** "2026-01-31T23:55:00-03:00" */
  isoWithOffset(ms: number, withMillis = false): string {
    return `${this.isoLocal(ms, withMillis)}${formatOffset(this.offsetMinutes(ms))}`;
  }

  /** "2026-01-31T23:55:00" (local time, no offset) */
  isoLocal(ms: number, withMillis = false): string {
    const iso = this.wall(ms).toISOString();
    return withMillis ? iso.slice(0, 23) : iso.slice(0, 19);
  }

  /** "31/01/2026 23:55:00" (local time) */
  brazilian(ms: number): string {
    const iso = this.wall(ms).toISOString();
    return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)} ${iso.slice(11, 19)}`;
  }

  /** The local calendar date of `ms`, YYYY-MM-DD. */
  localDate(ms: number): string {
    return this.wall(ms).toISOString().slice(0, 10);
  }
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+'; // "+00:00" rather than "Z": always an explicit offset
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
