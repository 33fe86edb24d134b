/**
 * The review page's "every finding the filters choose" (issue 32): the ids are chosen in the file the act writes,
 * so a finding decided between the page's read and the act (from the command line, another page) is judged by the
 * filters as it stands then — an "undecided" filter no longer overwrites the decision taken meanwhile.
 */
import { afterEach, expect, test } from 'vitest';
import { Warehouse } from '../../../core/warehouse.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { typedActor } from '../../../pipelines/people/actor.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { decideNamed } from '../../../pipelines/review/acts.js';
import { filteredFindingIds, parseFindingQuery } from '../../../pipelines/review/reads.js';
import {
  asOf,
  capturingOutput,
  type Fixture,
  insertLedger,
  insertSales,
  ledgerFor,
  openFixture,
  period,
  sale,
} from '../../support/reconcile.js';

let f: Fixture | undefined;
afterEach(() => f?.cleanup());

test('an undecided filter acts on the findings undecided when it writes, not when the page read them', async () => {
  f = await openFixture();
  const first = sale({ partner_cost_price: '9.00' });
  const second = sale({ partner_cost_price: '9.50' });
  await insertSales(f.warehouse, [first, second]);
  await insertLedger(f.warehouse, [
    ledgerFor(first, { expected_cost: '8.00' }),
    ledgerFor(second, { expected_cost: '8.00' }),
  ]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const query = parseFindingQuery(period, new URLSearchParams('decision=none'));
  // The page reads both as undecided …
  expect(await filteredFindingIds(f.warehouse, query)).toHaveLength(2);
  const firstId = (await f.warehouse.one<{ finding_id: string }>(
    'SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1',
    [first.partner_reference!],
  ))!.finding_id;
  // … then someone decides one from the command line before the page's act writes.
  await decideFindings(f.warehouse, [firstId], { decision: 'investigating', by: 'Bruno', owner: 'bruno' });
  f.warehouse.close();
  const actorFor = () => typedActor('Ana');
  const outcome = await decideNamed(f.config, actorFor, (w) => filteredFindingIds(w, query), {
    decision: 'accepted',
    note: 'small',
  });
  expect(outcome.ok).toBe(true);
  f.warehouse = await Warehouse.open(f.config.database);
  const decisions = await f.warehouse.all<{ reference: string; decision: string; by: string }>(
    `SELECT partner_reference AS reference, decision, decided_by AS by FROM recon_exceptions ORDER BY 1`,
  );
  expect(decisions).toEqual([
    { reference: first.partner_reference, decision: 'investigating', by: 'Bruno' },
    { reference: second.partner_reference, decision: 'accepted', by: 'Ana' },
  ]);
});
