/**
 * For the actions and controls tests on a real DuckDB file (test/support/reconcile.ts's fixture): refunded orders
 * whose sales the provider still shows redeemed — each a refunded_not_reversed finding a reversal can cancel —
 * reconciled, and taken as far as a test needs (decided `reverse` by Ana, planned by Ana, approved by Bruno); and
 * the ids of the period's findings of a type. One setup, where four test files each wrote their own.
 */
import type { Warehouse } from '../../core/warehouse.js';
import { approveActions } from '../../pipelines/actions/approve.js';
import { planActions } from '../../pipelines/actions/plan.js';
import { decideFindings } from '../../pipelines/decisions/findings.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import {
  asOf,
  capturingOutput,
  type Fixture,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
  type SaleRow,
} from './reconcile.js';

/** The ids of the findings of a type, in id order. */
export async function findingIdsOf(warehouse: Warehouse, type: string): Promise<string[]> {
  const sql = 'SELECT finding_id FROM recon_exceptions WHERE exception_type = $1 ORDER BY finding_id';
  return (await warehouse.all<{ finding_id: string }>(sql, [type])).map((r) => r.finding_id);
}

/** The id of the one finding of a type; an error naming the type when there is none. */
export async function findingIdOf(warehouse: Warehouse, type: string): Promise<string> {
  const [id] = await findingIdsOf(warehouse, type);
  if (id === undefined) throw new Error(`no ${type} finding`);
  return id;
}

/**
 * Two findings of the period, reconciled: a refunded order whose sale is still redeemed (refunded_not_reversed,
 * reversible) and a cost break of 1.00 BRL (cost_mismatch, which no reversal carries out).
 */
export async function refundAndCostBreak(
  f: Fixture,
): Promise<{ refunded: SaleRow; refundedId: string; costId: string }> {
  const refunded = sale();
  const costBreak = sale({ partner_cost_price: '9.00' });
  await insertSales(f.warehouse, [refunded, costBreak]);
  await insertLedger(f.warehouse, [
    ledgerFor(refunded, { order_status: 'refunded' }),
    ledgerFor(costBreak, { expected_cost: '8.00' }),
  ]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  return {
    refunded,
    refundedId: await findingIdOf(f.warehouse, 'refunded_not_reversed'),
    costId: await findingIdOf(f.warehouse, 'cost_mismatch'),
  };
}

/** The period's actions planned by Ana and all approved by Bruno. */
export async function planAndApprove(f: Fixture): Promise<void> {
  await planActions(f.warehouse, f.config, { period, by: 'Ana' });
  await approveActions(f.warehouse, f.config, { period, all: true, by: 'Bruno' });
}

/**
 * Each sale with a refunded ledger order, reconciled, every refunded_not_reversed finding decided `reverse` by Ana,
 * planned and approved (planAndApprove). `beforeReconcile` may change the rows first. Gives the findings' ids.
 */
export async function approvedRefunds(
  f: Fixture,
  refunds: SaleRow[],
  beforeReconcile?: () => Promise<void>,
): Promise<string[]> {
  await insertSales(f.warehouse, refunds);
  await insertLedger(
    f.warehouse,
    refunds.map((s) => ledgerFor(s, { order_status: 'refunded' })),
  );
  await beforeReconcile?.();
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const findingIds = await findingIdsOf(f.warehouse, 'refunded_not_reversed');
  await decideFindings(f.warehouse, findingIds, { decision: 'reverse', by: 'Ana' });
  await planAndApprove(f);
  return findingIds;
}
