/**
 * What a job says while it works, as every layer sees it: narration, warnings, the result for people and
 * for machines, and progress. The CLI implements it for the console (cli/output.ts); pipelines and reports
 * only talk to this interface, so no layer below the CLI knows about terminals.
 */
export interface ProgressState {
  /** e.g. "windows" */
  label: string;
  done: number;
  total: number;
  /** Extra facts shown after the bar: rows, req/s, 503s... */
  facts?: Record<string, string | number>;
  /** Seconds left, when known. */
  etaSeconds?: number;
}

/** How stderr lines are written: `text` for people, `json` (one object a line) for log collectors. */
export type LogFormat = 'text' | 'json';

export interface Output {
  /** --json: only the final document goes to stdout. */
  readonly json: boolean;
  /** Whether progress is drawn as a bar (a terminal) or logged as plain lines. */
  readonly isTerminal: boolean;
  /** A line of progress narration (stderr, so stdout stays clean for results). */
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** The command's result for people (stdout). Suppressed with --json. */
  result(text: string): void;
  /** The command's result for machines (stdout), only with --json. */
  document(value: unknown): void;
  /** Shows progress: a redrawn bar on a terminal; a plain line otherwise when `force`. */
  progress(state: ProgressState, force?: boolean): void;
  /** Removes a progress bar from the terminal before other text. */
  clearProgress(): void;
}

export function describeProgress(state: ProgressState): string {
  const facts = Object.entries(state.facts ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
  const eta =
    state.etaSeconds !== undefined && Number.isFinite(state.etaSeconds)
      ? ` · ETA ${formatDuration(state.etaSeconds)}`
      : '';
  return `${state.label} ${state.done}/${state.total}${facts ? ` · ${facts}` : ''}${eta}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** A plain text table for the console. */
export function formatTable(rows: Record<string, unknown>[], columns?: string[]): string {
  if (rows.length === 0) return '(no rows)';
  const cols = columns ?? Object.keys(rows[0]!);
  const cell = (v: unknown) =>
    v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    line(cols),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(cols.map((c) => cell(r[c])))),
  ].join('\n');
}
