/**
 * The workbook as LibreOffice reads it: the report fixture's workbook (detail rows from the lean sheet
 * writer) converted by a real `soffice --headless` to one CSV per sheet, cells "as shown", so number
 * formats, dates in the configured zone, booleans and awkward text are checked as a user would see them.
 * Skips, saying why, only where LibreOffice is not installed.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportFacts } from '../../reports/report-facts.js';
import { loadSignoffFacts } from '../../pipelines/close/signoffs.js';
import { writeWorkbook } from '../../reports/workbook.js';
import { hasSoffice, runSoffice } from '../support/decisions.js';
import { createReportFixture, period, timezone, type ReportFixture } from '../support/report.js';
import { awkwardTexts, insertAwkwardRejects } from '../support/xlsx.js';

const soffice = hasSoffice();
if (!soffice)
  console.warn('skipping the LibreOffice read-back: `soffice` is not installed (apt-get install libreoffice-calc)');

/** Every sheet to CSV: UTF-8, comma, quoted text, cells as shown, all sheets (token 12 = -1, LibreOffice ≥ 7.2). */
const csvFilter = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1';

/** A CSV file's rows (RFC 4180 quoting, newlines inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[++i];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') [row, field] = [[...row, field], ''];
    else if (c === '\n') [rows[rows.length], row, field] = [[...row, field], [], ''];
    else if (c !== '\r') field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

describe.skipIf(!soffice)('the workbook read by LibreOffice', () => {
  let fixture: ReportFixture;
  const sheets = new Map<string, string[][]>();

  beforeAll(async () => {
    fixture = await createReportFixture();
    await insertAwkwardRejects(fixture.warehouse);
    const file = path.join(fixture.dir, 'lean.xlsx');
    await writeWorkbook(
      fixture.warehouse,
      await loadReportFacts(fixture.warehouse, {
        period,
        timezone,
        signoff: await loadSignoffFacts(fixture.warehouse, period, timezone),
      }),
      { file },
    );
    const out = path.join(fixture.dir, 'csv');
    mkdirSync(out);
    const profile = `file://${path.join(fixture.dir, 'lo-profile')}`;
    const converted = await runSoffice([
      `-env:UserInstallation=${profile}`,
      '--headless',
      '--convert-to',
      csvFilter,
      '--outdir',
      out,
      file,
    ]);
    expect(converted.status, `${converted.stdout}\n${converted.stderr}`).toBe(0);
    for (const name of readdirSync(out))
      sheets.set(name.replace(/^lean-|\.csv$/g, ''), parseCsv(readFileSync(path.join(out, name), 'utf8')));
  });
  afterAll(() => fixture?.warehouse.close());

  it('opens every sheet', () => {
    expect([...sheets.keys()]).toEqual(
      expect.arrayContaining(['Summary', 'Missing', 'Sales', 'Ledger rejects', 'API quarantine']),
    );
  });

  it('shows the sales with their formats: integers, local date-times, money in the currency, booleans', () => {
    const [header, first] = sheets.get('Sales')!;
    expect(header!.slice(0, 3)).toEqual(['Transaction ID', 'Partner reference', 'Date']);
    const cell = (name: string) => first![header!.indexOf(name)];
    expect(cell('Transaction ID')).toBe('1001');
    expect(cell('Date')).toBe('2025-03-01 00:30:00');
    expect(cell('Partner cost')).toBe('R$ 45.50');
    expect(cell('Product')).toBe('Game Card 50');
    expect(cell('Key sent to customer')).toBe('TRUE');
    expect(cell('PIN (last 4)')).toBe('••••3333');
  });

  it('gives back every awkward text as intended', () => {
    const rows = sheets.get('Ledger rejects')!.filter((row) => row[0] === 'awkward.csv');
    expect(rows.map((row) => row[3])).toEqual(awkwardTexts.map((t) => t.expected));
  });
});
