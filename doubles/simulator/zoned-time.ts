/**
 * Wall-clock time in one IANA time zone, fast enough to format millions of timestamps: the UTC offset is
 * looked up once per quarter hour (Intl is slow) and then the local fields are plain arithmetic.
 */

const QUARTER_HOUR = 15 * 60_000;

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

/** Days from `from` to `to` inclusive, both YYYY-MM-DD (calendar arithmetic, no time zone involved). */
export function daysInclusive(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** The calendar day after `date`, YYYY-MM-DD. */
export function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}
