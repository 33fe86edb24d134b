/**
 * Suggested matches at the period's edges (issue 29): a ledger order of the period's last days pairs with a provider
 * sale up to maxDays into the next month, one of its first days with a sale up to maxDays before it; a sale further
 * away, a canceled one, one whose reference a ledger line of the next month carries, and one of a day the ledger does
 * not reach yet are not proposed. A confirmed edge pair is matched by the next reconcile, its data tests passing.
 */
import { expect, test } from 'vitest';
import { decideMatches, listMatches } from '../../../pipelines/decisions/matches.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import {
  asOf,
  capturingOutput,
  findingsOf,
  fixtureForEachTest,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
} from '../../support/reconcile.js';

const f = fixtureForEachTest();
const rerun = () => reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);

test("an order near the period's end (start) pairs with a sale up to maxDays into the next (last) month", async () => {
  // the 31st's order, the 2nd's sale: a transposition two days apart
  const nextMonth = sale({
    partner_reference: 'PO-2026-0009413',
    product_id: 21,
    transaction_at: '2024-04-02T10:00:00-03:00',
  });
  // the 1st's order, the 27th of February's sale: a case difference three days apart (maxDays 3)
  const lastMonth = sale({
    partner_reference: 'PO-2026-0009501',
    product_id: 22,
    transaction_at: '2024-02-27T12:00:00-03:00',
  });
  // five days after its order: beyond maxDays
  const tooLate = sale({
    partner_reference: 'PO-2026-0009601',
    product_id: 23,
    transaction_at: '2024-04-03T12:00:00-03:00',
  });
  // canceled: never a candidate, however near
  const canceled = sale({
    partner_reference: 'PO-2026-0009701',
    product_id: 24,
    status: 'Canceled in stock',
    transaction_at: '2024-04-01T12:00:00-03:00',
  });
  // its reference is on a ledger line of April: matched by it there, so not a candidate for March's order
  const taken = sale({
    partner_reference: 'PO-2026-0009802',
    product_id: 25,
    transaction_at: '2024-04-01T12:00:00-03:00',
  });
  await insertSales(f.warehouse, [nextMonth, lastMonth, tooLate, canceled, taken]);
  await insertLedger(f.warehouse, [
    ledgerFor(nextMonth, { partner_reference: 'PO-2026-0009431', paid_at: '2024-03-31T20:00:00-03:00' }),
    ledgerFor(lastMonth, { partner_reference: 'po-2026-0009501', paid_at: '2024-03-01T09:00:00-03:00' }),
    ledgerFor(tooLate, { partner_reference: 'PO-2026-0009610', paid_at: '2024-03-29T12:00:00-03:00' }),
    ledgerFor(canceled, { partner_reference: 'PO-2026-0009710', paid_at: '2024-03-31T12:00:00-03:00' }),
    ledgerFor(taken, { partner_reference: 'PO-2026-0009803', paid_at: '2024-03-31T12:00:00-03:00' }),
    ledgerFor(taken), // April's own line for the sale
  ]);
  // The ledger reaches from March 1st to April 1st: a sale of February 27th or April 2nd has no order *yet* as far as
  // it can tell (the months around are not imported), so neither is a candidate.
  await rerun();
  expect(await listMatches(f.warehouse, { period })).toEqual([]);
  // February's and April's ledgers imported (an order of the 20th, one of the 5th, each with its sale): now they are.
  const february = sale({ product_id: 26, transaction_at: '2024-02-20T12:00:00-03:00' });
  const april = sale({ product_id: 27, transaction_at: '2024-04-05T12:00:00-03:00' });
  await insertSales(f.warehouse, [february, april]);
  await insertLedger(f.warehouse, [ledgerFor(february), ledgerFor(april)]);
  await rerun();
  const proposed = await listMatches(f.warehouse, { period });
  expect(proposed.map((r) => [r.ledger_reference, r.transaction_id, r.rank]).sort()).toEqual(
    [
      ['PO-2026-0009431', String(nextMonth.transaction_id), 1],
      ['po-2026-0009501', String(lastMonth.transaction_id), 1],
    ].sort(),
  );
  const edge = proposed.find((r) => r.ledger_reference === 'PO-2026-0009431')!;
  expect(edge.reasons).toMatch(/; 2 days apart$/);
  expect(proposed.find((r) => r.ledger_reference === 'po-2026-0009501')!.reasons).toMatch(/; 3 days apart$/);

  // Confirmed, the edge pair is matched from the next run: the two sides meet across the month's end.
  await decideMatches(f.warehouse, [{ suggestionId: edge.suggestion_id, verb: 'confirm', note: null }], {
    by: 'Ana Lima',
    source: 'cli',
    timezone: 'UTC',
    command: 'matches confirm',
  });
  const summary = await rerun();
  expect(summary.tests.filter((t) => !t.passed)).toEqual([]);
  const findings = await findingsOf(f.warehouse, period);
  expect(findings).toContain('reference_mismatch PO-2026-0009431');
  expect(findings).not.toContain('missing_at_provider PO-2026-0009431');
  const [confirmed] = await listMatches(f.warehouse, { period, status: 'confirmed' });
  expect(confirmed).toMatchObject({ suggestion_id: edge.suggestion_id, provider_reference: 'PO-2026-0009413' });
  const decided = await f.warehouse.all<{ provider_cost: string | null; days_apart: string | null }>(
    `SELECT provider_cost::VARCHAR AS provider_cost, days_apart::VARCHAR AS days_apart
     FROM recon_match_suggestions WHERE suggestion_id = $1`,
    [edge.suggestion_id],
  );
  // the decided row still shows its sale, dated outside the period's scope
  expect(decided).toEqual([{ provider_cost: '8.0000', days_apart: '2' }]);
});
