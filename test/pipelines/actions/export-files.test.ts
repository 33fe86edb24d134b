/**
 * `actions export` as issue 30 asks, on a real DuckDB file: a claim holds only overcharges (undercharges are
 * their own export, never netted), the claim workbook is a document (heading, date and money cells, landscape
 * on the configured paper, header row repeated, ≥ 8 pt); the journal has no zero line, balances per currency,
 * posts a sales-price difference to price_mismatch's accounts, re-books a currency fix in both currencies, and
 * a repeat export writes only new lines unless --all, which marks the others (recon_action_exports).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, expect, test } from 'vitest';
import { ConfigError } from '../../../core/errors.js';
import { approveActions } from '../../../pipelines/actions/approve.js';
import { exportActions } from '../../../pipelines/actions/export.js';
import { planActions } from '../../../pipelines/actions/plan.js';
import { decideFindings } from '../../../pipelines/decisions/findings.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { minimumScale } from '../../../reports/print-layout.js';
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

const accounts = {
  default: { debit: '6100', credit: '2100' },
  price_mismatch: { debit: '4100', credit: '1200' },
};

/** Overcharge, undercharge, sales-price, product and currency breaks, decided, planned and approved. */
async function decidedMonth(journal: Record<string, unknown> = { accounts }): Promise<Fixture> {
  f = await openFixture({ journal });
  const over = sale({ partner_cost_price: '9.00' });
  const under = sale({ partner_cost_price: '7.00' });
  const price = sale({ sales_price: '12.50' });
  const product = sale({ product_id: 8 });
  // Same figures, another currency: only currency_mismatch (the rules compare the numbers as they are).
  const currency = sale({ currency: 'USD' });
  await insertSales(f.warehouse, [over, under, price, product, currency]);
  await insertLedger(f.warehouse, [
    ledgerFor(over, { expected_cost: '8.00' }),
    ledgerFor(under, { expected_cost: '8.00' }),
    ledgerFor(price, { sales_price: '10.00' }),
    ledgerFor(product, { product_id: 7 }),
    ledgerFor(currency, { currency_code: 'BRL', expected_cost: '8.00', sales_price: '10.00' }),
  ]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const ids = async (type: string) =>
    (
      await f!.warehouse.all<{ finding_id: string }>(
        'SELECT finding_id FROM recon_exceptions WHERE exception_type = $1 ORDER BY finding_id',
        [type],
      )
    ).map((r) => r.finding_id);
  const decide = async (type: string, decision: string) => {
    const found = await ids(type);
    expect(found.length, type).toBeGreaterThan(0);
    await decideFindings(f!.warehouse, found, { decision, by: 'Ana', note: `${decision} ${type}` } as never);
  };
  await decide('cost_mismatch', 'claim');
  await decide('price_mismatch', 'write_off');
  await decide('product_mismatch', 'fix_ledger');
  await decide('currency_mismatch', 'fix_ledger');
  await planActions(f.warehouse, f.config, { period, by: 'Ana' });
  await approveActions(f.warehouse, f.config, { period, all: true, by: 'Bruno' });
  return f;
}

const csvRows = (file: string) => {
  const [header, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\r\n');
  const body = lines.slice(0, lines.includes('') ? lines.indexOf('') : lines.length);
  const names = header!.split(',');
  return body.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i]!, v])));
};

test('a claim lists only overcharges; undercharges are their own export; the workbook is a document', async () => {
  const m = await decidedMonth();
  // A claim of no difference (a product break claimed) asks for nothing: covered by the claim export, no line.
  const product = await m.warehouse.one<{ finding_id: string }>(
    `SELECT finding_id FROM recon_exceptions WHERE exception_type = 'product_mismatch'`,
  );
  await decideFindings(m.warehouse, [product!.finding_id], { decision: 'claim', by: 'Ana' } as never);
  await planActions(m.warehouse, m.config, { period, by: 'Ana' });
  await approveActions(m.warehouse, m.config, { period, all: true, by: 'Bruno' });
  const out = (name: string) => path.join(m.dir, 'out', name);
  const claim = await exportActions(m.warehouse, m.config, { period, kind: 'claim', out: out('c.csv'), by: 'Ana' });
  const claimRows = csvRows(claim.file!);
  expect(claimRows.map((r) => r.Difference)).toEqual(['1.0000']);
  expect(claim.nothingToPost).toHaveLength(1);
  expect(claim.totals).toEqual([{ currency: 'BRL', lines: '1', difference: '1.0000' }]);
  const under = await exportActions(m.warehouse, m.config, {
    period,
    kind: 'undercharge',
    out: out('u.csv'),
    by: 'Ana',
  });
  expect(csvRows(under.file!).map((r) => r.Difference)).toEqual(['-1.0000']);
  // Both claim actions are exported now, each by its own kind.
  const statuses = await m.warehouse.all<{ status: string }>(
    `SELECT status FROM recon_actions WHERE kind = 'claim' ORDER BY action_id`,
  );
  expect(statuses.map((s) => s.status)).toEqual(['executed', 'executed', 'executed']);

  const xlsx = await exportActions(m.warehouse, m.config, {
    period,
    kind: 'claim',
    out: out('c.xlsx'),
    by: 'Ana',
    all: true,
  });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(xlsx.file!);
  const sheet = workbook.worksheets[0]!;
  const labels = new Map<string, unknown>();
  // A heading's label spans A–B, its value is in C.
  sheet.eachRow((row) => labels.set(String(row.getCell(1).value), row.getCell(3).value));
  expect(labels.get('Period')).toBe(period);
  expect(String(labels.get('Claim reference'))).toMatch(/^CLM-2024-03-\d{2}$/);
  expect(labels.has('Partner') && labels.has('Provider') && labels.has('Date')).toBe(true);
  let headerAt = 0;
  sheet.eachRow((row, n) => {
    if (row.getCell(1).value === 'Line') headerAt = n;
  });
  expect(headerAt).toBeGreaterThan(1);
  const line = sheet.getRow(headerAt + 1);
  expect(line.getCell(4).value).toBeInstanceOf(Date);
  expect(line.getCell(8).value).toBe(1);
  expect(line.getCell(8).numFmt).toContain('R$');
  expect(sheet.pageSetup).toMatchObject({ orientation: 'landscape', paperSize: 9 });
  expect(sheet.pageSetup.printTitlesRow).toBe(`${headerAt}:${headerAt}`);
  expect(sheet.pageSetup.scale).toBeGreaterThanOrEqual(minimumScale);
});

test('journal: no zero line, balanced per currency, price on its accounts, currency re-booked, repeats', async () => {
  const m = await decidedMonth();
  const out = (name: string) => path.join(m.dir, 'out', name);
  const first = await exportActions(m.warehouse, m.config, { period, kind: 'journal', out: out('j.csv'), by: 'Ana' });
  const rows = csvRows(first.file!);
  expect(rows.every((r) => Number(r.debit || 0) + Number(r.credit || 0) > 0)).toBe(true);
  expect(first.nothingToPost).toHaveLength(1); // the product fix moves no money
  const net = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.entry_id}|${r.currency}`;
    net.set(key, (net.get(key) ?? 0) + Math.round((Number(r.debit || 0) - Number(r.credit || 0)) * 10_000));
  }
  for (const [key, value] of net) expect(value, key).toBe(0);
  expect(new Set(rows.map((r) => r.line_id)).size).toBe(rows.length);
  const price = rows.filter((r) => r.memo!.includes('price_mismatch'));
  expect(price.map((r) => r.account).sort()).toEqual(['1200', '4100']);
  const currency = rows.filter((r) => r.memo!.includes('currency_mismatch'));
  expect(currency.map((r) => `${r.currency} ${r.account} ${r.debit || '-'} ${r.credit || '-'}`).sort()).toEqual([
    'BRL 2100 8.0000 -',
    'BRL 6100 - 8.0000',
    'USD 2100 - 8.0000',
    'USD 6100 8.0000 -',
  ]);

  // A second export has nothing new; --all writes everything again, marked.
  const again = await exportActions(m.warehouse, m.config, { period, kind: 'journal', out: out('j2.csv'), by: 'Ana' });
  expect([again.file, again.lines, again.exportedBefore]).toEqual([null, 0, rows.length]);
  const all = await exportActions(m.warehouse, m.config, {
    period,
    kind: 'journal',
    out: out('j3.csv'),
    by: 'Ana',
    all: true,
  });
  const allRows = csvRows(all.file!);
  expect(allRows.map((r) => r.line_id)).toEqual(rows.map((r) => r.line_id));
  expect(allRows.every((r) => /^\d{4}-\d{2}-\d{2}$/.test(r.exported_before!))).toBe(true);
  const recorded = await m.warehouse.all<{ repeated: boolean; n: number }>(
    `SELECT repeated, count(*)::INTEGER AS n FROM recon_action_exports WHERE kind = 'journal' GROUP BY ALL ORDER BY 1`,
  );
  expect(recorded).toEqual([
    { repeated: false, n: rows.length },
    { repeated: true, n: rows.length },
  ]);
});

test('journal as a document: the workbook has a heading and balanced totals, the CSV only the GL layout', async () => {
  const m = await decidedMonth();
  const out = (name: string) => path.join(m.dir, 'out', name);
  const xlsx = await exportActions(m.warehouse, m.config, { period, kind: 'journal', out: out('j.xlsx'), by: 'Ana' });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(xlsx.file!);
  const sheet = workbook.worksheets[0]!;
  // Issue 30: a bookkeeper files the printed journal — what it is, whose, which period and export, whether it
  // balances, debit and credit per currency — above the lines a GL import takes.
  expect(sheet.getCell('A1').value).toBe(`Journal entries from the reconciliation, ${period}`);
  const labels = new Map<string, unknown>();
  sheet.eachRow((row) => labels.set(String(row.getCell(1).value), row.getCell(3).value));
  expect(labels.get('Period')).toBe(period);
  expect(labels.get('Export')).toBe(xlsx.exportId);
  expect(String(labels.get('Date'))).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(String(labels.get('Balanced'))).toMatch(/^yes: /);
  // The month's currency fix is one entry in two currencies, counted in each of the totals below: said.
  expect(String(labels.get('Entries'))).toBe(
    `${xlsx.entries} (${xlsx.lines} lines); a currency fix counts in both its currencies below`,
  );
  let totalsAt = 0;
  let headerAt = 0;
  sheet.eachRow((row, n) => {
    if (row.getCell(1).value === 'Debit and credit per currency') totalsAt = n;
    if (row.getCell(1).value === 'date' && row.getCell(2).value === 'entry_id') headerAt = n;
  });
  expect(totalsAt).toBeGreaterThan(1);
  expect(headerAt).toBeGreaterThan(totalsAt);
  const totalsHeader = (sheet.getRow(totalsAt + 1).values as unknown[]).slice(1);
  expect(totalsHeader).toEqual(['currency', 'debit', 'credit', 'entries', 'balanced']);
  const totals = Array.from({ length: xlsx.totals.length }, (_, i) =>
    (sheet.getRow(totalsAt + 2 + i).values as unknown[]).slice(1),
  );
  for (const [i, t] of xlsx.totals.entries()) {
    expect(totals[i]).toEqual([t.currency, Number(t.debit), Number(t.credit), Number(t.entries), 'yes']);
    expect(t.debit).toBe(t.credit);
  }
  // The lines follow the header row, one a journal line, and the header row repeats on every printed page.
  expect(sheet.rowCount - headerAt).toBe(xlsx.lines);
  expect(sheet.pageSetup.printTitlesRow).toBe(`${headerAt}:${headerAt}`);

  // The CSV is the GL layout alone: its first line the column names, then one posting a line, no heading.
  const csv = await exportActions(m.warehouse, m.config, {
    period,
    kind: 'journal',
    out: out('j.csv'),
    by: 'Ana',
    all: true,
  });
  const text = readFileSync(csv.file!, 'utf8').trimEnd().split('\r\n');
  expect(text[0]).toBe('date,entry_id,line_id,account,debit,credit,currency,memo,reference,finding_id,exported_before');
  expect(text).toHaveLength(1 + csv.lines);
  expect(text.slice(1).every((line) => /^\d{4}-\d{2}-\d{2},/.test(line))).toBe(true);
});

test('a sales-price difference is never posted to the cost accounts of default', async () => {
  const m = await decidedMonth({
    accounts: { default: accounts.default, write_off: { debit: '6150', credit: '2100' } },
  });
  const exported = exportActions(m.warehouse, m.config, {
    period,
    kind: 'journal',
    out: path.join(m.dir, 'j.csv'),
    by: 'A',
  });
  await expect(exported).rejects.toThrow(ConfigError);
  await expect(exported).rejects.toThrow(/journal\.accounts has no entry for price_mismatch/);
});
