/**
 * Issue 30, carried forward across two periods: February's findings are carried into March when March is
 * reconciled; what happens to them afterwards — a write-off, a timing decision, a finding cleared by reconciling
 * February again — shows in March's carried-forward rows, workbook (sheet and Summary) and email at once, without
 * reconciling March again (the rows were a copy of the decisions as they stood at March's reconcile).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { expect, test } from 'vitest';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { writeReport } from '../../../pipelines/report/report.js';
import {
  capturingOutput,
  fixtureForEachTest,
  insertLedger,
  insertSales,
  ledgerFor,
  sale,
} from '../../support/reconcile.js';

const f = fixtureForEachTest();
const february = '2024-02-10T12:00:00-03:00';

test("a decision on February's finding taken after March's reconcile shows in March's report", async () => {
  const cleared = sale({ partner_cost_price: '9.00', transaction_at: february });
  const written = sale({ partner_cost_price: '8.75', transaction_at: february });
  const timing = sale({ partner_cost_price: '8.50', transaction_at: february });
  const key = sale({ transaction_at: february, status: 'delivered', key_sent_to_customer: false });
  const march = sale();
  await insertSales(f.warehouse, [cleared, written, timing, key, march]);
  await insertLedger(f.warehouse, [
    ledgerFor(cleared, { expected_cost: '8.00' }),
    ledgerFor(written, { expected_cost: '8.00' }),
    ledgerFor(timing, { expected_cost: '8.00' }),
    ledgerFor(key),
    ledgerFor(march),
  ]);
  const quiet = capturingOutput().output;
  await reconcile(f.warehouse, f.config, { period: '2024-02', asOf: '2024-03-05' }, quiet);
  await reconcile(f.warehouse, f.config, { period: '2024-03', asOf: '2024-04-05' }, quiet);
  const carried = () =>
    f.warehouse.all<{ partner_reference: string; decision: string | null; owner: string | null; overdue: boolean }>(
      `SELECT partner_reference, decision, owner, overdue FROM recon_carried_forward
       WHERE period = '2024-03' ORDER BY partner_reference, exception_type`,
    );
  expect((await carried()).map((r) => [r.partner_reference, r.decision, r.overdue])).toEqual(
    [cleared, written, timing, key].map((s) => [s.partner_reference, null, false]).sort(),
  );

  // After March's reconcile: one finding written off, one decided timing (its clear-by passed by March's as-of),
  // and February reconciled again after the ledger was corrected, which clears the first.
  const idOf = async (reference: string | undefined) =>
    (await f.warehouse.one<{ finding_id: string }>(
      `SELECT finding_id FROM recon_exceptions WHERE period = '2024-02' AND partner_reference = $1`,
      [reference!],
    ))!.finding_id;
  const decide = { by: 'Ana', today: '2024-03-01' };
  await decideFindings(f.warehouse, [await idOf(written.partner_reference)], {
    ...decide,
    decision: 'write_off',
    note: 'below the threshold',
  });
  await decideFindings(f.warehouse, [await idOf(timing.partner_reference)], {
    ...decide,
    decision: 'timing',
    expectedClearBy: '2024-03-20',
    owner: 'Bruno',
  });
  // Decided: March's rows follow at once (what a query of the table says, before any report).
  expect((await carried()).map((r) => [r.partner_reference, r.decision, r.owner, r.overdue])).toEqual(
    [
      [cleared.partner_reference, null, null, false],
      [timing.partner_reference, 'timing', 'Bruno', true],
      [key.partner_reference, null, null, false],
    ].sort(),
  );
  await f.warehouse.run(`UPDATE ledger SET expected_cost = 9.00 WHERE partner_reference = $1`, [
    cleared.partner_reference!,
  ]);
  await reconcile(f.warehouse, f.config, { period: '2024-02', asOf: '2024-03-06' }, quiet);

  const config = { ...f.config, email: { ...f.config.email, from: 'p@example.com', to: ['finance@example.com'] } };
  const { workbook: file } = await writeReport(
    f.warehouse,
    config,
    { period: '2024-03', email: true, dryRun: true },
    quiet,
  );
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const sheet = workbook.getWorksheet('Carried forward')!;
  const headers = (sheet.getRow(1).values as unknown[]).slice(1);
  const column = (header: string) => headers.indexOf(header) + 1;
  const listed = Array.from({ length: sheet.rowCount - 1 }, (_, i) => sheet.getRow(i + 2)).map((row) => [
    row.getCell(column('Partner reference')).value,
    row.getCell(column('Current decision')).value,
    row.getCell(column('Owner')).value ?? null,
    row.getCell(column('Overdue')).value ?? null,
  ]);
  expect(listed).toEqual([
    [timing.partner_reference, 'timing', 'Bruno', 'OVERDUE'],
    [key.partner_reference, 'undecided', null, null],
  ]);
  const summary = Array.from(workbook.getWorksheet('Summary')!.getSheetValues(), (row) =>
    Array.isArray(row) ? row.slice(1) : [],
  );
  const at = summary.findIndex((row) => row[0] === 'Carried forward from earlier periods');
  expect(at).toBeGreaterThan(0);
  const counted = summary.slice(at).find((row) => String(row[0]).startsWith('BRL'))!;
  // Findings, overdue, undecided, amount (the timing one's 0.50), exposure (the key's cost at stake).
  expect(counted.slice(0, 5)).toEqual(['BRL (from 2024-02)', 2, 1, 1, 0.5]);
  expect(counted[5]).toBeGreaterThan(0);
  const eml = readdirSync(path.dirname(file)).find((name) => name.endsWith('.eml'))!;
  const mail = await simpleParser(readFileSync(path.join(path.dirname(file), eml)));
  expect(mail.text).toMatch(
    /Carried forward \(BRL\): 2 open from earlier periods since 2024-02, 1 overdue, 1 undecided/,
  );
});
