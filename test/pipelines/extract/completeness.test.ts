/**
 * The completeness verdict over real extract checkpoints in a DuckDB file: a period never extracted, a day
 * missing, one kind missing, a period fetched before it ended, and a failed window (recorded by a real
 * failed extract run), each with the exact `pinrecon extract` command that fills it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../../config/schema.js';
import { Warehouse } from '../../../core/warehouse.js';
import { checkCompleteness } from '../../../pipelines/extract/completeness.js';
import { recordRun } from '../../../core/run-trace.js';
import { testConfig } from '../../support/reconcile.js';
import { copyOfTemplate } from '../../support/database-template.js';

const period = '2026-02';
let dir: string;
let config: Config;
let warehouse: Warehouse;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-completeness-'));
  config = testConfig(dir);
  // A fresh database: a copy of the schema's template, not a new schema each time (issue 27).
  await copyOfTemplate(config.database);
  warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
});
afterEach(() => {
  warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A completed window as extract records it; `completedAt` an instant (default: now, after the period). */
async function completed(
  start: string,
  end: string,
  flag: 'paid' | 'created',
  completedAt = new Date().toISOString(),
): Promise<void> {
  await warehouse.run(
    `INSERT INTO extract_windows VALUES ($1::DATE, $2::DATE, $3, 'r', $4::TIMESTAMPTZ, 0, 0, 'landing.json.gz')
     ON CONFLICT DO UPDATE SET completed_at = excluded.completed_at`,
    [start, end, flag, completedAt],
  );
}

async function bothKinds(start: string, end: string, completedAt?: string): Promise<void> {
  await completed(start, end, 'paid', completedAt);
  await completed(start, end, 'created', completedAt);
}

describe('checkCompleteness', () => {
  it('a period never extracted: every day of both kinds missing, one command for the month', async () => {
    const c = await checkCompleteness(warehouse, config, period);
    expect(c.complete).toBe(false);
    expect(c.missing).toEqual([
      { kind: 'paid', from: '2026-02-01', to: '2026-02-28', reason: 'not extracted' },
      { kind: 'created', from: '2026-02-01', to: '2026-02-28', reason: 'not extracted' },
    ]);
    expect(c.unfinished).toEqual([]);
    expect(c.commands).toEqual(['pinrecon extract --from 2026-02-01 --to 2026-02-28']);
    expect(c.reasons).toContain('missing by paid date: 2026-02-01..2026-02-28 (not extracted)');
  });

  it(
    'complete when both kinds cover every day, fetched ' + 'after the period ended, whatever the window sizes',
    async () => {
      await bothKinds('2026-02-01', '2026-02-10');
      await bothKinds('2026-02-11', '2026-02-28');
      const c = await checkCompleteness(warehouse, config, period);
      expect(c).toMatchObject({ complete: true, missing: [], unfinished: [], commands: [], reasons: [] });
    },
  );

  it(
    'one day missing, and one kind missing for other days: ' + 'a command per gap, --by only where one kind is needed',
    async () => {
      await bothKinds('2026-02-01', '2026-02-14');
      await bothKinds('2026-02-16', '2026-02-28');
      await warehouse.run(`DELETE FROM extract_windows WHERE window_start = '2026-02-16' AND by_flag = 'created'`);
      await completed('2026-02-16', '2026-02-20', 'created');
      const c = await checkCompleteness(warehouse, config, period);
      expect(c.missing).toEqual([
        { kind: 'paid', from: '2026-02-15', to: '2026-02-15', reason: 'not extracted' },
        { kind: 'created', from: '2026-02-15', to: '2026-02-15', reason: 'not extracted' },
        { kind: 'created', from: '2026-02-21', to: '2026-02-28', reason: 'not extracted' },
      ]);
      expect(c.commands).toEqual([
        'pinrecon extract --from 2026-02-15 --to 2026-02-15',
        'pinrecon extract --from 2026-02-21 --to 2026-02-28 --by created',
      ]);
    },
  );

  it('windows fetched before the period ended do not count', async () => {
    await bothKinds('2026-02-01', '2026-02-28', '2026-02-20T12:00:00Z');
    const c = await checkCompleteness(warehouse, config, period);
    expect(c.complete).toBe(false);
    expect(c.missing[0]).toEqual({
      kind: 'paid',
      from: '2026-02-01',
      to: '2026-02-28',
      reason: 'extracted on 2026-02-20, before the period ended',
    });
    expect(c.commands).toEqual(['pinrecon extract --from 2026-02-01 --to 2026-02-28']);
  });

  it(
    'a failed re-fetch of a completed window makes the ' + 'period incomplete until a later extract settles it',
    async () => {
      await bothKinds('2026-02-01', '2026-02-28', '2026-03-02T12:00:00Z');
      // A re-fetch within the lookback (today 2026-03-05) that failed: its windows are failed.
      const failedRun = recordRun(
        warehouse,
        'extract',
        { from: '2026-02-01', to: '2026-03-04', by: 'paid', today: '2026-03-05' },
        async () => {
          throw new Error('upstream answered 500');
        },
      );
      await expect(failedRun).rejects.toThrow('upstream answered 500');
      const c = await checkCompleteness(warehouse, config, period);
      expect(c.complete).toBe(false);
      expect(c.missing).toEqual([]);
      expect(c.unfinished).toEqual([
        expect.objectContaining({
          start: '2026-02-01',
          end: '2026-02-28',
          kind: 'paid',
          state: 'failed',
          error: 'Error: upstream answered 500',
        }),
      ]);
      expect(c.commands).toEqual(['pinrecon extract --from 2026-02-01 --to 2026-02-28 --by paid']);
      expect(c.reasons.join('\n')).toMatch(
        /window 2026-02-01\.\.2026-02-28 \(by paid\) failed in extract run \S+: Error: upstream answered 500/,
      );

      // The same command, run later, succeeds (here it finds the window already done and skips it).
      await recordRun(
        warehouse,
        'extract',
        { from: '2026-02-01', to: '2026-02-28', by: 'paid', today: '2026-11-23' },
        async () => undefined,
      );
      expect((await checkCompleteness(warehouse, config, period)).complete).toBe(true);
    },
  );

  it('a window a killed extract left running counts as in flight', async () => {
    await warehouse.run(
      `INSERT INTO pipeline_runs (run_id, command, started_at, status, args) VALUES ('killed', 'extract', now(), ` +
        `'running', $1)`,
      [JSON.stringify({ from: '2026-02-01', to: '2026-02-28', by: 'created', today: '2026-03-01' })],
    );
    const c = await checkCompleteness(warehouse, config, period);
    expect(c.unfinished).toEqual([
      expect.objectContaining({
        start: '2026-02-01',
        end: '2026-02-28',
        kind: 'created',
        state: 'in flight',
        runId: 'killed',
      }),
    ]);
  });
});
