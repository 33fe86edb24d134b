/**
 * Rejected ledger lines are never hidden by the report: a ledger file whose every line was rejected (a
 * ";"-separated export with decimal commas read with the default "." separator) holds no dated order, yet
 * its rejects are listed on the "Ledger rejects" sheet, counted on the Summary and in the email; and a
 * period with no ledger order at all leads the Summary and the email with a warning.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../../cli/output.js';
import { importLedger } from '../../../pipelines/ledger/import.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { writeReport, type ReportSummary } from '../../../pipelines/report/report.js';
import { plainWords } from '../../../reports/plain-words.js';
import { createReportFixture, period, type ReportFixture } from '../../support/report.js';

const quiet = () => new ConsoleOutput(true);

/** A March ledger as a Brazilian export writes it: ";" between fields, "," before the cents. */
function writeDecimalCommaLedger(dir: string): string {
  const file = path.join(dir, 'ledger-2025-03-b.csv');
  writeFileSync(
    file,
    [
      'partner_reference;product_id;paid_at;sales_price;expected_cost;currency_code;country_code;order_status',
      'PO-1;10;2025-03-01;50,00;45,50;BRL;BR;paid',
      'PO-2;11;2025-03-10;100,00;92,12;BRL;BR;paid',
      'PO-4;10;2025-03-31;50,00;45,50;BRL;BR;paid',
      '',
    ].join('\n'),
  );
  return file;
}

async function readBack(summary: ReportSummary): Promise<{ workbook: ExcelJS.Workbook; mail: ParsedMail }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(summary.workbook);
  const mail = await simpleParser(readFileSync(summary.email!.eml!));
  return { workbook, mail };
}

function rejectLines(workbook: ExcelJS.Workbook): string[] {
  const sheet = workbook.getWorksheet('Ledger rejects')!;
  const lines: string[] = [];
  for (let r = 2; r <= sheet.rowCount; r++)
    lines.push(`${path.basename(String(sheet.getRow(r).getCell(1).value))}:${sheet.getRow(r).getCell(2).value}`);
  return lines;
}

/** The Summary's cells as lines of text, to search. */
function summaryText(workbook: ExcelJS.Workbook): string[] {
  const sheet = workbook.getWorksheet('Summary')!;
  const lines: string[] = [];
  // A merged cell (a note across the Summary) once: the reader repeats its value in every cell of the merge.
  sheet.eachRow((row) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell) => {
      if (cell.master.address === cell.address)
        cells.push(cell.value === undefined || cell.value === null ? '' : String(cell.value));
    });
    lines.push(cells.join(' | '));
  });
  return lines;
}

describe('a ledger file with no accepted line, beside the period’s good one', () => {
  let fixture: ReportFixture;
  let summary: ReportSummary;
  let workbook: ExcelJS.Workbook;
  let mail: ParsedMail;

  beforeAll(async () => {
    fixture = await createReportFixture({ ledger: { delimiter: ';' } });
    const imported = await importLedger(
      fixture.warehouse,
      fixture.config,
      writeDecimalCommaLedger(fixture.dir),
      {},
      quiet(),
    );
    expect(imported).toMatchObject({ lines: 3, accepted: 0, rejected: 3 });
    summary = await writeReport(fixture.warehouse, fixture.config, { period, dryRun: true }, quiet());
    ({ workbook, mail } = await readBack(summary));
  });
  afterAll(() => fixture?.warehouse.close());

  it("lists its rejects on the sheet with the period's file's, and not those of a file dated in another period", () => {
    // In file path order: the fixture's file (/in/…) and the temp dir's, whichever sorts first where TMPDIR is.
    const fixtureFile = ['ledger-2025-03.csv:7', 'ledger-2025-03.csv:9'];
    const rejectedFile = ['ledger-2025-03-b.csv:2', 'ledger-2025-03-b.csv:3', 'ledger-2025-03-b.csv:4'];
    const tempFirst = path.join(fixture.dir, 'ledger-2025-03-b.csv') < '/in/ledger-2025-03.csv';
    expect(rejectLines(workbook)).toEqual(
      tempFirst ? [...rejectedFile, ...fixtureFile] : [...fixtureFile, ...rejectedFile],
    );
  });

  it('counts them on the Summary, saying where they come from and how they were chosen', () => {
    const lines = summaryText(workbook);
    expect(lines).toContain('Ledger lines rejected | 5 | from 2 file(s), listed on the sheet Ledger rejects');
    expect(lines.some((l) => l.startsWith('… of unreadable files | 3 | from 1 file(s)'))).toBe(true);
    expect(lines.some((l) => l.includes('every file with no accepted line at all'))).toBe(true);
    // The period has ledger orders: no warning.
    expect(lines.some((l) => l.startsWith('WARNING'))).toBe(false);
  });

  it('counts them in the email', () => {
    expect(mail.text).toContain(
      'Ledger rejects: 5 (3 from 1 file with no accepted line at all) · API records quarantined: 3',
    );
    expect(String(mail.html)).toContain('Ledger rejects: 5 (3 from 1 file with no accepted line at all)');
    expect(mail.text).not.toContain('No ledger orders');
  });
});

describe('a period whose only ledger file was rejected whole', () => {
  let fixture: ReportFixture;
  let summary: ReportSummary;
  let workbook: ExcelJS.Workbook;
  let mail: ParsedMail;
  const warning =
    `No ledger orders for ${period}: every provider sale shows as missing_in_ledger — ` +
    'check the ledger import (3 lines rejected)';

  beforeAll(async () => {
    fixture = await createReportFixture({ ledger: { delimiter: ';' } }, { marts: false });
    // The period's good import never happened: only the broken one did.
    await fixture.warehouse.run(
      `DELETE FROM ledger WHERE file_hash = 'h-mar'; DELETE FROM ledger_rejects WHERE file_hash = 'h-mar'; DELETE ` +
        `FROM ledger_files WHERE file_hash = 'h-mar'`,
    );
    await importLedger(fixture.warehouse, fixture.config, writeDecimalCommaLedger(fixture.dir), {}, quiet());
    await reconcile(fixture.warehouse, fixture.config, { period, asOf: '2025-04-05' }, quiet());
    summary = await writeReport(fixture.warehouse, fixture.config, { period, dryRun: true }, quiet());
    ({ workbook, mail } = await readBack(summary));
  });
  afterAll(() => fixture?.warehouse.close());

  it('reconciles every provider sale as missing_in_ledger (the symptom)', async () => {
    const missing = await fixture.warehouse.one<{ n: string }>(
      `SELECT count(*) AS n FROM recon_exceptions WHERE period = '${period}' AND exception_type = 'missing_in_ledger'`,
    );
    expect(Number(missing!.n)).toBeGreaterThan(0);
  });

  it('leads the Summary with the warning, and lists the rejects', () => {
    const lines = summaryText(workbook);
    expect(lines.slice(0, 10)).toContain(`WARNING: ${warning}`);
    expect(lines).toContain('Ledger orders | 0 | in the period');
    expect(rejectLines(workbook)).toEqual([
      'ledger-2025-03-b.csv:2',
      'ledger-2025-03-b.csv:3',
      'ledger-2025-03-b.csv:4',
    ]);
  });

  it('leads the email with the warning, in its subject, text and HTML', () => {
    expect(mail.subject).toMatch(/— no ledger orders$/);
    const text = mail.text ?? '';
    // The email says the finding type in words (issue 30 item 7), the Summary as the database names it.
    const inWords = `WARNING: ${plainWords(warning)}`;
    expect(inWords).toContain('every provider sale shows as missing in the ledger');
    expect(text.split('\n').slice(0, 4)).toContain(inWords);
    expect(String(mail.html)).toContain(inWords);
    expect(text).toContain('Ledger rejects: 3');
  });
});
