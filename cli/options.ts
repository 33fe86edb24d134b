/**
 * The option checks several commands share (issue 27): a period, a date, a word among choices, a list's output
 * format, an amount, a whole, positive or fractional number. Each is pure (no I/O, no config) and throws a
 * UsageError naming the option, so every command's parse function is a short list of them, tested in-process.
 */
import { isCalendarDate } from '../core/calendar.js';
import { UsageError } from '../core/errors.js';
import { parsePeriodOption } from './period.js';

/** What a parse needs besides the command line: the zone (and moment) `previous` and `current` are resolved in. */
export interface ParseContext {
  timeZone: string;
  now?: Date;
}

/** `--period`: YYYY-MM, `previous` or `current` in the context's zone. */
export function periodOption(value: string | undefined, at: ParseContext, option = '--period'): string {
  return parsePeriodOption(value, option, at.timeZone, at.now);
}

/** Parses a YYYY-MM-DD option, naming the option on failure. */
export function parseDateOption(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isCalendarDate(value)) throw new UsageError(`${option} must be a date written YYYY-MM-DD, got "${value}".`);
  return value;
}

/** One of `choices`; the message lists them as `listed` says (default "one of a, b, c"). */
export function parseChoice<T extends string>(
  value: string,
  choices: readonly T[],
  option: string,
  listed = `one of ${choices.join(', ')}`,
): T {
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`${option} must be ${listed}, got "${value}".`);
  return value as T;
}

export const listFormats = ['table', 'csv', 'json'] as const;
export type ListFormat = (typeof listFormats)[number];

/** A listing's `--format` (table, csv, json); `--json` means json whatever --format says. */
export function parseListFormat(options: { json?: boolean; format: string }): ListFormat {
  return parseChoice(options.json ? 'json' : options.format, listFormats, '--format');
}

/** A non-negative amount of at most 4 decimals, kept as written (money is never a float). */
export function parseAmountOption(value: string | undefined, option: string): string | undefined {
  if (value !== undefined && !/^\d+(\.\d{1,4})?$/.test(value))
    throw new UsageError(`${option} must be a non-negative amount such as 50 or 12.50, got "${value}".`);
  return value;
}

/** A whole number from 0 to `max`, digits only. */
export function parseWholeNumber(value: string, option: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new UsageError(`${option} must be a whole number from 0 to ${max}, got "${value}".`);
  return Number(value);
}

/** A number greater than 0, digits and an optional decimal part. */
export function parsePositiveNumber(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0))
    throw new UsageError(`${option} must be a number greater than 0, got "${value}".`);
  return n;
}

/** A share from 0 to 1 (e.g. 0.05). */
export function parseShare(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || n > 1)
    throw new UsageError(`${option} must be a share between 0 and 1 (e.g. 0.05), got "${value}".`);
  return n;
}

/** Who acts, as typed (--by, --identity): the action resolves it against the config's people (pipelines/people). */
export interface TypedActor {
  by?: string;
  identity?: string;
}

/** The acting person's options of a command that records an act. */
export function typedActor(options: TypedActor): TypedActor {
  return { by: options.by, identity: options.identity };
}
