/**
 * The workbook's side of decisions: the finding sheets end with the decision columns (a drop-down of the
 * decisions, a date format), every sheet prints landscape one page wide with its header row repeated and a
 * footer; the Summary shows decisions, pending, overdue and undecided with gross amounts; the reader finds
 * the decision sheets by their header row whatever the user did to the sheets, and reads typed dates.
 */
import path from 'node:path';
import { expect, test } from 'vitest';
import ExcelJS from 'exceljs';
import { decideFindings } from '../../pipelines/findings.js';
import { parseDate, readDecisionsWorkbook } from '../../reports/decisions-reader.js';
import { unzipText } from '../support/report.js';
import { fixtureForEachTest } from '../support/reconcile.js';
import { fillFindings, findingIdOf, reconcileAndReport, typeDecisions } from '../support/decisions.js';

const f = fixtureForEachTest();

test('finding sheets end with the decision columns, a drop-down and a date format; every sheet has a page setup', async () => {
  const { costBreak } = await fillFindings(f);
  await reconcileAndReport(f);
  const costId = await findingIdOf(f, costBreak.partner_reference);
  await decideFindings(f.warehouse, [costId], { decision: 'timing', expectedClearBy: '2024-04-01', owner: 'ana', by: 'controller' });
  const file = await reconcileAndReport(f);

  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const amounts = workbook.getWorksheet('Amounts')!;
  const headers = (amounts.getRow(1).values as unknown[]).slice(1);
  expect(headers.slice(-8)).toEqual(['Finding ID', 'Decision', 'Note', 'Owner', 'Expected clear by', 'Decided by', 'Decided at', 'Decision ref']);
  // The columns before them are as they were.
  expect(headers.slice(0, 3)).toEqual(['Exception type', 'Partner reference', 'Transaction ID']);
  const column = (name: string) => headers.indexOf(name) + 1;
  const decided = amounts.getRows(2, amounts.rowCount - 1)!.find((row) => row.getCell(column('Finding ID')).value === costId)!;
  expect(decided.getCell(column('Decision')).value).toBe('timing');
  expect(decided.getCell(column('Owner')).value).toBe('ana');
  expect(decided.getCell(column('Expected clear by')).numFmt).toMatch(/yy/);
  // Who decided and when (in the configured zone, named), and the decision the row was written with: grey, for reading.
  expect(decided.getCell(column('Decided by')).value).toBe('controller');
  expect(decided.getCell(column('Decided at')).value).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} \\(${f.config.timezone}\\)$`));
  const [current] = await f.warehouse.all<{ row_sha256: string }>('SELECT row_sha256 FROM recon_decisions WHERE finding_id = $1 AND superseded_at IS NULL', [costId]);
  expect(decided.getCell(column('Decision ref')).value).toBe(current!.row_sha256);
  expect(decided.getCell(column('Decision ref')).font?.color?.argb).toBe('FF808080');

  const xml = unzipText(file);
  const sheetXml = [...xml.entries()].filter(([name]) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name));
  for (const [, text] of sheetXml) {
    expect(text).toMatch(/<pageSetup[^>]*orientation="landscape"/);
    expect(text).toMatch(/<pageSetup[^>]*fitToWidth="1"/);
    expect(text).toMatch(/<pageSetUpPr fitToPage="1"\/>/);
    expect(text).toMatch(/<oddFooter>[^<]*2024-03[^<]*as of 2024-04-05[^<]*&amp;P/);
  }
  const validated = sheetXml.filter(([, text]) => /<dataValidation [^>]*type="list"/.test(text));
  expect(validated).toHaveLength(6); // Missing, Amounts, Status, Duplicates, Cutoff, Unredeemed keys
  expect(validated[0]![1]).toContain('&quot;investigating,timing,claim,fix_ledger,reverse,write_off,accepted&quot;');
  expect(xml.get('xl/workbook.xml')).toMatch(/_xlnm\.Print_Titles/);

  // The Summary: decisions and states per currency, with gross debit and credit.
  const summary = workbook.getWorksheet('Summary')!;
  const rows = Array.from(summary.getSheetValues(), (row) => (Array.isArray(row) ? row.slice(1) : []));
  const section = rows.findIndex((row) => row[0] === 'Decisions, pending and overdue per currency');
  expect(section).toBeGreaterThan(0);
  expect(rows[section + 2]).toEqual(['Currency', 'Decision / state', 'Findings', 'Net amount', 'Gross debit', 'Gross credit']);
  const lines = rows.slice(section + 3, section + 8).filter((row) => row[0] === 'BRL');
  // cost break 9.00 vs 8.00 (timing, overdue), missing_in_ledger 7.25 and price 8.50 vs 8.00 (undecided).
  expect(lines.map((row) => row.slice(1, 3))).toEqual([
    ['timing', 1],
    ['OVERDUE', 1],
    ['UNDECIDED', 2],
  ]);
  const bridgeHeader = rows.find((row) => row[0] === 'Currency' && row[1] === 'Step');
  expect(bridgeHeader?.slice(-2)).toEqual(['Gross debit', 'Gross credit']);
});

test('the reader finds decision sheets by their header row: a sheet deleted, a column added in front', async () => {
  const { costBreak, missing } = await fillFindings(f);
  const file = await reconcileAndReport(f);
  const costId = await findingIdOf(f, costBreak.partner_reference);
  const missingId = await findingIdOf(f, missing.partner_reference);
  const copy = path.join(f.dir, 'edited.xlsx');
  await typeDecisions(file, copy, { [costId]: { decision: 'claim', expectedClearBy: 'tomorrow' }, [missingId]: { decision: 'accepted' } }, {
    insertColumnFirst: true,
    deleteSheet: 'Status',
  });
  const read = await readDecisionsWorkbook(copy);
  expect(read.period).toBe('2024-03');
  expect(read.sheets.map((s) => s.name)).toEqual(['Missing', 'Amounts', 'Duplicates', 'Cutoff', 'Unredeemed keys']);
  const cost = read.rows.find((r) => r.findingId === costId)!;
  expect(cost).toMatchObject({ sheet: 'Amounts', decision: 'claim', problem: expect.stringContaining('"tomorrow" is not a date') });
  expect(read.rows.find((r) => r.findingId === missingId)).toMatchObject({ sheet: 'Missing', decision: 'accepted', expectedClearBy: null });
});

test('a typed date may be an Excel serial, text YYYY-MM-DD or ISO text of a date cell', () => {
  expect(parseDate(45_474)).toBe('2024-07-01');
  expect(parseDate('2024-07-01')).toBe('2024-07-01');
  expect(parseDate('2024-07-01T00:00:00Z')).toBe('2024-07-01');
  expect(parseDate('  ')).toBeNull();
  expect(parseDate('2024-02-30')).toMatchObject({ problem: expect.stringContaining('not a date') });
  expect(parseDate('31/12/2024')).toMatchObject({ problem: expect.stringContaining('YYYY-MM-DD') });
});
