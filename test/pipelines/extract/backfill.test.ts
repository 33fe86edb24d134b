/**
 * The back-fill of by-creation windows from extract.historyStart (README "Proof of absence") over real
 * HTTP against the simulator, into a real DuckDB file: its windows follow the calendar (≤ 31 days, whole
 * months), a re-run fetches nothing, a run that stopped part-way fetches only the windows it had not
 * committed (counted at the simulator), a window fetched before its days ended is fetched again, and its
 * progress is the extract's bar with an ETA on a terminal, plain lines off it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../config/schema.js';
import { withWarehouse } from '../../../core/warehouse.js';
import { backfillCreatedWindows, backfillRange } from '../../../pipelines/extract/backfill.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';
import { capturedOutput, extractConfig, identifier, salesState, secret, tempDir } from '../../support/extract.js';

const historyStart = '2026-01-01';
/** The first day the caller extracts itself (e.g. the month-end's period). */
const until = '2026-06-01';

describe('back-fill of the by-creation windows', () => {
  let simulator: RunningSimulator;
  let config: Config;

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 13,
      identifier,
      secret,
      dataset: { from: '2025-12-28', to: '2026-06-05', salesCount: 3_000, timezone: 'America/Sao_Paulo' },
    });
    config = extractConfig(tempDir('backfill'), simulator.url, { extract: { historyStart } });
  });
  afterAll(async () => {
    await simulator?.close();
  });

  const windowRequests = () => simulator.stats().byEndpoint.salesByPeriod ?? 0;

  async function backfill(terminal = false) {
    const { output, text } = capturedOutput(terminal);
    const before = windowRequests();
    const summary = await withWarehouse(config.database, { timezone: config.timezone }, (warehouse) =>
      backfillCreatedWindows(warehouse, config, { until }, output),
    );
    return { summary: summary!, requests: windowRequests() - before, console: text() };
  }

  const state = () =>
    withWarehouse(config.database, { timezone: config.timezone }, async (warehouse) => ({
      sales: await salesState(warehouse),
      windows: await warehouse.all(
        `SELECT window_start::VARCHAR AS s, window_end::VARCHAR AS e, by_flag, records FROM extract_windows ORDER BY ` +
          `ALL`,
      ),
    }));

  it("has no range without historyStart, or when historyStart is not before the caller's first day", () => {
    expect(
      backfillRange({ ...config, extract: { ...config.extract, historyStart: undefined } }, until),
    ).toBeUndefined();
    expect(backfillRange(config, historyStart)).toBeUndefined();
    expect(backfillRange(config, until)).toEqual({ from: historyStart, to: '2026-05-31' });
  });

  it('fetches one by-creation window per month from historyStart, with progress and an ETA on a terminal', async () => {
    const first = await backfill(true);
    expect(first.summary.plan.map((w) => `${w.start}..${w.end} ${w.flag} ${w.action}`)).toEqual([
      '2026-01-01..2026-01-31 created fetch',
      '2026-02-01..2026-02-28 created fetch',
      '2026-03-01..2026-03-31 created fetch',
      '2026-04-01..2026-04-30 created fetch',
      '2026-05-01..2026-05-31 created fetch',
    ]);
    expect(first.requests).toBe(5);
    expect(first.summary.records).toBeGreaterThan(0);
    expect(first.console).toMatch(/back-fill windows \d\/5 .*ETA/);
  });

  it('run again, fetches nothing: every window was completed after its days ended', async () => {
    const before = await state();
    const again = await backfill();
    expect(again.requests).toBe(0);
    expect(again.summary.windows).toEqual({ planned: 5, fetched: 0, skipped: 5 });
    expect(await state()).toEqual(before);
  });

  it('after a run that stopped part-way, fetches only the windows not committed', async () => {
    const complete = await state();
    // A run killed during April: April and May were never committed (a window's rows and checkpoint commit
    // together, so a crash leaves neither).
    await withWarehouse(config.database, { timezone: config.timezone }, async (warehouse) => {
      await warehouse.run(`DELETE FROM sales WHERE created_window_start >= DATE '2026-04-01'`);
      await warehouse.run(`DELETE FROM extract_windows WHERE window_start >= DATE '2026-04-01'`);
    });
    const resumed = await backfill();
    expect(resumed.requests).toBe(2);
    expect(resumed.summary.windows).toEqual({ planned: 5, fetched: 2, skipped: 3 });
    expect(await state()).toEqual(complete);
    // Off a terminal: plain lines, one per window, no bar redrawn in place.
    expect(resumed.console).toMatch(/window 2026-04-01\.\.2026-04-30 \(by created\): \d+ records, \d+ loaded/);
    expect(resumed.console).toMatch(/window 2026-05-01\.\.2026-05-31 \(by created\): \d+ records, \d+ loaded/);
    expect(resumed.console).not.toMatch(/[\r\x1b]/);
  });

  it('fetches again a window fetched before its days had ended', async () => {
    await withWarehouse(config.database, { timezone: config.timezone }, (warehouse) =>
      warehouse.run(
        `UPDATE extract_windows SET completed_at = TIMESTAMPTZ '2026-02-20 12:00:00-03'
         WHERE window_start = DATE '2026-02-01'`,
      ),
    );
    const again = await backfill();
    expect(again.requests).toBe(1);
    expect(again.summary.plan.filter((w) => w.action !== 'skip').map((w) => `${w.start} ${w.action}`)).toEqual([
      '2026-02-01 refetch',
    ]);
  });
});
