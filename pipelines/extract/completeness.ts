/**
 * The completeness verdict of a period (README "Commands"): a period is complete when completed
 * extract windows (`extract_windows`) cover every day of it by paid date and by creation date, fetched after
 * the period had ended, and no window of it is failed or in flight. Read from the extract checkpoints and the
 * extract runs of `pipeline_runs`; says what is missing, per kind, as day ranges, and the exact
 * `pinrecon extract` commands that fill it. `reconcile`, `run`, `report` and `close` use it, so that no
 * figure of a partially extracted month is ever presented as reconciled.
 */
import type { Config } from '../../config/schema.js';
import { addDays, maxDate, minDate, periodEnd, periodStart, todayIn } from '../../core/calendar.js';
import { JobError } from '../../core/errors.js';
import type { Warehouse } from '../../core/warehouse.js';
import { flagsFor, markWindows, planWindows, type CompletedWindow, type SearchBy, type SearchFlag } from './plan.js';

/** Consecutive days of one kind that no completed window fetched after the period ended covers. */
export interface MissingDays {
  kind: SearchFlag;
  from: string;
  to: string;
  /** `not extracted`, or `extracted on D, before the period ended`. */
  reason: string;
}

/** A window of the period whose latest attempt failed, or was interrupted (killed, still marked running). */
export interface UnfinishedWindow {
  start: string;
  end: string;
  kind: SearchFlag;
  state: 'failed' | 'in flight';
  runId: string;
  error: string | null;
}

export interface Completeness {
  period: string;
  complete: boolean;
  missing: MissingDays[];
  unfinished: UnfinishedWindow[];
  /** The `pinrecon extract …` commands that fill the gaps (empty when complete). */
  commands: string[];
  /** One line per reason, for messages, the workbook band and the email. */
  reasons: string[];
}

interface TimedWindow extends CompletedWindow {
  completedAtMs: number;
}

type ExtractRunRow = {
  run_id: string;
  status: string;
  started_ms: string;
  args: string | null;
  error: string | null;
};

interface ExtractRunArgs {
  from: string;
  to: string;
  by: SearchBy;
  today: string;
}

export async function checkCompleteness(warehouse: Warehouse, config: Config, period: string): Promise<Completeness> {
  const first = periodStart(period);
  const last = periodEnd(period);
  const windows = await timedWindows(warehouse, config.timezone);
  const missing = missingDays(windows, first, last);
  const unfinished = await unfinishedWindows(warehouse, config, windows, first, last);
  const complete = missing.length === 0 && unfinished.length === 0;
  const reasons: string[] = [];
  const today = todayIn(config.timezone);
  if (today <= last)
    reasons.push(`the period has not ended yet (its last day is ${last}); extract it again after that day`);
  for (const m of missing) reasons.push(`missing by ${m.kind} date: ${rangeText(m.from, m.to)} (${m.reason})`);
  for (const u of unfinished) {
    reasons.push(
      `window ${u.start}..${u.end} (by ${u.kind}) ` +
        `${u.state === 'failed' ? 'failed' : 'is in flight or was interrupted'} ` +
        `in extract run ${u.runId}${u.error ? `: ${u.error}` : ''}`,
    );
  }
  return {
    period,
    complete,
    missing,
    unfinished,
    commands: complete ? [] : fillCommands(missing, unfinished),
    reasons,
  };
}

/** The error an incomplete period fails `reconcile` (and `close`) with: what is missing and what fills it. */
export function incompleteError(c: Completeness, what: string, override?: string): JobError {
  const commands = c.commands.map((command) => `  ${command}`).join('\n');
  return new JobError(
    `The period ${c.period} is not completely extracted, so ${what}:\n${c.reasons.map((r) => `  - ${r}`).join('\n')}`,
    `Fill it with:\n${commands}\nthen run the command again${override ? `, or pass ${override}` : ''}.`,
  );
}

async function timedWindows(warehouse: Warehouse, timeZone: string): Promise<TimedWindow[]> {
  const rows = await warehouse.all<{
    start: string;
    end: string;
    flag: SearchFlag;
    completed_on: string;
    completed_ms: string;
  }>(
    `SELECT strftime(window_start, '%Y-%m-%d') AS start, strftime(window_end, '%Y-%m-%d') AS "end", by_flag AS flag,
            strftime(timezone($1, completed_at), '%Y-%m-%d') AS completed_on,
            epoch_ms(completed_at)::VARCHAR AS completed_ms
     FROM extract_windows ORDER BY window_start, by_flag`,
    [timeZone],
  );
  return rows.map((r) => ({
    start: r.start,
    end: r.end,
    flag: r.flag,
    completedOn: r.completed_on,
    completedAtMs: Number(r.completed_ms),
  }));
}

/**
 * Per kind, the days of [first, last] not covered by a window completed after `last`, as ranges with one reason each.
 */
function missingDays(windows: TimedWindow[], first: string, last: string): MissingDays[] {
  const missing: MissingDays[] = [];
  for (const kind of flagsFor('both')) {
    const ofKind = windows.filter((w) => w.flag === kind);
    let open: MissingDays | undefined;
    for (let day = first; day <= last; day = addDays(day, 1)) {
      const covering = ofKind.filter((w) => w.start <= day && w.end >= day);
      const reason = covering.some((w) => w.completedOn > last)
        ? undefined
        : covering.length === 0
          ? 'not extracted'
          : `extracted on ${covering
              .map((w) => w.completedOn)
              .sort()
              .at(-1)}, before the period ended`;
      if (open && reason === open.reason && addDays(open.to, 1) === day) {
        open.to = day;
        continue;
      }
      if (open) missing.push(open);
      open = reason ? { kind, from: day, to: day, reason } : undefined;
    }
    if (open) missing.push(open);
  }
  return missing;
}

/**
 * Windows of the period an extract run set out to fetch and did not finish (it failed, or is still marked
 * running or abandoned), unless a later completion of that window, or a later successful extract run over
 * it, settled it. What a run set out to fetch is its plan, rebuilt from its arguments and the checkpoints
 * that existed when it started.
 */
async function unfinishedWindows(
  warehouse: Warehouse,
  config: Config,
  windows: TimedWindow[],
  first: string,
  last: string,
): Promise<UnfinishedWindow[]> {
  const runs = (
    await warehouse.all<ExtractRunRow>(
      `SELECT run_id, status, epoch_ms(started_at)::VARCHAR AS started_ms, args, error FROM pipeline_runs WHERE ` +
        `command = 'extract' ORDER BY started_at`,
    )
  ).flatMap((r) => {
    const args = parseArgs(r.args);
    return args && args.from <= last && args.to >= first ? [{ ...r, startedMs: Number(r.started_ms), args }] : [];
  });
  const succeeded = runs.filter((r) => r.status === 'succeeded');
  const found = new Map<string, UnfinishedWindow>();
  for (const run of runs.filter((r) => r.status !== 'succeeded')) {
    const before = windows.filter((w) => w.completedAtMs < run.startedMs);
    const planned = markWindows(
      planWindows(maxDate(run.args.from, first), minDate(run.args.to, last), run.args.by, config.extract.maxWindowDays),
      before,
      run.args.today,
      config.extract.lookbackDays,
    ).filter((w) => w.action !== 'skip');
    for (const w of planned) {
      const completedLater = windows.some(
        (c) => c.flag === w.flag && c.start <= w.start && c.end >= w.end && c.completedAtMs >= run.startedMs,
      );
      const settledLater = succeeded.some(
        (s) =>
          s.startedMs > run.startedMs &&
          s.args.from <= w.start &&
          s.args.to >= w.end &&
          flagsFor(s.args.by).includes(w.flag),
      );
      if (completedLater || settledLater) continue;
      const state = run.status === 'failed' ? 'failed' : 'in flight';
      found.set(`${w.start}|${w.end}|${w.flag}`, {
        start: w.start,
        end: w.end,
        kind: w.flag,
        state,
        runId: run.run_id,
        error: run.error,
      });
    }
  }
  return [...found.values()].sort((a, b) => a.start.localeCompare(b.start) || a.kind.localeCompare(b.kind));
}

function parseArgs(text: string | null): ExtractRunArgs | undefined {
  try {
    const args = JSON.parse(text ?? 'null') as Partial<ExtractRunArgs> | null;
    if (!args?.from || !args.to || !args.by || !args.today) return undefined;
    return args as ExtractRunArgs;
  } catch {
    return undefined;
  }
}

/** The extract commands over the days to fetch again: `--by` left out where both kinds are needed. */
function fillCommands(missing: MissingDays[], unfinished: UnfinishedWindow[]): string[] {
  const needed: Record<SearchFlag, Set<string>> = { paid: new Set(), created: new Set() };
  const add = (kind: SearchFlag, from: string, to: string) => {
    for (let day = from; day <= to; day = addDays(day, 1)) needed[kind].add(day);
  };
  for (const m of missing) add(m.kind, m.from, m.to);
  for (const u of unfinished) add(u.kind, u.start, u.end);
  const days = [...new Set([...needed.paid, ...needed.created])].sort();
  const byOf = (day: string): string =>
    needed.paid.has(day) && needed.created.has(day) ? '' : needed.paid.has(day) ? ' --by paid' : ' --by created';
  const commands: string[] = [];
  let start: string | undefined;
  for (let i = 0; i < days.length; i++) {
    const day = days[i]!;
    start ??= day;
    const next = days[i + 1];
    if (next !== undefined && next === addDays(day, 1) && byOf(next) === byOf(day)) continue;
    commands.push(`pinrecon extract --from ${start} --to ${day}${byOf(day)}`);
    start = undefined;
  }
  return commands;
}

function rangeText(from: string, to: string): string {
  return from === to ? from : `${from}..${to}`;
}
