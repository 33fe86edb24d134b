/**
 * The report of a real reconciliation: `reconcile` builds the marts from the fixture's sales and ledger,
 * and the workbook and email agree with what it built, sheet by sheet, so the report reads the marts as
 * the reconcile stage writes them (not only as the report tests fill them).
 */
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../../cli/output.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { writeReport, type ReportSummary } from '../../../pipelines/report/report.js';
import { findingFamilySheets } from '../../../reports/report-sheets.js';
import {
  asOf,
  createReportFixture,
  fixturePins,
  period,
  salesInPeriod,
  unzipText,
  type ReportFixture,
} from '../../support/report.js';

describe('report of a real reconciliation', () => {
  let fixture: ReportFixture;
  let summary: ReportSummary;
  let workbook: ExcelJS.Workbook;

  beforeAll(async () => {
    fixture = await createReportFixture({ reconciliation: { lookupMissing: false } }, { marts: false });
    await reconcile(fixture.warehouse, fixture.config, { period, asOf }, new ConsoleOutput(true));
    summary = await writeReport(fixture.warehouse, fixture.config, { period, dryRun: true }, new ConsoleOutput(true));
    workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(summary.workbook);
  });
  afterAll(() => fixture?.warehouse.close());

  it('puts every finding of each family on its sheet', async () => {
    const families = await fixture.warehouse.all<{ family: string; n: string }>(
      `SELECT family, count(*) AS n FROM recon_exceptions WHERE period = '${period}' GROUP BY family`,
    );
    expect(families.length).toBeGreaterThan(2);
    const byFamily = new Map(families.map((f) => [f.family, Number(f.n)]));
    for (const { family, title } of [...findingFamilySheets, { family: 'unredeemed', title: 'Unredeemed keys' }]) {
      expect(workbook.getWorksheet(title)!.rowCount - 1, title).toBe(byFamily.get(family) ?? 0);
    }
    expect(summary.exceptions).toBe([...byFamily.values()].reduce((a, b) => a + b, 0));
    expect(workbook.getWorksheet('Sales')!.rowCount - 1).toBe(salesInPeriod.length);
  });

  it("shows the marts' totals per currency on the Summary", async () => {
    const totals = await fixture.warehouse.all<{
      currency_code: string;
      ledger_cost_total: string;
      provider_cost_total: string;
    }>(
      `SELECT currency_code, ledger_cost_total, provider_cost_total FROM recon_summary WHERE period = '${period}' ` +
        `ORDER BY currency_code`,
    );
    const ws = workbook.getWorksheet('Summary')!;
    // The ledger side and the provider side, each a block with its header and a row per currency.
    const rows = [...Array(ws.rowCount).keys()].map((i) => ws.getRow(i + 1));
    for (const [first, name, marts] of [
      ['Ledger orders', 'Expected cost (paid)', 'ledger_cost_total'],
      ['Provider sales', 'their cost', 'provider_cost_total'],
    ] as const) {
      const header = rows.find((r) => r.getCell(1).value === 'Currency' && r.getCell(2).value === first)!;
      const column = (header.values as unknown[]).indexOf(name);
      for (const [i, total] of totals.entries()) {
        const row = ws.getRow(header.number + 1 + i);
        expect(row.getCell(1).value).toBe(total.currency_code);
        expect(row.getCell(column).value).toBe(Number(total[marts]));
      }
    }
  });

  it('never lets a whole PIN into the workbook or the email', async () => {
    const mail = await simpleParser(readFileSync(summary.email!.eml!));
    const texts = [...unzipText(summary.workbook).values(), mail.text ?? '', String(mail.html), mail.subject ?? ''];
    for (const pin of fixturePins) for (const text of texts) expect(text).not.toContain(pin);
  });

  // Last: it adds a pair to the fixture and builds the report again.
  it("shows every finding's differences and proof on its sheet (issue 29: every finding of a pair)", async () => {
    // an unredeemed key whose sale is matched to an order of another cost: its finding has differences too
    await fixture.warehouse.run(`
      INSERT INTO sales (transaction_id, partner_reference, product_id, product_name, sales_price, partner_cost_price,
                         status, status_class, transaction_at, transaction_date_raw, country_code, sales_currency_code,
                         sales_currency_symbol, key, key_sent_to_customer, first_seen_at, last_seen_at) VALUES
        (1008, 'PO-8', 11, 'Gift 100', 100.00, 92.0000, 'delivered', 'booked', '2025-03-11 15:00:00+00',
         '2025-03-11T12:00:00', 'BR', 'BRL', 'R$', 'PING-1212-3434-5656', false, '2025-04-02 09:02:00+00',
         '2025-04-02 09:02:00+00');
      INSERT INTO ledger (partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost,
                          currency_code, country_code, order_status, source_file, source_line, file_hash, run_id) VALUES
        ('PO-8', 11, '2025-03-11 12:00:00+00', '2025-03-11', 100.00, 90.0000, 'BRL', 'BR', 'paid',
         '/in/ledger-2025-03.csv', 11, 'h-mar', 'run-ledger-2');`);
    await reconcile(fixture.warehouse, fixture.config, { period, asOf }, new ConsoleOutput(true));
    const report = await writeReport(
      fixture.warehouse,
      fixture.config,
      { period, dryRun: true },
      new ConsoleOutput(true),
    );
    const rebuilt = new ExcelJS.Workbook();
    await rebuilt.xlsx.readFile(report.workbook);
    const shown = await fixture.warehouse.all<{
      finding_id: string;
      family: string;
      differences: string;
      proof: string;
    }>(
      `SELECT finding_id, family, differences, proof FROM recon_exceptions
        WHERE period = '${period}' AND (differences IS NOT NULL OR proof IS NOT NULL)`,
    );
    expect(shown.some((f) => f.family === 'unredeemed' && f.differences !== null)).toBe(true);
    expect(shown.some((f) => f.proof !== null)).toBe(true);
    const sheets = [...findingFamilySheets, { family: 'unredeemed', title: 'Unredeemed keys' }];
    const titles = new Map(sheets.map((s) => [s.family, s.title]));
    for (const finding of shown) {
      const ws = rebuilt.getWorksheet(titles.get(finding.family)!)!;
      const headers = ws.getRow(1).values as unknown[];
      const row = ws
        .getSheetValues()
        .find((values) => Array.isArray(values) && values[headers.indexOf('Finding ID')] === finding.finding_id);
      expect(row, finding.finding_id).toBeDefined();
      if (finding.differences !== null) {
        expect(row![headers.indexOf('Differences')], finding.finding_id).toBe(finding.differences);
      }
      if (finding.proof !== null) expect(row![headers.indexOf('Proof')], finding.finding_id).toBe(finding.proof);
    }
  });
});
