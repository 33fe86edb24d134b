/** How a time is shown to a person: the wall clock of the configured zone, its UTC offset at that instant, the zone. */
import { expect, test } from 'vitest';
import { formatLocalTimeZoned, formatZonedTime, localTimeInstant } from '../../core/zoned-time.js';

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
