/**
 * The trace every command leaves in `pipeline_runs`: a row written when it starts (so a killed run is
 * visible as abandoned), completed with its counters and outcome when it ends. The row names its process
 * (pid, hostname): the next job marks a run left `running` abandoned, saying when it found it and why.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Warehouse } from './warehouse.js';
import { redactRememberedSecrets } from './secret-redaction.js';

export interface RunCounters {
  requests: number;
  retries: number;
  rateLimited: number;
  rowsLoaded: number;
}

export interface PipelineRun {
  runId: string;
  command: string;
  startedAt: Date;
  counters: RunCounters;
  details: Record<string, unknown>;
}

export function newRunId(): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomUUID().slice(0, 8)}`;
}

export async function startRun(
  warehouse: Warehouse,
  command: string,
  args: Record<string, unknown>,
  parentRunId?: string,
): Promise<PipelineRun> {
  // A run still marked running when a new job takes the database was killed: say so. (A step of a job
  // leaves its own job's row alone.)
  if (!parentRunId) await markAbandoned(warehouse, command);
  const run: PipelineRun = {
    runId: newRunId(),
    command,
    startedAt: new Date(),
    counters: { requests: 0, retries: 0, rateLimited: 0, rowsLoaded: 0 },
    details: {},
  };
  await warehouse.run(
    `INSERT INTO pipeline_runs (run_id, command, started_at, status, parent_run_id, args, pid, hostname)
     VALUES ($1, $2, $3::TIMESTAMPTZ, 'running', $4, $5, $6, $7)`,
    [
      run.runId,
      command,
      run.startedAt.toISOString(),
      parentRunId ?? null,
      JSON.stringify(args),
      process.pid,
      hostname(),
    ],
  );
  return run;
}

export async function finishRun(warehouse: Warehouse, run: PipelineRun, error?: unknown): Promise<void> {
  const c = run.counters;
  await warehouse.run(
    `UPDATE pipeline_runs SET finished_at = $1::TIMESTAMPTZ, status = $2, requests = $3, retries = $4,
       rate_limited = $5, rows_loaded = $6, error = $7, details = $8
     WHERE run_id = $9`,
    [
      new Date().toISOString(),
      error ? 'failed' : 'succeeded',
      c.requests,
      c.retries,
      c.rateLimited,
      c.rowsLoaded,
      error ? errorText(error) : null,
      JSON.stringify(run.details),
      run.runId,
    ],
  );
}

/** Records `work` as one pipeline run: started before, finished after, failed with its error. */
export async function recordRun<T>(
  warehouse: Warehouse,
  command: string,
  args: Record<string, unknown>,
  work: (run: PipelineRun) => Promise<T>,
  parentRunId?: string,
): Promise<T> {
  const run = await startRun(warehouse, command, args, parentRunId);
  try {
    const result = await work(run);
    await finishRun(warehouse, run);
    return result;
  } catch (error) {
    await warehouse.run('ROLLBACK').catch(() => undefined);
    await finishRun(warehouse, run, error).catch(() => undefined);
    throw error;
  }
}

/**
 * Marks every run left `running` abandoned. The caller holds the database for writing, so none of them
 * is still at work; `error` says when this was found and what is known of the process that ran it.
 */
async function markAbandoned(warehouse: Warehouse, foundBy: string): Promise<void> {
  const left = await warehouse.all<{
    run_id: string;
    started_at: string;
    pid: number | string | null;
    hostname: string | null;
  }>(
    `SELECT run_id, strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS started_at, pid, hostname FROM ` +
      `pipeline_runs WHERE status = 'running'`,
  );
  const foundAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const run of left) {
    const found =
      `found unfinished at ${foundAt} by the next job (${foundBy}); ` +
      `it ended between its start (${run.started_at}) and then without recording how`;
    await warehouse.run(`UPDATE pipeline_runs SET status = 'abandoned', error = $1 WHERE run_id = $2`, [
      `abandoned: ${whyAbandoned(run.pid === null ? undefined : Number(run.pid), run.hostname ?? undefined)}; ${found}`,
      run.run_id,
    ]);
  }
}

/** What can be told of the process that ran an abandoned run: on this host, whether it still exists. */
function whyAbandoned(pid: number | undefined, host: string | undefined): string {
  if (pid === undefined || host === undefined) return 'its process is unknown (a run from before pinrecon recorded it)';
  if (host !== hostname())
    return (
      `it ran on host ${host} (pid ${pid}), which cannot be checked from here; ` +
      `the database was free, so it no longer held it`
    );
  if (!processExists(pid))
    return (
      `its process ${pid} no longer exists on this host: ` +
      `it was killed or crashed (out of memory, a signal, a power cut) before finishing`
    );
  return (
    `process ${pid} exists on this host but the database was free, so it is not that run any more ` +
    `(the pid was reused, or the run let go of the database without finishing)`
  );
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function errorText(error: unknown): string {
  return redactRememberedSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}
