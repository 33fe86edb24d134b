/**
 * Property: whatever the references (shared, duplicated, padded with spaces, empty), statuses and dates,
 * every ledger line and every provider sale lands in exactly one match class, the bridge adds up, and the
 * classes agree with a plain count of each reference's rows.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import {
  capturingOutput,
  insertLedger,
  insertSales,
  openFixture,
  type Fixture,
  type LedgerRow,
  type SaleRow,
} from '../../support/reconcile.js';

let f: Fixture;
beforeAll(async () => {
  f = await openFixture();
});
afterAll(() => f.cleanup());

const reference = fc.oneof(
  fc.constantFrom('PO-1', 'PO-2', 'PO-3', 'PO-4', 'PO-5', 'PO-6'),
  fc.constantFrom(' PO-1', 'PO-2  ', '  PO-3 ', '', '   '),
);
const money = fc.integer({ min: 0, max: 2_000 }).map((cents) => (cents / 100).toFixed(cents % 3 === 0 ? 1 : 2));
// Around the March/April boundary, in and out of the period (local time -03:00).
const moment = fc.constantFrom(
  '2024-02-29T23:59:00-03:00',
  '2024-03-01T00:00:00-03:00',
  '2024-03-15T12:00:00-03:00',
  '2024-03-31T23:55:00-03:00',
  '2024-04-01T00:05:00-03:00',
);
const saleArb = fc.record({
  partner_reference: reference,
  product_id: fc.constantFrom(1, 2),
  sales_price: money,
  partner_cost_price: money,
  status: fc.constantFrom('Redeemed by Client', 'Canceled in stock', 'delivered', 'Something new'),
  transaction_at: fc.option(moment, { nil: null }),
  currency: fc.constantFrom('BRL', 'USD'),
  key_sent_to_customer: fc.boolean(),
});
const ledgerArb = fc.record({
  partner_reference: reference,
  product_id: fc.constantFrom(1, 2),
  paid_at: moment,
  sales_price: money,
  expected_cost: money,
  currency_code: fc.constantFrom('BRL', 'USD'),
  order_status: fc.constantFrom('paid', 'paid', 'refunded', 'canceled'),
});

test('match classes conserve every ledger line and every sale', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(saleArb, { maxLength: 12 }),
      fc.array(ledgerArb, { maxLength: 12 }),
      async (saleSpecs, ledgerSpecs) => {
        await f.warehouse.run('DELETE FROM sales; DELETE FROM ledger');
        const sales: SaleRow[] = saleSpecs.map((s, i) => ({ ...s, transaction_id: i + 1, key: `K-${i}-SECRET` }));
        const ledger: LedgerRow[] = ledgerSpecs.map((l, i) => ({ ...l, source_line: i + 2, file_hash: 'h' }));
        await insertSales(f.warehouse, sales);
        await insertLedger(f.warehouse, ledger);

        // The run itself fails if a data test (conservation, bridge, accepted values, unique ids) fails.
        const summary = await reconcile(
          f.warehouse,
          f.config,
          { period: '2024-03', asOf: '2024-04-10' },
          capturingOutput().output,
        );

        const rows = (side: string) =>
          summary.matchClasses.filter((c) => c.side === side).reduce((n, c) => n + c.rows, 0);
        expect(rows('ledger')).toBe(ledger.length);
        expect(rows('provider')).toBe(sales.length);

        // Matched rows come in one-to-one pairs of a non-empty trimmed reference.
        const count = (side: string, cls: string) =>
          summary.matchClasses.find((c) => c.side === side && c.matchClass === cls)?.rows ?? 0;
        expect(count('ledger', 'matched')).toBe(count('provider', 'matched'));
        const trimmed = (r: string) => r.trim();
        const expectedMatched = new Set(
          ledger
            .map((l) => trimmed(l.partner_reference))
            .filter((r) => r !== '')
            .filter((r) => ledger.filter((l) => trimmed(l.partner_reference) === r).length === 1)
            .filter((r) => sales.filter((s) => trimmed(s.partner_reference ?? '') === r).length === 1)
            .filter((r) => {
              const inMarch = (at: string | null) =>
                at !== null && at >= '2024-03-01T00:00:00-03:00' && at <= '2024-03-31T23:59:59-03:00';
              return (
                inMarch(ledger.find((l) => trimmed(l.partner_reference) === r)!.paid_at) ||
                inMarch(sales.find((s) => trimmed(s.partner_reference ?? '') === r)!.transaction_at)
              );
            }),
        );
        expect(count('ledger', 'matched')).toBe(expectedMatched.size);
      },
    ),
    { numRuns: 40 },
  );
});
