/**
 * Console output for every command: plain timestamped lines when not on a terminal (error: and warning: lines
 * too, issue 31), a redrawn progress line when on one, one JSON object a line with `--log-format json`, and
 * nothing but the final JSON document on stdout with --json. Errors always go to stderr.
 * Every text printed passes `printable`: a file's control characters and escape sequences never reach the terminal.
 * Off a terminal (a cron log, a pipe), a step that runs longer than `progressEveryMs` logs a plain progress
 * line (done/total, rate, ETA) every `progressEveryMs`, so a long step is never silent.
 */
import { describeProgress, type LogFormat, type Output, type ProgressState } from '../core/output.js';
import { printable, printableJson } from '../core/text-safety.js';

/**
 * Text another library writes to stderr (commander's usage errors), each line timestamped off a terminal like
 * ConsoleOutput's own (issue 31).
 */
export function stampLines(
  text: string,
  isTerminal: boolean = Boolean(process.stderr.isTTY) && !process.env.CI,
  now: () => number = Date.now,
): string {
  if (isTerminal) return text;
  const time = new Date(now()).toISOString();
  return text.replace(/^(?=.)/gm, `${time} `);
}

/** Writes another library's stderr text (commander's), printable and stamped like ConsoleOutput's lines. */
export function writeLibraryError(text: string, stderr: NodeJS.WriteStream = process.stderr): void {
  stderr.write(stampLines(printable(text), Boolean(stderr.isTTY) && !process.env.CI));
}

/** How often a long step logs a progress line when stderr is not a terminal. */
export const progressEveryMs = 10_000;

/** When a step's progress began and was last logged (off a terminal), by label. */
interface ProgressLog {
  startedAt: number;
  loggedAt: number;
  /** done at the start, so the rate counts only this run's work. */
  doneAtStart: number;
  lastDone: number;
}

export class ConsoleOutput implements Output {
  private lastProgressDraw = 0;
  private progressVisible = false;
  private readonly progressLogs = new Map<string, ProgressLog>();

  constructor(
    readonly json: boolean = false,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
    readonly isTerminal: boolean = Boolean(process.stderr.isTTY) && !process.env.CI,
    /** The clock progress lines are timed by (tests inject one). */
    private readonly now: () => number = Date.now,
    /** `json`: every stderr line one object { time, level, message } for log collectors (issue 31). */
    readonly logFormat: LogFormat = 'text',
  ) {
    // A log collector reads lines, not a redrawn bar.
    if (logFormat === 'json') this.isTerminal = false;
  }

  /** A line of progress narration (stderr, so stdout stays clean for results). */
  info(message: string): void {
    if (this.json) return;
    this.line('info', message);
  }

  warn(message: string): void {
    this.line('warning', message);
  }

  error(message: string): void {
    this.line('error', message);
  }

  /** One stderr line: bare on a terminal, timestamped off one (a cron log, a pipe), or a JSON object. */
  private line(level: 'info' | 'warning' | 'error', message: string): void {
    this.clearProgress();
    const time = new Date(this.now()).toISOString();
    if (this.logFormat === 'json') {
      this.stderr.write(`${printableJson({ time, level, message })}\n`);
      return;
    }
    const text = `${level === 'info' ? '' : `${level}: `}${printable(message)}`;
    this.stderr.write(this.isTerminal ? `${text}\n` : `${time} ${text}\n`);
  }

  /** The command's result for people (stdout). Suppressed with --json. */
  result(text: string): void {
    if (this.json) return;
    this.clearProgress();
    const clean = printable(text);
    this.stdout.write(clean.endsWith('\n') ? clean : `${clean}\n`);
  }

  /** The command's result for machines (stdout), only with --json. */
  document(value: unknown): void {
    if (!this.json) return;
    this.stdout.write(`${printableJson(value, 2)}\n`);
  }

  /**
   * Redraws the progress bar on a terminal (at most 10 times a second); otherwise logs a line when `force`,
   * and every `progressEveryMs` while the step goes on (with its rate and ETA).
   */
  progress(state: ProgressState, force = false): void {
    if (this.json) return;
    const now = this.now();
    if (!this.isTerminal) {
      this.logProgress(state, force, now);
      return;
    }
    if (!force && now - this.lastProgressDraw < 100) return;
    this.lastProgressDraw = now;
    const width = 24;
    const ratio = state.total > 0 ? Math.min(1, state.done / state.total) : 0;
    const filled = Math.round(ratio * width);
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
    const line = `${bar} ${printable(describeProgress(state))}`;
    this.stderr.write(`\r${line.slice(0, (this.stderr.columns ?? 120) - 1)}\x1b[K`);
    this.progressVisible = true;
  }

  private logProgress(state: ProgressState, force: boolean, now: number): void {
    let log = this.progressLogs.get(state.label);
    // Progress that goes back (a new step of the same label) starts a new log.
    if (!log || state.done < log.lastDone) {
      log = { startedAt: now, loggedAt: now, doneAtStart: state.done, lastDone: state.done };
      this.progressLogs.set(state.label, log);
    }
    log.lastDone = state.done;
    const finished = state.total > 0 && state.done >= state.total;
    if (!force && now - log.loggedAt < progressEveryMs) return;
    log.loggedAt = now;
    const seconds = (now - log.startedAt) / 1000;
    const rate = seconds > 0 ? (state.done - log.doneAtStart) / seconds : 0;
    const facts = { ...state.facts, ...(seconds > 0 ? { rate: `${rate.toFixed(1)}/s` } : {}) };
    const etaSeconds = state.etaSeconds ?? (rate > 0 && !finished ? (state.total - state.done) / rate : undefined);
    this.info(describeProgress({ ...state, facts, ...(etaSeconds !== undefined ? { etaSeconds } : {}) }));
  }

  clearProgress(): void {
    if (this.progressVisible) {
      this.stderr.write('\r\x1b[K');
      this.progressVisible = false;
    }
  }
}
