/**
 * Console output for every command: plain timestamped lines when not on a terminal, a redrawn progress
 * line when on one, and nothing but the final JSON document with --json. Errors always go to stderr.
 * Every text printed passes `printable`: a file's control characters and escape sequences never reach the terminal.
 */
import { describeProgress, type Output, type ProgressState } from '../core/output.js';
import { printable } from '../core/text-safety.js';

export class ConsoleOutput implements Output {
  private lastProgressDraw = 0;
  private progressVisible = false;

  constructor(
    readonly json: boolean = false,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
    readonly isTerminal: boolean = Boolean(process.stderr.isTTY) && !process.env.CI,
  ) {}

  /** A line of progress narration (stderr, so stdout stays clean for results). */
  info(message: string): void {
    if (this.json) return;
    this.clearProgress();
    this.stderr.write(this.isTerminal ? `${printable(message)}\n` : `${new Date().toISOString()} ${printable(message)}\n`);
  }

  warn(message: string): void {
    this.clearProgress();
    this.stderr.write(`warning: ${printable(message)}\n`);
  }

  error(message: string): void {
    this.clearProgress();
    this.stderr.write(`error: ${printable(message)}\n`);
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
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Redraws the progress bar on a terminal (at most 10 times a second); logs a line otherwise when `force`. */
  progress(state: ProgressState, force = false): void {
    if (this.json) return;
    const now = Date.now();
    if (!this.isTerminal) {
      if (force) this.info(describeProgress(state));
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

  clearProgress(): void {
    if (this.progressVisible) {
      this.stderr.write('\r\x1b[K');
      this.progressVisible = false;
    }
  }
}

