/**
 * Findings keep their identity across runs (finding_id, first_detected_at, history new/still_open/cleared,
 * one recon_runs row per run), and a data test that fails stops the run loudly without publishing.
 */
import { expect, test } from 'vitest';
import { JobError } from '../../../core/errors.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import {
  asOf,
  capturingOutput,
  fixtureForEachTest,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
} from '../../support/reconcile.js';

const f = fixtureForEachTest();

const rerun = () => reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);

test('finding_id is stable, first_detected_at survives rebuilds, history says new / still_open / cleared', async () => {
  const costBreak = sale({ partner_cost_price: '9.00' });
  const missing = sale();
  const fixedLater = sale({ partner_cost_price: '9.00' });
  await insertSales(f.warehouse, [costBreak, missing, fixedLater]);
  await insertLedger(f.warehouse, [
    ledgerFor(costBreak, { expected_cost: '8.00' }),
    ledgerFor(fixedLater, { expected_cost: '8.00' }),
  ]);

  const first = await rerun();
  expect(first.history).toEqual({ new: 3, stillOpen: 0, cleared: 0 });
  const before = await f.warehouse.all<{ finding_id: string; partner_reference: string; first_detected_at: string }>(
    'SELECT finding_id, partner_reference, first_detected_at FROM recon_exceptions WHERE period = $1 ORDER BY ' +
      'partner_reference',
    [period],
  );
  expect(before).toHaveLength(3);

  // Between runs: the provider corrects one cost, and a new sale without ledger order appears.
  await f.warehouse.run('UPDATE sales SET partner_cost_price = 8.00 WHERE transaction_id = $1', [
    fixedLater.transaction_id,
  ]);
  const newcomer = sale();
  await insertSales(f.warehouse, [newcomer]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const second = await rerun();
  expect(second.history).toEqual({ new: 1, stillOpen: 2, cleared: 1 });

  const after = await f.warehouse.all<{
    finding_id: string;
    partner_reference: string;
    first_detected_at: string;
    exception_type: string;
  }>(
    'SELECT finding_id, partner_reference, first_detected_at, exception_type FROM recon_exceptions WHERE period = $1 ' +
      'ORDER BY partner_reference',
    [period],
  );
  const kept = after.find((r) => r.partner_reference === costBreak.partner_reference)!;
  const original = before.find((r) => r.partner_reference === costBreak.partner_reference)!;
  expect(kept.finding_id).toBe(original.finding_id);
  expect(kept.first_detected_at).toBe(original.first_detected_at);
  const fresh = after.find((r) => r.partner_reference === newcomer.partner_reference)!;
  expect(fresh.exception_type).toBe('missing_in_ledger');
  expect(fresh.first_detected_at > original.first_detected_at).toBe(true);

  const history = await f.warehouse.all<{ partner_reference: string; change: string }>(
    'SELECT partner_reference, change FROM recon_exception_history WHERE run_id = $1 ORDER BY partner_reference',
    [second.runId],
  );
  expect(history).toEqual(
    [
      { partner_reference: costBreak.partner_reference, change: 'still_open' },
      { partner_reference: missing.partner_reference, change: 'still_open' },
      { partner_reference: fixedLater.partner_reference, change: 'cleared' },
      { partner_reference: newcomer.partner_reference, change: 'new' },
    ].sort((a, b) => a.partner_reference!.localeCompare(b.partner_reference!)),
  );
  const runs = await f.warehouse.all(
    'SELECT run_id, exceptions, new, still_open, cleared FROM recon_runs WHERE period = $1 ORDER BY built_at',
    [period],
  );
  expect(runs).toEqual([
    { run_id: first.runId, exceptions: '3', new: '3', still_open: '0', cleared: '0' },
    { run_id: second.runId, exceptions: '3', new: '1', still_open: '2', cleared: '1' },
  ]);
  // A rebuild replaces the period's rows, it does not add to them.
  expect(await f.warehouse.one('SELECT count(*) AS n FROM recon_exceptions WHERE period = $1', [period])).toEqual({
    n: '3',
  });
  expect(
    await f.warehouse.one('SELECT count(DISTINCT run_id) AS n FROM recon_summary WHERE period = $1', [period]),
  ).toEqual({ n: '1' });
});

test('a failing data test fails the run loudly, shows the failing rows, and publishes nothing', async () => {
  const s = sale();
  await insertSales(f.warehouse, [s]);
  const good = await rerun();
  expect(good.exceptions).toBe(1);

  // The same ledger line loaded twice (same file hash and line): the conservation test must catch it.
  const line = ledgerFor(s, { source_line: 7 });
  await insertLedger(f.warehouse, [line, line]);
  const failure = await rerun().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(JobError);
  const message = (failure as JobError).message;
  expect(message).toMatch(/data test ledger_lines_classified_exactly_once failed/);
  expect(message).toMatch(/ledger\.csv\s+7\s+2\s+2\s+duplicate, duplicate/);
  expect(message).toMatch(/nothing was published/);
  expect(message).not.toContain(s.key);

  // The marts still hold the last good run; the failed run is recorded as failed.
  expect(
    await f.warehouse.one('SELECT count(*) AS n, min(run_id) AS run_id FROM recon_exceptions WHERE period = $1', [
      period,
    ]),
  ).toEqual({ n: '1', run_id: good.runId });
  expect(await f.warehouse.one(`SELECT count(*) AS n FROM recon_runs WHERE period = $1`, [period])).toEqual({ n: '1' });
  const failed = await f.warehouse.one(
    `SELECT status, error FROM pipeline_runs WHERE command = 'reconcile' ORDER BY started_at DESC LIMIT 1`,
  );
  expect(failed).toMatchObject({
    status: 'failed',
    error: expect.stringContaining('ledger_lines_classified_exactly_once'),
  });
});
