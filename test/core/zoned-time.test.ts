/** How a time is shown to a person: the wall clock of the configured zone, its UTC offset at that instant, the zone. */
import { expect, test } from 'vitest';
import {
  formatLocalTimeZoned,
  formatZonedTime,
  localTimeInstant,
  localTimeSql,
  ZonedClock,
  zonedTimeParts,
} from '../../core/zoned-time.js';
import { Warehouse } from '../../core/warehouse.js';

test('shows an instant as the zone’s wall clock with its offset and name', () => {
  const instant = Date.parse('2026-02-03T17:05:42Z');
  expect(formatZonedTime(instant, 'America/Sao_Paulo')).toBe('2026-02-03 14:05 -03:00 (America/Sao_Paulo)');
  expect(formatZonedTime(instant, 'America/Sao_Paulo', 'second')).toBe(
    '2026-02-03 14:05:42 -03:00 (America/Sao_Paulo)',
  );
  expect(formatZonedTime(instant, 'UTC')).toBe('2026-02-03 17:05 +00:00 (UTC)');
  expect(formatZonedTime(instant, 'Asia/Kolkata')).toBe('2026-02-03 22:35 +05:30 (Asia/Kolkata)');
});

test('the offset follows daylight saving time', () => {
  expect(formatZonedTime(Date.parse('2026-01-15T12:00:00Z'), 'America/New_York')).toBe(
    '2026-01-15 07:00 -05:00 (America/New_York)',
  );
  expect(formatZonedTime(Date.parse('2026-07-15T12:00:00Z'), 'America/New_York')).toBe(
    '2026-07-15 08:00 -04:00 (America/New_York)',
  );
});

test('a wall-clock text of the zone is the instant it stands for, shown with its offset', () => {
  expect(localTimeInstant('2026-07-15 08:00:00', 'America/New_York').toISOString()).toBe('2026-07-15T12:00:00.000Z');
  expect(localTimeInstant('2026-01-15 07:00', 'America/New_York').toISOString()).toBe('2026-01-15T12:00:00.000Z');
  expect(formatLocalTimeZoned('2025-04-05 07:00:00', 'America/Sao_Paulo')).toBe(
    '2025-04-05 07:00:00 -03:00 (America/Sao_Paulo)',
  );
  // The first hour after clocks go forward (02:30 does not exist in New York on 2026-03-08): an instant, not an error.
  expect(localTimeInstant('2026-03-08 03:30:00', 'America/New_York').toISOString()).toBe('2026-03-08T07:30:00.000Z');
});

test('the SQL form writes the same text as the TypeScript one, offset and zone included', async () => {
  const warehouse = await Warehouse.open(':memory:', { applySchema: false });
  try {
    const instants = ['2026-02-03T17:05:42Z', '2026-07-15T12:00:00Z', '2026-01-15T12:00:00Z', '2026-03-08T07:30:09Z'];
    for (const zone of ['America/Sao_Paulo', 'America/New_York', 'UTC', 'Asia/Kolkata', 'Asia/Kathmandu']) {
      for (const iso of instants) {
        const row = await warehouse.one<{ minute: string; second: string; local: string; none: string | null }>(
          `SELECT ${localTimeSql('t', zone, { zoned: true })} AS minute,
                  ${localTimeSql('t', zone, { zoned: true, seconds: true })} AS second,
                  ${localTimeSql('t', zone)} AS local,
                  ${localTimeSql('NULL::TIMESTAMPTZ', zone, { zoned: true })} AS none
           FROM (SELECT $1::TIMESTAMPTZ AS t)`,
          [iso],
        );
        const instant = Date.parse(iso);
        expect(row!.minute).toBe(formatZonedTime(instant, zone));
        expect(row!.second).toBe(formatZonedTime(instant, zone, 'second'));
        expect(row!.local).toBe(formatZonedTime(instant, zone).split(' ').slice(0, 2).join(' '));
        expect(row!.none).toBeNull();
      }
    }
  } finally {
    warehouse.close();
  }
});

test(
  'one implementation (issue 27): ' + 'the fast clock the simulator uses gives what Intl gives, across clock changes',
  () => {
    // Intl itself, asked once per instant: the slow form the clock replaces.
    const intl = (ms: number, timeZone: string) => {
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
      }).formatToParts(new Date(ms));
      const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
      const local =
        `${part('year')}-${part('month')}-${part('day')} ` + `${part('hour')}:${part('minute')}:${part('second')}`;
      return { local, offset: part('timeZoneName').replace(/^GMT/, '') || '+00:00', timeZone };
    };
    const zones = ['America/Sao_Paulo', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'];
    // Around the 2018 São Paulo and the 2026 Berlin and Lord Howe changes, every 7 minutes and 13 seconds.
    const spans = [
      Date.parse('2018-11-03T12:00:00Z'),
      Date.parse('2026-03-29T00:00:00Z'),
      Date.parse('2026-04-04T14:00:00Z'),
    ];
    for (const timeZone of zones) {
      const clock = new ZonedClock(timeZone);
      for (const start of spans) {
        for (let ms = start; ms < start + 6 * 3_600_000; ms += 433_000) {
          expect(zonedTimeParts(ms, timeZone, 'second'), `${timeZone} ${new Date(ms).toISOString()}`).toEqual(
            intl(ms, timeZone),
          );
          expect(clock.isoLocal(ms).replace('T', ' ')).toBe(intl(ms, timeZone).local);
        }
      }
    }
  },
);
