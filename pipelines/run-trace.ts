/**
 * The trace every command leaves in `pipeline_runs`: a row written when it starts (so a killed run is
 * visible as abandoned), completed with its counters and outcome when it ends.
 */
import { randomUUID } from 'node:crypto';
import type { Warehouse } from '../core/warehouse.js';

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
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
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
  if (!parentRunId) await warehouse.run(`UPDATE pipeline_runs SET status = 'abandoned' WHERE status = 'running'`);
  const run: PipelineRun = {
    runId: newRunId(),
    command,
    startedAt: new Date(),
    counters: { requests: 0, retries: 0, rateLimited: 0, rowsLoaded: 0 },
    details: {},
  };
  await warehouse.run(
    `INSERT INTO pipeline_runs (run_id, command, started_at, status, parent_run_id, args)
     VALUES ($1, $2, $3::TIMESTAMPTZ, 'running', $4, $5)`,
    [run.runId, command, run.startedAt.toISOString(), parentRunId ?? null, JSON.stringify(args)],
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

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
