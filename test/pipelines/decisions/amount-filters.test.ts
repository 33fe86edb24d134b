/**
 * `findings decide --max-amount` filters on the amount (the cost bridge effect) and `--max-exposure` on the
 * exposure (issue 30): an amount filter no longer sweeps up unredeemed keys, whose amount is 0 while they hold
 * their cost at stake; the exposure filter chooses them by that.
 */
import { expect, test } from 'vitest';
import { decideInBulk } from '../../../pipelines/decisions/findings.js';
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

test('--max-amount leaves keys with money at stake out; --max-exposure chooses them by it', async () => {
  const cheapKey = sale({ status: 'delivered', key_sent_to_customer: false, partner_cost_price: '0.50' });
  const dearKey = sale({ status: 'delivered', key_sent_to_customer: false, partner_cost_price: '40.00' });
  const small = sale({ partner_cost_price: '8.40' });
  await insertSales(f.warehouse, [cheapKey, dearKey, small]);
  await insertLedger(f.warehouse, [
    ledgerFor(cheapKey),
    ledgerFor(dearKey),
    ledgerFor(small, { expected_cost: '8.00' }),
  ]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const chosen = async (filter: { types?: string[]; maxAmount?: string; maxExposure?: string }) => {
    const result = await decideInBulk(
      f.warehouse,
      { period, ...filter },
      { decision: 'investigating', by: 'Ana', dryRun: true },
    );
    return result.selected!.reduce((n, s) => n + s.findings, 0);
  };
  // Before issue 30 this chose both keys: their amount is 0, below any --max-amount.
  expect(await chosen({ types: ['unredeemed_key'], maxAmount: '1' })).toBe(0);
  expect(await chosen({ maxAmount: '1' })).toBe(1); // the 0.40 cost difference
  expect(await chosen({ types: ['unredeemed_key'], maxExposure: '1' })).toBe(1);
  expect(await chosen({ types: ['unredeemed_key'], maxExposure: '100' })).toBe(2);
  expect(await chosen({ maxAmount: '1', maxExposure: '1' })).toBe(2);
});
