/**
 * A process that dies in the middle of a job (killed, out of memory) cannot finish its pipeline_runs row:
 * the next job marks it abandoned, saying when it found it and that the process is gone from this host.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { startRun } from '../../core/run-trace.js';
import { holdOpen, temporaryDirectory } from '../support/ledger.js';

const temp = temporaryDirectory('runs-abandoned');
afterAll(() => temp.remove());

describe('a job whose process dies', () => {
  it('leaves no running row: the next job marks it abandoned, with its pid and host, when and why', async () => {
    const database = path.join(temp.dir, 'pinrecon.duckdb');
    // A real job in another process (the built code), killed with SIGKILL while its run is open. The run trace lives
    // in core/ since Structure III; dist/pipelines/run-trace.js is only a stale build left behind, absent after npm ci.
    const child = await holdOpen(`
      import { Warehouse } from './dist/core/warehouse.js';
      import { startRun } from './dist/core/run-trace.js';
      const warehouse = await Warehouse.open(${JSON.stringify(database)});
      await startRun(warehouse, 'ledger import', { file: 'bomb.xlsx' });`);
    const pid = child.pid!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const warehouse = await Warehouse.open(database);
    try {
      const before = await warehouse.one<{ status: string; pid: string; hostname: string }>(
        `SELECT status, pid::VARCHAR AS pid, hostname FROM pipeline_runs`,
      );
      expect(before).toEqual({ status: 'running', pid: String(pid), hostname: hostname() });
      await startRun(warehouse, 'reconcile', { period: '2026-01' });
      const killed = await warehouse.one<{ status: string; error: string; finished_at: string | null }>(
        `SELECT status, error, finished_at FROM pipeline_runs WHERE command = 'ledger import'`,
      );
      expect(killed!.status).toBe('abandoned');
      expect(killed!.error).toMatch(
        new RegExp(`^abandoned: its process ${pid} no longer exists on this host: it was killed or crashed`),
      );
      expect(killed!.error).toMatch(
        new RegExp(
          /found unfinished at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ by the next job \(reconcile\); it ended /.source +
            /between its start \(\d{4}-\d\d-\d\dT[\d:]+Z\) and then/.source,
        ),
      );
      expect(
        await warehouse.all(`SELECT 1 FROM pipeline_runs WHERE status = 'running' AND command = 'ledger import'`),
      ).toEqual([]);
    } finally {
      warehouse.close();
    }
  });
});
