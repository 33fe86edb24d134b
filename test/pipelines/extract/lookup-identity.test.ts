/**
 * Issue 34: a reference look-up's answer counts only for the reference asked, and is stored exactly. A scripted
 * provider over real HTTP answers one reference with another reference's sale (not "found", not stored) and
 * another with a sale whose id is above 2^53 (stored with its exact digits, not rounded onto a neighbour).
 */
import { afterEach, expect, test } from 'vitest';
import { lookUpReferences } from '../../../pipelines/extract/lookup.js';
import { capturingOutput, fixtureForEachTest } from '../../support/reconcile.js';
import { authorized, closeScripted, json, sale, setup } from '../../support/scripted-upstream.js';

const f = fixtureForEachTest();
afterEach(closeScripted);

test("a look-up answering another reference's sale is not found; an id above 2^53 is stored exactly", async () => {
  const big = '9007199254740993'; // 2^53 + 1
  const { client } = await setup((hit, res, upstream) => {
    if (!authorized(hit, res, upstream)) return;
    if (hit.path === '/sales/partner-reference/PO-ASKED') return json(res, 200, [sale(5001, 'PO-OTHER', 'Redeemed')]);
    if (hit.path === '/sales/partner-reference/PO-BIG') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        `[${JSON.stringify(sale(1, 'PO-BIG', 'Redeemed')).replace('"transactionId":1', `"transactionId":${big}`)}]`,
      );
    }
    json(res, 404, {});
  });
  // The neighbour a rounded id would have replaced: 2^53 itself.
  await f.warehouse.run(
    `INSERT INTO sales (transaction_id, partner_reference, status, first_seen_at, last_seen_at)
     VALUES (9007199254740992, 'PO-NEIGHBOUR', 'Redeemed', now(), now())`,
  );
  const { output, text } = capturingOutput();
  const summary = await lookUpReferences(
    f.warehouse,
    f.config,
    client,
    ['PO-ASKED', 'PO-BIG'],
    { runId: 'run-1', label: '2024-03' },
    output,
  );
  expect(summary).toMatchObject({ references: 2, found: 1, records: 1, loaded: 1 });
  expect(text()).toMatch(/1 record\(s\) of another partner reference than the one asked: not loaded/);
  const stored = await f.warehouse.all(
    'SELECT transaction_id::VARCHAR AS id, partner_reference FROM sales ORDER BY transaction_id',
  );
  expect(stored).toEqual([
    { id: '9007199254740992', partner_reference: 'PO-NEIGHBOUR' },
    { id: big, partner_reference: 'PO-BIG' },
  ]);
  const asked = await f.warehouse.all(
    'SELECT partner_reference, found, records FROM provider_lookups ORDER BY partner_reference',
  );
  expect(asked).toEqual([
    { partner_reference: 'PO-ASKED', found: false, records: '0' },
    { partner_reference: 'PO-BIG', found: true, records: '1' },
  ]);
});
