/**
 * The extraction plan: the date range cut into calendar windows (never across a month boundary, never
 * longer than `extract.maxWindowDays`), one per search flag, each marked fetch / re-fetch / skip against the
 * completed-window checkpoints in `extract_windows`.
 */
import { addDays, maxDate, minDate, periodEnd, periodOf } from '../../core/calendar.js';

export type SearchFlag = 'paid' | 'created';
export type SearchBy = SearchFlag | 'both';

export interface ExtractWindow {
  /** First day, YYYY-MM-DD, inclusive. */
  start: string;
  /** Last day, YYYY-MM-DD, inclusive. */
  end: string;
  flag: SearchFlag;
}

/** A window already extracted, as recorded in `extract_windows`. */
export interface CompletedWindow extends ExtractWindow {
  /** The calendar date (configured zone) the checkpoint was committed. */
  completedOn: string;
}

export type WindowAction = 'fetch' | 'refetch' | 'skip';

export interface PlannedWindow extends ExtractWindow {
  action: WindowAction;
  /** Why this action, for the dry run and the log. */
  reason: string;
}

export function flagsFor(by: SearchBy): SearchFlag[] {
  return by === 'both' ? ['paid', 'created'] : [by];
}

/** Inclusive length of a window in days. */
export function windowDays(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

/**
 * Cuts [from, to] into windows: each month on its own, and within a month consecutive blocks of
 * `maxWindowDays` counted from the 1st, so the same day always falls in the same window whatever range
 * is asked (checkpoints of earlier runs stay reusable). Windows of one range come in date order, with
 * both flags of a window next to each other.
 */
export function planWindows(from: string, to: string, by: SearchBy, maxWindowDays: number): ExtractWindow[] {
  if (from > to) throw new RangeError(`the range starts (${from}) after it ends (${to})`);
  if (!Number.isInteger(maxWindowDays) || maxWindowDays < 1)
    throw new RangeError(`maxWindowDays must be a positive integer, got ${maxWindowDays}`);
  const windows: ExtractWindow[] = [];
  for (
    let monthStart = `${periodOf(from)}-01`;
    monthStart <= to;
    monthStart = addDays(periodEnd(periodOf(monthStart)), 1)
  ) {
    const monthLast = periodEnd(periodOf(monthStart));
    for (let blockStart = monthStart; blockStart <= monthLast; blockStart = addDays(blockStart, maxWindowDays)) {
      const blockEnd = minDate(addDays(blockStart, maxWindowDays - 1), monthLast);
      const start = maxDate(blockStart, from);
      const end = minDate(blockEnd, to);
      if (start > end) continue;
      for (const flag of flagsFor(by)) windows.push({ start, end, flag });
    }
  }
  return windows;
}

/**
 * Marks each window: `skip` when a completed window of the same flag covers it, was fetched after it had
 * ended, and it lies before the lookback; `refetch` when covered but recent (statuses still change) or
 * fetched while still open; `fetch` otherwise.
 */
export function markWindows(
  windows: ExtractWindow[],
  completed: CompletedWindow[],
  today: string,
  lookbackDays: number,
): PlannedWindow[] {
  const lookbackStart = addDays(today, -lookbackDays);
  return windows.map((window) => {
    const cover = completed.find((c) => c.flag === window.flag && c.start <= window.start && c.end >= window.end);
    if (!cover) return { ...window, action: 'fetch', reason: 'not extracted yet' };
    const coveredBy = `${cover.start}..${cover.end} on ${cover.completedOn}`;
    if (cover.completedOn <= window.end)
      return { ...window, action: 'refetch', reason: `extracted ${coveredBy}, before the window had ended` };
    if (window.end >= lookbackStart)
      return {
        ...window,
        action: 'refetch',
        reason: `extracted ${coveredBy}, but within the ${lookbackDays}-day lookback`,
      };
    return { ...window, action: 'skip', reason: `done (${coveredBy})` };
  });
}
