/**
 * The workbook, opened again with exceljs's reader: sheets and their order, the Summary's facts, money
 * formats per currency, real dates in the configured zone, masked PINs (searched in the raw XML), frozen
 * bold headers with autofilters, the row-cap split, determinism, and the trace in pipeline_runs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../cli/output.js';
import { JobError } from '../../core/errors.js';
import { writeReport, type ReportSummary } from '../../pipelines/report/report.js';
import { loadReportFacts } from '../../reports/report-facts.js';
import { loadSignoffFacts } from '../../pipelines/close/signoffs.js';
import { writeWorkbook } from '../../reports/workbook.js';
import {
  asOf,
  createReportFixture,
  fixturePins,
  period,
  salesInPeriod,
  timezone,
  unzipText,
  type ReportFixture,
} from '../support/report.js';

const quiet = () => new ConsoleOutput(true);

async function readWorkbook(file: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  return workbook;
}

function sheet(workbook: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const found = workbook.getWorksheet(name);
  if (!found) throw new Error(`no sheet ${name} (have ${workbook.worksheets.map((w) => w.name).join(', ')})`);
  return found;
}

/** Data rows of a detail sheet as objects keyed by header. */
function records(worksheet: ExcelJS.Worksheet): Record<string, ExcelJS.Cell>[] {
  const headers = (worksheet.getRow(1).values as unknown[]).slice(1).map(String);
  const rows: Record<string, ExcelJS.Cell>[] = [];
  for (let r = 2; r <= worksheet.rowCount; r++) {
    const row = worksheet.getRow(r);
    rows.push(Object.fromEntries(headers.map((header, i) => [header, row.getCell(i + 1)])));
  }
  return rows;
}

/** The Summary row whose first cell is `label`. */
function summaryRow(worksheet: ExcelJS.Worksheet, label: string, after = 1): ExcelJS.Row {
  for (let r = after; r <= worksheet.rowCount; r++)
    if (worksheet.getRow(r).getCell(1).value === label) return worksheet.getRow(r);
  throw new Error(`no Summary row "${label}"`);
}

describe('report workbook', () => {
  let fixture: ReportFixture;
  let summary: ReportSummary;
  let workbook: ExcelJS.Workbook;

  beforeAll(async () => {
    fixture = await createReportFixture();
    summary = await writeReport(fixture.warehouse, fixture.config, { period }, quiet());
    workbook = await readWorkbook(summary.workbook);
  });
  afterAll(() => fixture?.warehouse.close());

  it(
    'writes reports/pinrecon-<period>.xlsx with the Summary first, ' + 'then one sheet per family, sales and rejects',
    () => {
      expect(summary.workbook).toBe(path.join(fixture.config.reports.outDir, `pinrecon-${period}.xlsx`));
      expect(existsSync(summary.workbook)).toBe(true);
      expect(workbook.worksheets.map((w) => w.name)).toEqual([
        'Summary',
        'Missing',
        'Amounts',
        'Status',
        'Duplicates',
        'Cutoff',
        'Unredeemed keys',
        'Suggested matches',
        'Actions',
        'Carried forward',
        'Sales',
        'Ledger rejects',
        'API quarantine',
      ]);
      expect(summary.asOf).toBe(asOf);
      expect(summary.exceptions).toBe(9);
    },
  );

  it(
    "holds exactly the period's sales in the configured zone, " +
      "in date order, with exact amounts in the currency's format",
    () => {
      const rows = records(sheet(workbook, 'Sales'));
      expect(rows.map((r) => r['Transaction ID']!.value)).toEqual(salesInPeriod);
      const first = rows[0]!;
      // 03:30 UTC on 1 March is 00:30 in São Paulo: the cell shows that wall-clock time, as a real date.
      expect(first['Date']!.value).toBeInstanceOf(Date);
      expect((first['Date']!.value as Date).toISOString()).toBe('2025-03-01T00:30:00.000Z');
      expect(first['Date']!.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
      expect(first['Partner cost']!.value).toBe(45.5);
      expect(first['Partner cost']!.numFmt).toContain('"R$ "');
      expect(first['Margin']!.value).toBe(4.5);
      const usd = rows.find((r) => r['Currency']!.value === 'USD')!;
      expect(usd['Sales price']!.numFmt).toContain('"US$ "');
      const eur = rows.find((r) => r['Currency']!.value === 'EUR')!;
      expect(eur['Sales price']!.numFmt).toContain('"€ "');
      // 02:59:59 UTC on 1 April is still 31 March in São Paulo.
      expect((eur['Date']!.value as Date).toISOString()).toBe('2025-03-31T23:59:59.000Z');
      expect(rows[1]!['Key sent to customer']!.value).toBe(false);
    },
  );

  it('shows PINs only as their last 4 characters, and no whole PIN is anywhere in the file', () => {
    const rows = records(sheet(workbook, 'Sales'));
    expect(rows.map((r) => r['PIN (last 4)']!.value)).toEqual(['••••3333', '••••6666', '••••9999', '••••', '••••8888']);
    const xml = [...unzipText(summary.workbook).values()].join('\n');
    for (const pin of fixturePins) expect(xml, pin).not.toContain(pin);
    const quarantine = records(sheet(workbook, 'API quarantine'));
    expect(quarantine.map((r) => r['Record as received (PIN masked)']!.value)).toEqual([
      '{"transactionId":1101,"Key":"••••"}',
      '{"transactionId":1099,"key": "••••9012","transactionDate":"31/02/2025"}',
      '{"transactionId":1100,"key":"••••"}',
    ]);
  });

  it('puts each finding family on its sheet with exact values, dates and the masked PIN', () => {
    const missing = records(sheet(workbook, 'Missing'));
    expect(missing.map((r) => r['Finding type']!.value)).toEqual(['missing_at_provider', 'missing_in_ledger']);
    expect(missing[0]!['Ledger value']!.value).toBe(30);
    expect(missing[0]!['Ledger value']!.numFmt).toContain('R$');
    expect(missing[0]!['Difference']!.value).toBe(-30);
    expect(missing[1]!['Provider value']!.numFmt).toContain('US$');
    expect(missing[1]!['PIN (last 4)']!.value).toBe('••••9999');
    // How the provider's having no sale was proven: the fixture's finding has no proof (unproven); other types none.
    expect(missing.map((r) => r['Proof']!.value)).toEqual([null, null]);
    expect(records(sheet(workbook, 'Amounts'))[0]!['Proof']).toBeUndefined();
    const amounts = records(sheet(workbook, 'Amounts'));
    expect(amounts.map((r) => r['Finding type']!.value)).toEqual(['cost_mismatch', 'currency_mismatch']);
    expect((amounts[0]!['Ledger paid at']!.value as Date).toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect(amounts[1]!['Ledger value']!.value).toBeNull();
    expect(records(sheet(workbook, 'Status'))[0]!['PIN (last 4)']!.value).toBe('••••');
    expect(records(sheet(workbook, 'Duplicates'))).toHaveLength(1);
    expect(records(sheet(workbook, 'Cutoff'))).toHaveLength(1);
    const unredeemed = records(sheet(workbook, 'Unredeemed keys'));
    expect(unredeemed.map((r) => [r['Age (days)']!.value, r['Aging bucket']!.value, r['PIN (last 4)']!.value])).toEqual(
      [
        [26, '8-30', '••••6666'],
        [21, '8-30', '••••9999'],
      ],
    );
    expect(unredeemed[0]!['As of']!.value).toEqual(new Date(`${asOf}T00:00:00Z`));
    expect(unredeemed[0]!['As of']!.numFmt).toBe('yyyy-mm-dd');
  });

  it("lists the rejects of the period's ledger file and the period's API quarantine, in order", () => {
    const rejects = records(sheet(workbook, 'Ledger rejects'));
    expect(rejects.map((r) => [r['File']!.value, r['Line']!.value])).toEqual([
      ['/in/ledger-2025-03.csv', 7],
      ['/in/ledger-2025-03.csv', 9],
    ]);
    expect(records(sheet(workbook, 'API quarantine')).map((r) => r['Record']!.value)).toEqual([0, 3, 5]);
  });

  it('gives every detail sheet a bold frozen header, an autofilter over its rows and set widths', () => {
    for (const worksheet of workbook.worksheets.slice(1)) {
      expect(worksheet.views[0], worksheet.name).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(worksheet.getRow(1).getCell(1).font?.bold, worksheet.name).toBe(true);
      expect(worksheet.autoFilter, worksheet.name).toBeTruthy();
      expect(worksheet.getColumn(1).width, worksheet.name).toBeGreaterThan(5);
    }
    const sales = sheet(workbook, 'Sales');
    expect(sales.autoFilter).toMatch(/^A1:P6$/);
  });

  it(
    'summarises the period on the Summary: facts, ' + 'totals per currency, bridge, types, changes, aging, extraction',
    async () => {
      const ws = sheet(workbook, 'Summary');
      expect(summaryRow(ws, 'Period').getCell(2).value).toBe(period);
      expect(summaryRow(ws, 'As of').getCell(2).value).toEqual(new Date(`${asOf}T00:00:00Z`));
      // Reconciled at 10:00 UTC = 07:00 in São Paulo.
      expect(summaryRow(ws, 'Reconciled at').getCell(2).value).toEqual(new Date('2025-04-05T07:00:00Z'));
      expect(summaryRow(ws, 'Report generated at').getCell(2).value).toBeInstanceOf(Date);
      expect(summaryRow(ws, 'Last fetch').getCell(2).value).toEqual(new Date('2025-04-02T06:03:00Z'));
      // Every time shows its UTC offset (São Paulo: -03:00).
      expect(summaryRow(ws, 'Reconciled at').getCell(2).numFmt).toBe('yyyy-mm-dd hh:mm "-03:00"');
      expect(summaryRow(ws, 'Extract windows').getCell(2).value).toBe(2);
      expect(summaryRow(ws, 'run-extract-1').getCell(4).value).toBe(12);

      // Two rows per currency: the ledger side, then the provider side, each under its header.
      const brl = summaryRow(ws, 'BRL');
      const brlProvider = summaryRow(ws, 'BRL', brl.number + 1);
      const column = (name: string, row = brl) => (ws.getRow(row.number - 1).values as unknown[]).indexOf(name);
      const totals = await fixture.warehouse.one(
        `SELECT * FROM recon_summary WHERE period = '${period}' AND currency_code = 'BRL'`,
      );
      expect(brl.getCell(column('Ledger orders')).value).toBe(Number(totals!.ledger_orders));
      expect(brl.getCell(column('of which paid')).value).toBe(Number(totals!.ledger_active_orders));
      expect(brl.getCell(column('Ledger sales (paid)')).value).toBe(123456.785);
      expect(brl.getCell(column('Ledger sales (paid)')).numFmt).toContain('R$');
      expect(brlProvider.getCell(column('of which not canceled', brlProvider)).value).toBe(
        Number(totals!.provider_billable_sales),
      );
      expect(brlProvider.getCell(column('their margin', brlProvider)).value).toBe(Number(totals!.provider_margin));

      const bridgeStart = summaryRow(ws, 'Cost bridge: ledger expected cost → provider cost').number;
      expect(ws.getRow(bridgeStart + 1).getCell(1).value).toBe('BRL');
      const bridge = [];
      for (let r = bridgeStart + 2; ws.getRow(r).getCell(1).value && ws.getRow(r).getCell(3).value !== 'Items'; r++)
        bridge.push(ws.getRow(r).getCell(4).value);
      expect(bridge).toEqual([163, -30, 0.5, -45.5, 49.6234, 137.6234]);

      const typesStart = summaryRow(ws, 'Findings by type').number;
      const unredeemed = summaryRow(ws, 'unredeemed_key', typesStart);
      expect([unredeemed.getCell(2).value, unredeemed.getCell(3).value, unredeemed.getCell(4).value]).toEqual([
        2, 1, 1,
      ]);
      expect(summaryRow(ws, 'price_mismatch', typesStart).getCell(5).value).toBe(1);
      expect(summaryRow(ws, 'unknown_status', typesStart).getCell(2).value).toBe(0);
      const total = summaryRow(ws, 'Total', typesStart);
      expect([total.getCell(2).value, total.getCell(3).value, total.getCell(4).value, total.getCell(5).value]).toEqual([
        9, 3, 6, 1,
      ]);
      expect(ws.getRow(total.number + 1).getCell(1).value).toBe(
        'missing_at_provider: 1 of 1 UNPROVEN (proven absent: 0 by the extract windows, 0 by an individual look-up)',
      );

      const sheetsStart = summaryRow(ws, 'Sheets').number;
      // Holds in B–E, Rows in F
      expect(summaryRow(ws, 'Sales', sheetsStart).getCell(6).value).toBe(salesInPeriod.length);
    },
  );

  it('records the run in pipeline_runs', async () => {
    const run = await fixture.warehouse.one(
      `SELECT command, status, rows_loaded, args, details FROM pipeline_runs WHERE run_id = $1`,
      [summary.runId],
    );
    expect(run).toMatchObject({ command: 'report', status: 'succeeded' });
    expect(Number(run!.rows_loaded)).toBe(summary.rows);
    expect(JSON.parse(String(run!.details)).workbook).toBe(summary.workbook);
  });

  it('continues a sheet longer than the row cap on numbered sheets, and the Summary says so', async () => {
    const facts = await loadReportFacts(fixture.warehouse, {
      period,
      timezone,
      signoff: await loadSignoffFacts(fixture.warehouse, period, timezone),
    });
    const file = path.join(fixture.dir, 'capped.xlsx');
    const result = await writeWorkbook(fixture.warehouse, facts, { file, maxRowsPerSheet: 3 });
    const capped = await readWorkbook(file);
    const names = capped.worksheets.map((w) => w.name);
    expect(names.filter((n) => n.startsWith('Sales'))).toEqual(['Sales', 'Sales (2)', 'Sales (3)']);
    expect(names).toContain('Unredeemed keys');
    expect(names).not.toContain('Unredeemed keys (2)');
    const ids = ['Sales', 'Sales (2)', 'Sales (3)'].flatMap((name) =>
      records(sheet(capped, name)).map((r) => r['Transaction ID']!.value),
    );
    expect(ids).toEqual(salesInPeriod);
    for (const name of ['Sales', 'Sales (2)']) expect(sheet(capped, name).rowCount).toBe(3);
    expect(result.rowsByTitle['Sales']).toBe(salesInPeriod.length);
    const summaryTexts = (sheet(capped, 'Summary').getSheetValues() as unknown[][])
      .flat()
      .filter((v): v is string => typeof v === 'string');
    expect(
      summaryTexts.some((t) => t.startsWith('Sales has 5 rows') && t.includes('continues on Sales (2), Sales (3)')),
    ).toBe(true);
    await expect(writeWorkbook(fixture.warehouse, facts, { file, maxRowsPerSheet: 1 })).rejects.toThrow(
      /maxRowsPerSheet/,
    );
  });

  it('cuts a text longer than an Excel cell holds (32,767 characters), so the workbook still opens', async () => {
    await fixture.warehouse.run(
      `INSERT INTO ledger_rejects SELECT source_file, 99, 'too long', repeat('z', 40000), file_hash, run_id FROM ` +
        `ledger_rejects LIMIT 1`,
    );
    try {
      const facts = await loadReportFacts(fixture.warehouse, {
        period,
        timezone,
        signoff: await loadSignoffFacts(fixture.warehouse, period, timezone),
      });
      const file = path.join(fixture.dir, 'long-cell.xlsx');
      await writeWorkbook(fixture.warehouse, facts, { file });
      const texts = (sheet(await readWorkbook(file), 'Ledger rejects').getSheetValues() as unknown[][])
        .flat()
        .filter((v): v is string => typeof v === 'string');
      const cut = texts.find((t) => t.startsWith('zzz'));
      expect(cut).toHaveLength(32_767);
      expect(cut).toMatch(/… \(cut: 40000 characters\)$/);
    } finally {
      await fixture.warehouse.run(`DELETE FROM ledger_rejects WHERE source_line = 99`);
    }
  });

  it('writes the same cells for the same data; only the generation time differs', async () => {
    const facts = await loadReportFacts(fixture.warehouse, {
      period,
      timezone,
      signoff: await loadSignoffFacts(fixture.warehouse, period, timezone),
    });
    const cells = async (file: string, generatedAt: Date) => {
      await writeWorkbook(fixture.warehouse, facts, { file, generatedAt });
      const read = await readWorkbook(file);
      return read.worksheets.map((w) => ({ name: w.name, rows: w.getSheetValues(), formats: w.getRow(2).numFmt }));
    };
    const first = await cells(path.join(fixture.dir, 'a.xlsx'), new Date('2025-04-06T12:00:00Z'));
    const second = await cells(path.join(fixture.dir, 'b.xlsx'), new Date('2025-04-07T15:30:00Z'));
    const generatedRow = (book: typeof first) =>
      (book[0]!.rows as unknown[][]).findIndex((row) => row?.[1] === 'Report generated at');
    const at = generatedRow(first);
    expect(at).toBeGreaterThan(0);
    expect((first[0]!.rows as unknown[][])[at]![2]).toEqual(new Date('2025-04-06T09:00:00Z'));
    expect((second[0]!.rows as unknown[][])[at]![2]).toEqual(new Date('2025-04-07T12:30:00Z'));
    (first[0]!.rows as unknown[][])[at] = [];
    (second[0]!.rows as unknown[][])[at] = [];
    expect(second).toEqual(first);
  });

  it('refuses a period that was never reconciled, or another as-of date, saying what to run', async () => {
    const never = writeReport(fixture.warehouse, fixture.config, { period: '2024-12' }, quiet());
    await expect(never).rejects.toThrow(JobError);
    await expect(never).rejects.toMatchObject({ hint: expect.stringContaining('pinrecon reconcile --period 2024-12') });
    await expect(
      writeReport(fixture.warehouse, fixture.config, { period, asOf: '2025-04-01' }, quiet()),
    ).rejects.toThrow(/reconciled as of 2025-04-05, not 2025-04-01/);
    const failed = await fixture.warehouse.one(
      `SELECT count(*) AS n FROM pipeline_runs WHERE command = 'report' AND status = 'failed'`,
    );
    expect(Number(failed!.n)).toBe(2);
  });
});
