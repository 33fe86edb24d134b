/**
 * Decisions typed into a copy of a generated workbook: imported (a date cell, text and an Excel serial),
 * idempotent on a second import, rejected rows reported with sheet, row and why; carried through two
 * re-runs of reconcile and shown in the next workbook; a finding that clears keeps its decision in the
 * history; `findings decide` and `findings list` on the same findings.
 */
import path from 'node:path';
import { expect, test } from 'vitest';
import { decideFindings, importDecisions } from '../../../pipelines/decisions/findings.js';
import { listFindings } from '../../../pipelines/decisions/findings-list.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { readDecisionsWorkbook } from '../../../reports/decisions-reader.js';
import { capturingOutput, fixtureForEachTest, insertSales, sale } from '../../support/reconcile.js';
import { asOf, fillFindings, findingIdOf, period, reconcileAndReport, typeDecisions } from '../../support/decisions.js';

const f = fixtureForEachTest();
const quiet = () => capturingOutput().output;

test(
  'decisions typed into a workbook copy are imported ' + 'once, survive two re-runs and show in the next workbook',
  async () => {
    const { costBreak, missing, fixable } = await fillFindings(f);
    // A finding of another period, to be pasted into this period's workbook.
    const april = sale({ transaction_at: '2024-04-10T12:00:00-03:00' });
    await insertSales(f.warehouse, [april]);
    await reconcileAndReport(f, '2024-04');
    const workbook = await reconcileAndReport(f);

    const ids = {
      cost: await findingIdOf(f, costBreak.partner_reference),
      missing: await findingIdOf(f, missing.partner_reference),
      fixable: await findingIdOf(f, fixable.partner_reference),
      april: await findingIdOf(f, april.partner_reference),
    };
    const copy = path.join(f.dir, 'decided.xlsx');
    await typeDecisions(
      workbook,
      copy,
      {
        [ids.cost]: {
          decision: 'claim',
          note: 'provider charged 9.00',
          owner: 'ana',
          expectedClearBy: new Date(Date.UTC(2024, 4, 31)),
        },
        [ids.missing]: { decision: 'timing', owner: 'rui', expectedClearBy: '2024-04-30' },
        [ids.fixable]: { decision: 'fix_ledger', expectedClearBy: 45_474 }, // Excel serial of 2024-07-01
      },
      { insertColumnFirst: true },
    );
    // The gates judge Expected clear by against today: the fixture's month is in the past (issue 28).
    const first = await importDecisions(f.warehouse, copy, { by: 'controller', today: '2024-04-10' }, quiet());
    expect(first.refused).toEqual([]);
    expect(first.period).toBe(period);
    expect(first.source).toMatch(/^workbook:decided\.xlsx#[0-9a-f]{64}$/);
    expect(first.recorded.map((r) => [r.findingId, r.decision, r.expectedClearBy, r.previous]).sort()).toEqual(
      [
        [ids.cost, 'claim', '2024-05-31', null],
        [ids.missing, 'timing', '2024-04-30', null],
        [ids.fixable, 'fix_ledger', '2024-07-01', null],
      ].sort(),
    );

    const again = await importDecisions(f.warehouse, copy, { by: 'controller', today: '2024-04-10' }, quiet());
    expect(again.recorded).toEqual([]);
    expect(again.unchanged).toBe(3);
    expect(await count('SELECT count(*) AS n FROM recon_decisions')).toBe(3);

    // Rows that must be refused, each with its sheet and row; they change nothing.
    const bad = path.join(f.dir, 'bad.xlsx');
    await typeDecisions(copy, bad, {
      [ids.cost]: { decision: 'maybe later' },
      [ids.missing]: { findingId: ids.april, decision: 'accepted' },
      [ids.fixable]: { findingId: 'no-such-finding', decision: 'accepted' },
    });
    const refused = await importDecisions(f.warehouse, bad, { by: 'controller' }, quiet());
    expect(refused.recorded).toEqual([]);
    expect(refused.refused.map((r) => [r.sheet, r.reason.split(':')[0]]).sort()).toEqual(
      [
        ['Amounts', '"maybe later" is not a decision'],
        ['Missing', 'the finding belongs to 2024-04, not to 2024-03, the period of this workbook'],
        ['Amounts', 'no finding no-such-finding in the database (cleared or never reconciled here)'],
      ].sort(),
    );
    expect(refused.refused.every((r) => typeof r.row === 'number' && r.row > 1)).toBe(true);
    expect(await count('SELECT count(*) AS n FROM recon_decisions')).toBe(3);

    // Two re-runs of reconcile keep the decisions on their findings.
    for (let run = 0; run < 2; run++) await reconcile(f.warehouse, f.config, { period, asOf }, quiet());
    const listed = await listFindings(f.warehouse, { period });
    const byId = new Map(listed.map((r) => [r.finding_id, r]));
    expect(byId.get(ids.cost)).toMatchObject({
      decision: 'claim',
      owner: 'ana',
      decision_note: 'provider charged 9.00',
      expected_clear_by: '2024-05-31',
      state: 'decided',
    });
    // timing until 2024-04-30, as of 2024-04-05: pending.
    expect(byId.get(ids.missing)).toMatchObject({ decision: 'timing', state: 'pending' });
    expect((await listFindings(f.warehouse, { period, undecided: true })).map((r) => r.finding_id)).toEqual([]);

    // The next workbook shows them.
    const next = await reconcileAndReport(f);
    const shown = await readDecisionsWorkbook(next);
    const decided = shown.rows
      .filter((r) => r.decision !== null)
      .map((r) => [r.findingId, r.decision, r.owner, r.expectedClearBy]);
    expect(decided.sort()).toEqual(
      [
        [ids.cost, 'claim', 'ana', '2024-05-31'],
        [ids.missing, 'timing', 'rui', '2024-04-30'],
        [ids.fixable, 'fix_ledger', null, '2024-07-01'],
      ].sort(),
    );
    expect(shown.period).toBe(period);
  },
);

test(
  'a finding that clears keeps its decision in the history; ' + 'decide supersedes and keeps what it is not told',
  async () => {
    const { costBreak, fixable } = await fillFindings(f);
    await reconcile(f.warehouse, f.config, { period, asOf }, quiet());
    const fixableId = await findingIdOf(f, fixable.partner_reference);
    const costId = await findingIdOf(f, costBreak.partner_reference);

    await decideFindings(f.warehouse, [fixableId, costId], {
      decision: 'investigating',
      owner: 'ana',
      by: 'controller',
    });
    const changed = await decideFindings(f.warehouse, [costId], {
      decision: 'timing',
      expectedClearBy: '2024-04-01',
      by: 'controller',
      today: '2024-03-31',
    });
    expect(changed.recorded).toHaveLength(1);
    expect(changed.recorded[0]).toMatchObject({ owner: 'ana', previous: 'investigating' });
    // 2024-04-01 is before the as-of 2024-04-05: overdue.
    expect((await listFindings(f.warehouse, { period })).find((r) => r.finding_id === costId)?.state).toBe('overdue');
    const unknown = await decideFindings(f.warehouse, ['nope'], { decision: 'accepted', by: 'controller' });
    expect(unknown.refused[0]?.reason).toMatch(/no finding nope/);

    // The provider corrects the cost: the finding clears, its decisions stay in recon_decisions.
    await f.warehouse.run('UPDATE sales SET partner_cost_price = 8.00 WHERE transaction_id = $1', [
      fixable.transaction_id,
    ]);
    await reconcile(f.warehouse, f.config, { period, asOf }, quiet());
    expect(await count(`SELECT count(*) AS n FROM recon_exceptions WHERE finding_id = '${fixableId}'`)).toBe(0);
    const history = await f.warehouse.all<{ decision: string; superseded: boolean }>(
      `SELECT decision, superseded_at IS NOT NULL AS superseded FROM recon_decisions WHERE finding_id = $1`,
      [fixableId],
    );
    expect(history).toEqual([{ decision: 'investigating', superseded: false }]);
    const costHistory = await f.warehouse.all<{ decision: string; superseded: boolean }>(
      `SELECT decision, superseded_at IS NOT NULL AS superseded FROM recon_decisions WHERE finding_id = $1 ORDER BY ` +
        `decided_at, superseded_at NULLS LAST`,
      [costId],
    );
    expect(costHistory).toEqual([
      { decision: 'investigating', superseded: true },
      { decision: 'timing', superseded: false },
    ]);
  },
);

async function count(sql: string): Promise<number> {
  return Number((await f.warehouse.one<{ n: string }>(sql))!.n);
}
