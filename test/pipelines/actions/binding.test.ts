/**
 * An action bound to its decision (issue 28 item 4), on a real DuckDB file against a scripted provider over real
 * HTTP: an approved reversal whose finding is decided again is canceled before anything is read or requested; one
 * left in flight by a crash, whose sale still reads redeemed, is canceled instead of requested again; an action
 * planned before the binding column is compared by its decision's time.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { executeActions } from '../../../pipelines/actions/execute.js';
import { planActions } from '../../../pipelines/actions/plan.js';
import { listActions } from '../../../pipelines/actions/store.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { capturingOutput, fixtureForEachTest, period, sale } from '../../support/reconcile.js';
import { approvedRefunds } from '../../support/refunds.js';
import { authorized, closeScripted, json, sale as wireSale, setup, type Hit } from '../../support/scripted-upstream.js';

const f = fixtureForEachTest();
afterEach(closeScripted);
const quiet = () => capturingOutput().output;

/** A refunded order decided `reverse` by Ana, planned by Ana, approved by Bruno. */
async function approvedReversal(): Promise<{ transactionId: number; findingId: string }> {
  const refunded = sale();
  const [findingId] = await approvedRefunds(f, [refunded]);
  return { transactionId: refunded.transaction_id, findingId: findingId! };
}

/** A provider whose sale reads redeemed and whose reversal would succeed: every hit is counted. */
async function provider(transactionId: number) {
  return setup((hit: Hit, res: ServerResponse, upstream) => {
    if (!authorized(hit, res, upstream)) return;
    if (hit.path === `/sales/transaction/${transactionId}`)
      return json(res, 200, {
        ...wireSale(transactionId, `PO-${transactionId}`, 'Redeemed by Client'),
        partnerCostPrice: 8,
      });
    if (hit.path === '/reversal')
      return json(res, 200, { message: 'reversed', status: 'Canceled in stock', transactionId });
    json(res, 404, { message: 'no such path' });
  });
}

test('an approved reversal whose finding was decided again is canceled: nothing read, nothing requested', async () => {
  const { transactionId, findingId } = await approvedReversal();
  const [planned] = await listActions(f.warehouse, { period });
  const bound = await f.warehouse.one<{ decision_sha256: string; row_sha256: string }>(
    `SELECT a.decision_sha256, d.row_sha256 FROM recon_actions a JOIN recon_decisions d ON d.finding_id = a.finding_id
     WHERE d.superseded_at IS NULL`,
  );
  expect(bound!.decision_sha256).toBe(bound!.row_sha256);
  await decideFindings(f.warehouse, [findingId], { decision: 'claim', note: 'do not reverse', by: 'Ana' });
  const { upstream, client } = await provider(transactionId);
  const result = await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client }, quiet());
  expect(result).toMatchObject({ canceled: 1, verified: 0, failed: 0, actions: [{ outcome: 'canceled' }] });
  expect(upstream.hitsOn('/reversal')).toHaveLength(0);
  expect(upstream.hitsOn(`/sales/transaction/${transactionId}`)).toHaveLength(0);
  const [after] = await listActions(f.warehouse, { period });
  expect(after).toMatchObject({ action_id: planned!.action_id, status: 'canceled' });
  expect(after!.error).toMatch(/decision changed since the action was planned: it is now claim by Ana/);
});

test('left in flight, decided again, its sale still redeemed: canceled, not requested again', async () => {
  const { transactionId, findingId } = await approvedReversal();
  // As a crash after the intent was committed leaves it (execute's step 2), then a new decision.
  await f.warehouse.run(`UPDATE recon_actions SET status = 'in_flight'`);
  await decideFindings(f.warehouse, [findingId], {
    decision: 'accepted',
    note: 'explained by the provider',
    by: 'Ana',
  });
  const { upstream, client } = await provider(transactionId);
  const result = await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client }, quiet());
  expect(result).toMatchObject({ canceled: 1, actions: [{ outcome: 'canceled', reversalRequested: false }] });
  expect(result.actions[0]!.detail).toMatch(/still reads "Redeemed by Client" and the finding's decision changed/);
  expect(upstream.hitsOn('/reversal')).toHaveLength(0);
});

test('an action planned before the binding column is compared by the time of its decision', async () => {
  const { transactionId, findingId } = await approvedReversal();
  await f.warehouse.run('UPDATE recon_actions SET decision_sha256 = NULL');
  const { upstream, client } = await provider(transactionId);
  // The same decision still stands: it goes ahead (once).
  await decideFindings(f.warehouse, [findingId], { decision: 'reverse', by: 'Ana' });
  const ran = await executeActions(f.warehouse, f.config, { period, by: 'Bruno', client }, quiet());
  expect(ran.canceled).toBe(0);
  expect(upstream.hitsOn('/reversal')).toHaveLength(1);
});

test('planning again holds an action by the hash of its decision row, not by the decision time', async () => {
  await approvedReversal();
  // Same row, another time text: the action (and its approval) stays.
  await f.warehouse.run(`UPDATE recon_actions SET decided_at = decided_at - INTERVAL 1 SECOND`);
  const same = await planActions(f.warehouse, f.config, { period, by: 'Ana' });
  expect(same).toMatchObject({ unchanged: 1, canceled: [], proposed: [] });
  expect((await listActions(f.warehouse, { period }))[0]).toMatchObject({ status: 'approved' });
  // Another row at the same time: the approved action is canceled and a new one proposed from the current row.
  await f.warehouse.run(
    `UPDATE recon_actions SET decision_sha256 = repeat('0', 64),
       decided_at = (SELECT decided_at FROM recon_decisions WHERE superseded_at IS NULL)`,
  );
  const other = await planActions(f.warehouse, f.config, { period, by: 'Ana' });
  expect(other).toMatchObject({ unchanged: 0, canceled: [{}], proposed: [{}] });
  expect((await listActions(f.warehouse, { period })).map((a) => a.status)).toEqual(['canceled', 'proposed']);
});
