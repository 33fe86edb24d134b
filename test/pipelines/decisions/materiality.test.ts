/**
 * Materiality (issue 30): an undecided finding under `reconciliation.materiality` of its currency is decided
 * `accepted` by `rule:materiality` through the decision chain, visibly; a material one, one a person decided, one
 * that moves no money and an unredeemed key (exposure) are left alone; `percent` narrows `absolute`.
 */
import ExcelJS from 'exceljs';
import { afterEach, expect, test } from 'vitest';
import { walkDecisionChain } from '../../../pipelines/close/verify-chains.js';
import { applyMateriality } from '../../../pipelines/decisions/materiality.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { writeReport } from '../../../pipelines/report/report.js';
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

async function month(materiality: Record<string, unknown>) {
  await f?.cleanup();
  f = await openFixture({ reconciliation: { materiality } });
  const small = sale({ partner_cost_price: '8.25' });
  const large = sale({ partner_cost_price: '9.00' });
  const decided = sale({ partner_cost_price: '8.10' });
  const product = sale({ product_id: 8 });
  const key = sale({ status: 'delivered', key_sent_to_customer: false, partner_cost_price: '0.30' });
  await insertSales(f.warehouse, [small, large, decided, product, key]);
  await insertLedger(f.warehouse, [
    ledgerFor(small, { expected_cost: '8.00' }),
    ledgerFor(large, { expected_cost: '8.00' }),
    ledgerFor(decided, { expected_cost: '8.00' }),
    ledgerFor(product, { product_id: 7 }),
    ledgerFor(key, { expected_cost: '0.30' }),
  ]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const decidedId = (await f.warehouse.one<{ finding_id: string }>(
    'SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1',
    [decided.partner_reference!],
  ))!.finding_id;
  await decideFindings(f.warehouse, [decidedId], { decision: 'investigating', by: 'Ana' });
  const decisions = () =>
    f!.warehouse.all<{ reference: string; type: string; decision: string | null; by: string | null }>(
      `SELECT partner_reference AS reference, exception_type AS type, decision, decided_by AS by
       FROM recon_exceptions ORDER BY partner_reference, exception_type`,
    );
  return { small, large, decided, product, key, decisions };
}

test('under materiality: accepted by the rule, in the chain; everything else left as it was', async () => {
  const m = await month({ BRL: { absolute: 0.5 } });
  const result = await applyMateriality(f!.warehouse, f!.config, period);
  expect(result.accepted).toEqual([{ currency: 'BRL', findings: 1, threshold: 'BRL 0.5' }]);
  const rows = await m.decisions();
  const of = (reference: string | undefined) => rows.filter((r) => r.reference === reference);
  expect(of(m.small.partner_reference)).toEqual([
    { reference: m.small.partner_reference, type: 'cost_mismatch', decision: 'accepted', by: 'rule:materiality' },
  ]);
  expect(of(m.large.partner_reference).map((r) => r.decision)).toEqual([null]);
  expect(of(m.decided.partner_reference).map((r) => [r.decision, r.by])).toEqual([['investigating', 'Ana']]);
  expect(of(m.product.partner_reference).map((r) => r.decision)).toEqual([null]);
  expect(of(m.key.partner_reference).map((r) => r.decision)).toEqual([null]);
  // Recorded like any decision: a row of the chain, with its note saying the rule.
  const chained = await f!.warehouse.one<{ note: string; row_sha256: string | null }>(
    `SELECT note, row_sha256 FROM recon_decisions WHERE decided_by = 'rule:materiality'`,
  );
  expect(chained?.note).toMatch(/under materiality: .*BRL 0\.5/);
  expect(chained?.row_sha256).toMatch(/^[0-9a-f]{64}$/);
  // With people configured every person's decision must be signed; the rule's acceptance is no person's act.
  const mismatches: { subject: string; reason: string }[] = [];
  await walkDecisionChain(f!.warehouse, period, [], mismatches as never, f!.config.reconciliation.materiality);
  expect(mismatches.filter((m) => m.subject.includes('rule:materiality'))).toEqual([]);
  expect(mismatches.filter((m) => m.subject.includes('by Ana')).map((m) => m.reason)).toEqual([
    expect.stringContaining('it is not signed'),
  ]);
  // Applying it again decides nothing more.
  expect((await applyMateriality(f!.warehouse, f!.config, period)).accepted).toEqual([]);
  // The Summary lists them apart from what people accepted.
  const { workbook: file } = await writeReport(f!.warehouse, f!.config, { period }, capturingOutput().output);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const summary = Array.from(workbook.getWorksheet('Summary')!.getSheetValues(), (row) =>
    Array.isArray(row) ? row.slice(1) : [],
  );
  const byRule = summary.find((row) => String(row[0]).includes('accepted by rule:materiality'));
  expect(byRule?.slice(0, 3)).toEqual(['BRL accepted by rule:materiality (reconciliation.materiality)', 1, 0.25]);
});

test('verify holds an unsigned rule:materiality row to the rule: one over a material finding breaks', async () => {
  const m = await month({ BRL: { absolute: 0.5 } });
  await applyMateriality(f!.warehouse, f!.config, period);
  // The forgery: someone accepts the material finding (1.00 at issue) under the rule's name, with no key.
  const large = (await f!.warehouse.one<{ finding_id: string }>(
    'SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1',
    [m.large.partner_reference!],
  ))!.finding_id;
  await decideFindings(f!.warehouse, [large], { decision: 'accepted', by: 'rule:materiality', note: 'small' });
  const walk = async (materiality: Record<string, { absolute: number; percent?: number }>) => {
    const mismatches: { subject: string; reason: string }[] = [];
    await walkDecisionChain(f!.warehouse, period, [], mismatches as never, materiality);
    return mismatches.filter((x) => x.subject.includes('rule:materiality'));
  };
  const forged = await walk(f!.config.reconciliation.materiality);
  expect(forged).toEqual([
    { kind: 'decision', subject: expect.stringContaining(`finding ${large}`), reason: expect.any(String) },
  ]);
  expect(forged[0]!.reason).toMatch(/names the materiality rule, but the rule does not accept its finding/);
  // With no threshold in force the rule accepts nothing, so neither row stands unsigned.
  expect(await walk({})).toHaveLength(2);
  // Unattested (no keys): names are typed anyway, and verify says so; the rule is not asked.
  const unattested: unknown[] = [];
  await walkDecisionChain(f!.warehouse, period, null, unattested as never, {});
  expect(unattested).toEqual([]);
});

test('a percent narrows the absolute threshold: 0.25 on 8.00 is 3.1 %, over 1 %', async () => {
  await month({ BRL: { absolute: 5, percent: 1 } });
  expect((await applyMateriality(f!.warehouse, f!.config, period)).accepted).toEqual([]);
  const none = await month({});
  expect((await applyMateriality(f!.warehouse, f!.config, period)).skipped).toBe('no reconciliation.materiality set');
  expect((await none.decisions()).filter((r) => r.by === 'rule:materiality')).toEqual([]);
});
