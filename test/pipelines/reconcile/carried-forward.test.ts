/**
 * What follows into the month (issue 30): reconciling March keeps February's open findings in
 * recon_carried_forward — not the written-off or accepted ones — with amount (bridge effect) and exposure (an
 * unredeemed key's cost at stake) apart, age since first detection for every type, and overdue past clear-by.
 */
import ExcelJS from 'exceljs';
import { expect, test } from 'vitest';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { writeReport } from '../../../pipelines/report/report.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
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

test("recon_carried_forward: February's open findings in March: amount, exposure, age, overdue", async () => {
  const cost = sale({ partner_cost_price: '9.00', transaction_at: february });
  const key = sale({
    transaction_at: february,
    status: 'delivered',
    key_sent_to_customer: false,
    partner_cost_price: '25.00',
  });
  const timing = sale({ partner_cost_price: '8.50', transaction_at: february });
  const written = sale({ partner_cost_price: '8.75', transaction_at: february });
  const march = sale(); // March has a sale of its own (a matched pair), so it has a reconciliation to report
  await insertSales(f.warehouse, [cost, key, timing, written, march]);
  await insertLedger(f.warehouse, [
    ledgerFor(cost, { expected_cost: '8.00' }),
    ledgerFor(key),
    ledgerFor(timing, { expected_cost: '8.00' }),
    ledgerFor(written, { expected_cost: '8.00' }),
    ledgerFor(march),
  ]);
  const quiet = capturingOutput().output;
  await reconcile(f.warehouse, f.config, { period: '2024-02', asOf: '2024-03-05' }, quiet);
  const idOf = async (reference: string | undefined, type: string) =>
    (await f.warehouse.one<{ finding_id: string }>(
      'SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1 AND exception_type = $2',
      [reference!, type],
    ))!.finding_id;
  const keyId = await idOf(key.partner_reference, 'unredeemed_key');
  const decide = { by: 'Ana', today: '2024-03-01' };
  await decideFindings(f.warehouse, [await idOf(written.partner_reference, 'cost_mismatch')], {
    ...decide,
    decision: 'write_off',
    note: 'immaterial',
  });
  await decideFindings(f.warehouse, [await idOf(timing.partner_reference, 'cost_mismatch')], {
    ...decide,
    decision: 'timing',
    expectedClearBy: '2024-03-20',
  });

  await reconcile(f.warehouse, f.config, { period: '2024-03', asOf: '2024-04-05' }, quiet);
  const rows = await f.warehouse.all<Record<string, string | number | boolean | null>>(
    `SELECT from_period, exception_type, partner_reference, amount::VARCHAR AS amount, exposure::VARCHAR AS exposure,
            decision, age_days, overdue
     FROM recon_carried_forward WHERE period = '2024-03' ORDER BY partner_reference, exception_type`,
  );
  expect(rows.map((r) => [r.partner_reference, r.exception_type, r.amount, r.exposure, r.decision, r.overdue])).toEqual(
    [
      [cost.partner_reference, 'cost_mismatch', '1.0000', null, null, false],
      [key.partner_reference, 'unredeemed_key', '0.0000', '25.0000', null, false],
      [timing.partner_reference, 'cost_mismatch', '0.5000', null, 'timing', true],
    ],
  );
  expect(rows.every((r) => r.from_period === '2024-02' && Number(r.age_days) >= 0)).toBe(true);
  // The key's exposure is also on its own period's finding, apart from its amount (issue 30).
  const stored = await f.warehouse.one<{ amount: string; exposure: string }>(
    'SELECT amount::VARCHAR AS amount, exposure::VARCHAR AS exposure FROM recon_exceptions WHERE finding_id = $1',
    [keyId],
  );
  expect(stored).toEqual({ amount: '0.0000', exposure: '25.0000' });
  // February itself carries nothing forward: nothing came before it.
  const first = await f.warehouse.one<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM recon_carried_forward WHERE period = '2024-02'`,
  );
  expect(first?.n).toBe(0);

  // March's workbook lists them on its own sheet and counts them in the Summary; the email's brief counts them.
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
  expect(headers.slice(0, 10)).toEqual([
    'Currency',
    'From period',
    'Finding type',
    'Partner reference',
    'Amount',
    'Exposure',
    'Current decision',
    'Owner',
    'Age (days)',
    'Overdue',
  ]);
  expect(sheet.rowCount - 1).toBe(3);
  expect(sheet.getRow(2).getCell(10).value).toBe('OVERDUE'); // the overdue one first
  // It prints the nine columns a reader needs, at a scale that keeps text at 8 pt or more.
  expect(sheet.pageSetup.scale).toBeGreaterThanOrEqual(74);
  expect(sheet.pageSetup.orientation).toBe('landscape');
  const summary = Array.from(workbook.getWorksheet('Summary')!.getSheetValues(), (row) =>
    Array.isArray(row) ? row.slice(1) : [],
  );
  const at = summary.findIndex((row) => row[0] === 'Carried forward from earlier periods');
  expect(at).toBeGreaterThan(0);
  const counted = summary.slice(at).find((row) => String(row[0]).startsWith('BRL'))!;
  expect(counted.slice(0, 6)).toEqual(['BRL (from 2024-02)', 3, 1, 2, 1.5, 25]);
  // Every finding ages on its own sheet too, not only keys (issue 30).
  const { workbook: februaryFile } = await writeReport(f.warehouse, f.config, { period: '2024-02' }, quiet);
  const februaryBook = new ExcelJS.Workbook();
  await februaryBook.xlsx.readFile(februaryFile);
  const amounts = februaryBook.getWorksheet('Amounts')!;
  const ageAt = (amounts.getRow(1).values as unknown[]).indexOf('Age (days)');
  expect(ageAt).toBeGreaterThan(0);
  expect(typeof amounts.getRow(2).getCell(ageAt).value).toBe('number');
  const eml = readdirSync(path.dirname(file)).find((name) => name.endsWith('.eml'))!;
  const mail = await simpleParser(readFileSync(path.join(path.dirname(file), eml)));
  expect(mail.text).toMatch(
    /Carried forward \(BRL\): 3 open from earlier periods since 2024-02, 1 overdue, 2 undecided/,
  );
});
