/**
 * Value shapes several config sections share (time zones, money, memory sizes, dates), so each section file
 * (issue 27: config split by section) declares its keys without repeating a rule.
 */
import { z } from 'zod';

/** An IANA time zone the runtime knows. */
export const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as "America/Sao_Paulo"');

/** An amount of money: never negative. */
export const money = z.number().nonnegative();

/** A DuckDB memory size: "512MB", "2GB", "1.5GiB". */
export const memorySize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'must be a size such as "512MB" or "2GB"');

/** `memoryLimit`: "auto" (core/memory-policy.ts) or a DuckDB memory size. */
export const memorySetting = z
  .string()
  .regex(/^(auto|\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB))$/i, 'must be "auto" or a size such as "512MB" or "2GB"')
  .transform((text) => (text.toLowerCase() === 'auto' ? 'auto' : text));

/** A calendar date written YYYY-MM-DD that exists (2026-02-30 does not). */
export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine((text) => {
    const time = Date.parse(`${text}T00:00:00Z`);
    return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text;
  }, 'is not a calendar date');

/** Text from an environment variable, as a number (a file's number passes as it is; anything else fails below). */
export const numberFromText = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
