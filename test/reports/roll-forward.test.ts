/**
 * The roll-forward and the decisions table agree (issue 30): both add up the same amount (the cost bridge effect),
 * open at start + new − cleared − written off = open at end, and written off is counted from the decisions —
 * also those recorded after the reconcile that built the roll-forward (it said "written off 0" beside 3).
 */
import { expect, test } from 'vitest';
import { decideFindings } from '../../pipelines/decisions/findings.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { loadDecisionFacts } from '../../reports/decision-facts.js';
import { loadRollForward, type RollForwardLine } from '../../reports/roll-forward.js';
import {
  asOf,
  capturingOutput,
  fixtureForEachTest,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
} from '../support/reconcile.js';

const f = fixtureForEachTest();
const units = (value: string | null | undefined) => Math.round(Number(value ?? 0) * 10_000);

async function agree(): Promise<RollForwardLine> {
  const [line] = await loadRollForward(f.warehouse, period);
  const facts = await loadDecisionFacts(f.warehouse, period);
  const total = facts.totals.find((t) => t.currency === 'BRL')!;
  const writtenOff = facts.lines.find((l) => l.kind === 'decision' && l.label === 'write_off');
  const r = line!;
  // The movement adds up …
  expect(r.openAtStart + r.new - r.cleared - r.writtenOff).toBe(r.openAtEnd);
  expect(
    units(r.openAtStartAmount) +
      units(r.newAmount) -
      units(r.clearedAmount) -
      units(r.writtenOffAmount) +
      units(r.remeasuredAmount),
  ).toBe(units(r.openAtEndAmount));
  // … and open at end is the decisions table's findings less its write-offs, in count and in amount.
  expect(r.openAtEnd).toBe(total.findings - (writtenOff?.findings ?? 0));
  expect(units(r.openAtEndAmount)).toBe(units(total.net) - units(writtenOff?.net));
  expect(r.writtenOff).toBe(writtenOff?.findings ?? 0);
  return r;
}

test('written off after the reconcile is counted from the decisions; the decisions table agrees', async () => {
  const breaks = [9.0, 8.5, 8.25, 7.5].map((cost) => sale({ partner_cost_price: cost.toFixed(2) }));
  const key = sale({ status: 'delivered', key_sent_to_customer: false, partner_cost_price: '30.00' });
  await insertSales(f.warehouse, [...breaks, key]);
  await insertLedger(f.warehouse, [...breaks.map((s) => ledgerFor(s, { expected_cost: '8.00' })), ledgerFor(key)]);
  const quiet = capturingOutput().output;
  await reconcile(f.warehouse, f.config, { period, asOf }, quiet);
  expect((await agree()).writtenOff).toBe(0);

  const ids = (
    await f.warehouse.all<{ finding_id: string }>(
      `SELECT finding_id FROM recon_exceptions WHERE exception_type = 'cost_mismatch' ORDER BY finding_id LIMIT 3`,
    )
  ).map((r) => r.finding_id);
  await decideFindings(f.warehouse, ids, { decision: 'write_off', note: 'small', by: 'Ana' });
  const after = await agree();
  expect(after.writtenOff).toBe(3);
  // A write-off changed back is open again.
  await decideFindings(f.warehouse, [ids[0]!], { decision: 'investigating', by: 'Ana' });
  expect((await agree()).writtenOff).toBe(2);
  // The next reconcile's roll-forward says the same.
  await reconcile(f.warehouse, f.config, { period, asOf }, quiet);
  expect((await agree()).openAtEnd).toBe(after.openAtEnd + 1);
});
