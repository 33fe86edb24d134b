import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishRun, recordRun, startRun } from '../../core/run-trace.js';
import { Warehouse } from '../../core/warehouse.js';

describe('pipeline_runs trace', () => {
  it('marks a killed run abandoned when the next job starts, but a step leaves its own job running', async () => {
    const warehouse = await Warehouse.open(path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-runs-')), 'db.duckdb'));
    try {
      const killed = await startRun(warehouse, 'extract', {}); // never finished: the process "died"
      const status = async (runId: string) =>
        (await warehouse.one<{ status: string }>(`select status from pipeline_runs where run_id = $1`, [runId]))!
          .status;

      const job = await startRun(warehouse, 'run', { period: '2026-01' });
      expect(await status(killed.runId)).toBe('abandoned');
      await recordRun(
        warehouse,
        'extract',
        {},
        async (step) => {
          step.counters.requests = 3;
          expect(await status(job.runId)).toBe('running');
        },
        job.runId,
      );
      await expect(
        recordRun(
          warehouse,
          'reconcile',
          {},
          async () => {
            throw new Error('boom');
          },
          job.runId,
        ),
      ).rejects.toThrow('boom');
      await finishRun(warehouse, job);

      const rows = await warehouse.all<{
        command: string;
        status: string;
        requests: number;
        error: string | null;
        parent_run_id: string | null;
      }>(`select command, status, requests::INTEGER as requests, error, parent_run_id from pipeline_runs`);
      expect(rows).toHaveLength(4);
      expect(rows).toEqual(
        expect.arrayContaining([
          {
            command: 'extract',
            status: 'abandoned',
            requests: 0,
            error: expect.stringMatching(
              new RegExp(
                /^abandoned: process \d+ exists on this host but the database was free.*found unfinished at /.source +
                  /.* by the next job \(run\)/.source,
              ),
            ),
            parent_run_id: null,
          },
          { command: 'run', status: 'succeeded', requests: 0, error: null, parent_run_id: null },
          { command: 'extract', status: 'succeeded', requests: 3, error: null, parent_run_id: job.runId },
          { command: 'reconcile', status: 'failed', requests: 0, error: 'Error: boom', parent_run_id: job.runId },
        ]),
      );
    } finally {
      warehouse.close();
    }
  });
});
