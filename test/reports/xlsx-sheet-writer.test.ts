/**
 * The lean sheet writer (reports/xlsx-sheet-writer.ts): text that XML or Excel would change — markup
 * characters, characters XML cannot hold, `_xHHHH_` sequences, edge spaces, emoji, text over Excel's
 * 32,767 characters — written through the real workbook and read back with exceljs exactly as intended;
 * numbers, dates and booleans keep their types and formats. LibreOffice reading the same file is in
 * test/cli/xlsx-libreoffice.test.ts.
 */
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportFacts } from '../../reports/report-facts.js';
import { loadSignoffFacts } from '../../pipelines/close/signoffs.js';
import { writeWorkbook } from '../../reports/workbook.js';
import { maxCellCharacters } from '../../core/text-safety.js';
import { columnLetters, inlineStringXml, SheetRowsXml } from '../../reports/xlsx-sheet-writer.js';
import type { SheetColumn } from '../../reports/sheet-spec.js';
import { createReportFixture, period, timezone, unzipText, type ReportFixture } from '../support/report.js';
import { awkwardTexts, insertAwkwardRejects } from '../support/xlsx.js';

describe('inline strings and column letters', () => {
  it('escapes markup, strips what XML cannot hold, protects _xHHHH_ and keeps edge spaces', () => {
    expect(inlineStringXml('PO-1')).toBe('<is><t>PO-1</t></is>');
    expect(inlineStringXml('a<b & "c">')).toBe('<is><t>a&lt;b &amp; &quot;c&quot;&gt;</t></is>');
    expect(inlineStringXml('bell\u0007 nul\u0000 lone\uD800 ffff\uFFFF')).toBe('<is><t>bell nul lone ffff</t></is>');
    expect(inlineStringXml('_x0041_')).toBe('<is><t>_x005F_x0041_</t></is>');
    expect(inlineStringXml(' padded\t')).toBe('<is><t xml:space="preserve"> padded\t</t></is>');
    expect(inlineStringXml('😀 ünïcødé')).toBe('<is><t>😀 ünïcødé</t></is>');
  });

  it(`cuts text to ${maxCellCharacters} characters, saying so, without splitting a surrogate pair`, () => {
    const note = '… (cut: 40000 characters)';
    const cut = 'y'.repeat(maxCellCharacters - note.length) + note;
    expect(inlineStringXml('y'.repeat(40_000))).toBe(`<is><t>${cut}</t></is>`);
    const emojiAtCut =
      `${'x'.repeat(maxCellCharacters - note.length - 1)}😀` +
      `${'z'.repeat(40_000 - maxCellCharacters + note.length - 1)}`;
    expect(inlineStringXml(emojiAtCut)).toBe(
      `<is><t>${'x'.repeat(maxCellCharacters - note.length - 1)}${note}</t></is>`,
    );
  });

  it('writes a row the same whether or not a cell holds characters beyond Latin-1 (copied apart)', () => {
    const columns: SheetColumn[] = [
      { key: 'ref', header: 'Ref', kind: 'text', sql: 'ref', width: 10 },
      { key: 'pin', header: 'PIN', kind: 'text', sql: 'pin', width: 10 },
      { key: 'n', header: 'N', kind: 'integer', sql: 'n', width: 10 },
    ];
    const writer = new SheetRowsXml(columns, { fixed: () => ({}), money: () => ({}) }, () => 7);
    const values = (row: unknown[]) => row.map((value) => ({ getItem: () => value }));
    writer.append(values(['PO-1', '••••AB12', 42]), 0, 2);
    writer.append(values(['é < 😀', 'plain', null]), 0, 3);
    // One-byte strings beyond ASCII (é, ü, ÿ: Latin-1), among ASCII cells and in a column of numbers.
    writer.append(values(['PO-3', 'Pokémon ü', 'ÿ']), 0, 4);
    // An ASCII text over Excel's limit is cut with an ellipsis (…, beyond Latin-1): the cell as written holds it.
    writer.append(values(['y'.repeat(40_000), null, null]), 0, 5);
    const cell = (r: string, text: string) => `<c r="${r}" s="7" t="inlineStr"><is><t>${text}</t></is></c>`;
    expect(writer.take().toString('utf8')).toBe(
      `<row r="2">${cell('A2', 'PO-1')}${cell('B2', '••••AB12')}<c r="C2" s="7"><v>42</v></c></row>` +
        `<row r="3">${cell('A3', 'é &lt; 😀')}${cell('B3', 'plain')}</row>` +
        `<row r="4">${cell('A4', 'PO-3')}${cell('B4', 'Pokémon ü')}${cell('C4', 'ÿ')}</row>` +
        `<row r="5">${cell('A5', inlineStringXml('y'.repeat(40_000)).slice(7, -9))}</row>`,
    );
  });

  it('names columns as Excel does', () => {
    expect([1, 26, 27, 52, 53, 702, 703, 16_384].map(columnLetters)).toEqual([
      'A',
      'Z',
      'AA',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
      'XFD',
    ]);
  });
});

describe('detail sheets written by the lean writer, read back with exceljs', () => {
  let fixture: ReportFixture;
  let workbook: ExcelJS.Workbook;
  let file: string;

  beforeAll(async () => {
    fixture = await createReportFixture();
    await insertAwkwardRejects(fixture.warehouse);
    file = `${fixture.dir}/lean.xlsx`;
    await writeWorkbook(
      fixture.warehouse,
      await loadReportFacts(fixture.warehouse, {
        period,
        timezone,
        signoff: await loadSignoffFacts(fixture.warehouse, period, timezone),
      }),
      { file },
    );
    workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
  });
  afterAll(() => fixture?.warehouse.close());

  it('gives back every awkward text as intended, in order', () => {
    const rejects = workbook.getWorksheet('Ledger rejects')!;
    const raws: unknown[] = [];
    rejects.eachRow((row, number) => {
      if (number > 1 && row.getCell(1).value === 'awkward.csv') raws.push(row.getCell(4).value);
    });
    expect(raws).toEqual(awkwardTexts.map((t) => t.exceljsReads ?? t.expected));
    expect(rejects.getRow(2).getCell(2).type).toBe(ExcelJS.ValueType.Number);
  });

  it('keeps types and formats: integers, money in the currency format, real dates, booleans, header and widths', () => {
    const sales = workbook.getWorksheet('Sales')!;
    const row = sales.getRow(2);
    expect(row.getCell(1).type).toBe(ExcelJS.ValueType.Number);
    expect(row.getCell(1).numFmt).toBe('0');
    expect(row.getCell(3).value).toBeInstanceOf(Date);
    expect(row.getCell(3).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    // Issue 30 item 6: the printed columns lead, so the sales price is the fourth.
    expect(sales.getRow(1).getCell(4).value).toBe('Sales price');
    expect(row.getCell(4).type).toBe(ExcelJS.ValueType.Number);
    expect(row.getCell(4).numFmt).toMatch(/^"(R\$|US\$) "#,##0\.00##/);
    expect(typeof row.getCell(14).value).toBe('boolean');
    expect(sales.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sales.getRow(1).getCell(8).value).toBe('Product');
    expect(sales.getColumn(8).width).toBe(28);
    // No shared-string table: the cells are inline strings.
    const parts = unzipText(file);
    expect([...parts.keys()].some((name) => /sharedStrings/.test(name))).toBe(false);
    const salesPart = [...parts.entries()].find(
      ([name, xml]) => /worksheets\/sheet\d+\.xml$/.test(name) && xml.includes('Game Card 50'),
    );
    expect(salesPart?.[1]).toMatch(/<pane [^>]*ySplit="1"[^>]*state="frozen"/);
    expect(salesPart?.[1]).toMatch(/<autoFilter ref="A1:[A-Z]+\d+"\/>/);
  });
});
