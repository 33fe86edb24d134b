/**
 * The few named errors every layer throws. The CLI maps them to exit codes (README "Exit codes"):
 * ConfigError and UsageError → 2, everything else → 1.
 */

/** Bad configuration: always names the file (or environment variable) and the key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    readonly source?: string,
    readonly key?: string,
  ) {
    super(message);
  }
}

/** Bad command-line usage (a malformed date, an unknown format...). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A job that could not finish: says what went wrong, where, and what to do. */
export class JobError extends Error {
  override name = 'JobError';
  /** What the job got done before it failed, for --json (e.g. the month-end job's steps). */
  readonly facts?: Record<string, unknown>;
  constructor(
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown; facts?: Record<string, unknown> },
  ) {
    super(message, options);
    this.facts = options?.facts;
  }
}

export function exitCodeFor(error: unknown): number {
  return error instanceof ConfigError || error instanceof UsageError ? 2 : 1;
}

/** Whether an error (or the error it wraps) is DuckDB's out-of-memory. */
export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && /Out of Memory Error/i.test(error.message);
}

/**
 * DuckDB ran out of the memory `memoryLimit` gives it: the hint to give instead of "fix the SQL", naming the limit
 * in force when the caller knows it, or undefined for any other error.
 */
export function outOfMemoryHint(error: unknown, limitInForce?: string): string | undefined {
  if (!isOutOfMemory(error)) return undefined;
  const limit = limitInForce ? ` (${limitInForce})` : '';
  // DuckDB reports a full spill folder as an out-of-memory too; its cure is disk space first, memory second.
  if (spillFolderFull(error))
    return (
      `DuckDB's spill folder (the database file's name plus ".tmp", beside it) reached the disk space it may use ` +
      `(90 % of what was free on that drive): free space there, or raise memoryLimit${limit} so less spills, then ` +
      're-run; finished work is kept.'
    );
  return (
    `DuckDB needed more memory than memoryLimit${limit} allows: raise it in the config (e.g. "memoryLimit": "3GB") ` +
    'or with PINRECON_MEMORY_LIMIT, then re-run; finished work is kept.'
  );
}

function spillFolderFull(error: unknown): boolean {
  return error instanceof Error && /max_temp_directory_size/.test(error.message);
}
