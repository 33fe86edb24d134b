/**
 * The scheduler's "next run" lines say it is up: a SIGTERM sent on reading them must find its handler in place
 * (the CLI tests stop it that way, and a handler installed after the lines let a busy machine's SIGTERM kill it,
 * exit code null instead of 0). Run in this process on a real DuckDB file; no job fires (a fresh database records
 * the schedule's first time instead of catching it up).
 */
import { expect, test } from 'vitest';
import type { Output } from '../../../core/output.js';
import { runScheduler } from '../../../pipelines/ops/schedule.js';
import { temporaryDirectory } from '../../support/ledger.js';
import { testConfig } from '../../support/reconcile.js';

test('the SIGTERM handler is in place when the "next run" lines are printed', async () => {
  const temp = temporaryDirectory('schedule-ready');
  try {
    const config = testConfig(temp.dir, {
      schedules: [{ name: 'new-year-extract', cron: '0 6 1 1 *', job: 'extract', period: '2026-01' }],
    });
    const before = process.listenerCount('SIGTERM');
    const atNextRun: number[] = [];
    let announced!: () => void;
    const stopSignal = new Promise<void>((resolve) => (announced = resolve));
    const info = (line: string) => {
      if (!line.includes('next run')) return;
      atNextRun.push(process.listenerCount('SIGTERM'));
      announced();
    };
    const output: Output = {
      json: false,
      isTerminal: false,
      info,
      warn: () => undefined,
      error: () => undefined,
      result: () => undefined,
      document: () => undefined,
      progress: () => undefined,
      clearProgress: () => undefined,
    };
    const outcomes = await runScheduler(config, output, { stopSignal });
    expect(outcomes).toEqual([]);
    expect(atNextRun).toEqual([before + 1]);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  } finally {
    temp.remove();
  }
});
