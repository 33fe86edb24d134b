/**
 * The roll-forward per currency (recon_roll_forward, issue 15): open at start + new − cleared − written off
 * (+ remeasured amounts) = open at end, from one reconcile of the period to the next, with a check that is
 * zero — on a first reconcile, and on a later one with cleared, written-off, remeasured and reopened findings.
 */
import { expect, test } from 'vitest';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
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

type RollForward = Record<string, string | number | null>;

async function rollForward(): Promise<RollForward> {
  const rows = await f.warehouse.all<RollForward>(
    `SELECT currency_code, open_at_start, open_at_start_amount::VARCHAR AS open_at_start_amount, new,
      new_amount::VARCHAR AS new_amount,
            cleared, cleared_amount::VARCHAR AS cleared_amount, written_off, written_off_amount::VARCHAR AS
              written_off_amount,
            remeasured_amount::VARCHAR AS remeasured_amount, open_at_end, open_at_end_amount::VARCHAR AS
              open_at_end_amount,
            check_count, check_amount::VARCHAR AS check_amount
     FROM recon_roll_forward WHERE period = $1`,
    [period],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

async function amountOf(reference: string): Promise<string> {
  const sql = `SELECT amount::VARCHAR AS amount FROM recon_exceptions WHERE partner_reference = $1`;
  return (await f.warehouse.one<{ amount: string }>(sql, [reference]))!.amount;
}

const run = () => reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
const decimal = (text: string | number | null) => Math.round(Number(text) * 10_000);

test('first reconcile: everything is new, nothing at the start, the check is zero', async () => {
  const a = sale({ partner_cost_price: '9.00' });
  const b = sale({ partner_cost_price: '8.50' });
  await insertSales(f.warehouse, [a, b]);
  await insertLedger(f.warehouse, [ledgerFor(a, { expected_cost: '8.00' }), ledgerFor(b, { expected_cost: '8.00' })]);
  await run();
  const rf = await rollForward();
  expect(rf).toMatchObject({
    currency_code: 'BRL',
    open_at_start: '0',
    new: '2',
    cleared: '0',
    written_off: '0',
    open_at_end: '2',
  });
  expect(rf.check_count).toBe('0');
  expect(decimal(rf.check_amount)).toBe(0);
  expect(decimal(rf.new_amount)).toBe(
    decimal(await amountOf(a.partner_reference!)) + decimal(await amountOf(b.partner_reference!)),
  );
});

test(
  'a later reconcile: cleared, written off, remeasured, ' + 'new — and a write-off reopened — each add up to zero',
  async () => {
    const cleared = sale({ partner_cost_price: '9.00' });
    const writtenOff = sale({ partner_cost_price: '8.50' });
    const remeasured = sale({ partner_cost_price: '7.25' });
    await insertSales(f.warehouse, [cleared, writtenOff, remeasured]);
    await insertLedger(f.warehouse, [
      ledgerFor(cleared, { expected_cost: '8.00' }),
      ledgerFor(writtenOff, { expected_cost: '8.00' }),
    ]);
    await run();
    const start = await rollForward();
    const startAmount = decimal(start.open_at_end_amount);
    const remeasuredBefore = decimal(await amountOf(remeasured.partner_reference!));
    const clearedAmount = decimal(await amountOf(cleared.partner_reference!));

    // Between the runs: one break fixed at the provider, one written off, one sale's cost corrected, one new break.
    await f.warehouse.run(`UPDATE sales SET partner_cost_price = 8.00 WHERE transaction_id = $1`, [
      cleared.transaction_id,
    ]);
    await f.warehouse.run(`UPDATE sales SET partner_cost_price = 7.50 WHERE transaction_id = $1`, [
      remeasured.transaction_id,
    ]);
    const fresh = sale({ partner_cost_price: '6.00' });
    await insertSales(f.warehouse, [fresh]);
    const findingSql = `SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1`;
    const writtenOffId = (await f.warehouse.one<{ finding_id: string }>(findingSql, [writtenOff.partner_reference]))!
      .finding_id;
    await decideFindings(f.warehouse, [writtenOffId], { decision: 'write_off', note: 'written off', by: 'Ana' });
    await run();

    const rf = await rollForward();
    expect(rf).toMatchObject({
      open_at_start: '3',
      new: '1',
      cleared: '1',
      written_off: '1',
      open_at_end: '2',
      check_count: '0',
    });
    expect(decimal(rf.open_at_start_amount)).toBe(startAmount);
    expect(decimal(rf.cleared_amount)).toBe(clearedAmount);
    expect(decimal(rf.written_off_amount)).toBe(decimal(await amountOf(writtenOff.partner_reference!)));
    expect(decimal(rf.remeasured_amount)).toBe(
      decimal(await amountOf(remeasured.partner_reference!)) - remeasuredBefore,
    );
    expect(decimal(rf.remeasured_amount)).not.toBe(0);
    const openAtEnd =
      decimal(await amountOf(remeasured.partner_reference!)) + decimal(await amountOf(fresh.partner_reference!));
    expect(decimal(rf.open_at_end_amount)).toBe(openAtEnd);
    expect(decimal(rf.check_amount)).toBe(0);

    // The write-off is taken back: the finding is open again, counted as a negative write-off.
    await decideFindings(f.warehouse, [writtenOffId], { decision: 'investigating', by: 'Ana' });
    await run();
    const reopened = await rollForward();
    expect(reopened).toMatchObject({
      open_at_start: '2',
      new: '0',
      cleared: '0',
      written_off: '-1',
      open_at_end: '3',
      check_count: '0',
    });
    expect(decimal(reopened.check_amount)).toBe(0);
  },
);
