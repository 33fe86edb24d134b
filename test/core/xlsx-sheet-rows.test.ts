/**
 * The rows of a workbook keep their cells' types (issue 31 item 4, what the ledger read through exceljs): a number
 * in a date format (built-in or the workbook's own) is a Date when dates are asked for, in either date system, and
 * stays a number otherwise; a formula's result stays as saved; booleans, error codes, ISO date cells, shared and
 * inline text (without phonetic runs); row numbers as the sheet says, gaps kept. The workbook is built part by part,
 * so the test controls the styles the cells point at.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorkbook, type SheetRow, type TypedCell } from '../../core/xlsx-sheet-rows.js';
import { temporaryDirectory } from '../support/ledger.js';
import { zip } from '../support/zip.js';

const temp = temporaryDirectory('xlsx-sheet-rows');
afterAll(() => temp.remove());

const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const relationships = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** Styles: 0 General, 1 built-in 14 (a date), 2 own format 164 (a date and time), 3 own format 165 (money). */
const styles = `<styleSheet ${main}><numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy\\ hh:mm"/>
<numFmt numFmtId="165" formatCode="&quot;R$&quot;\\ #,##0.00"/></numFmts>
<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>
<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs>
</styleSheet>`;

const sheet = `<worksheet ${main}><sheetData>
<row r="2"><c r="A2" t="s"><v>0</v></c>
<c r="B2" t="inlineStr"><is><r><t>São </t></r><r><t>Paulo</t></r><rPh><t>サンパウロ</t></rPh></is></c>
<c r="D2" s="1"><v>45726</v></c><c r="E2" s="2"><v>45726.4166666667</v></c></row>
<row r="5"><c r="A5" s="3"><v>1234.5</v></c><c r="B5" s="2"><f>E2+1</f><v>45727.5</v></c>
<c r="C5" t="b"><v>1</v></c><c r="D5" t="e"><v>#N/A</v></c><c r="E5" t="d"><v>2025-03-10T10:00:00</v></c>
<c r="F5" t="str"><f>A2</f><v>日本語</v></c><c r="G5" s="2"/></row></sheetData></worksheet>`;

function writeBook(date1904: boolean): string {
  const file = path.join(temp.dir, `typed-${date1904}.xlsx`);
  writeFileSync(
    file,
    zip([
      [
        'xl/workbook.xml',
        `<workbook ${main} xmlns:r="${relationships}">${date1904 ? '<workbookPr date1904="1"/>' : ''}<sheets>` +
          '<sheet name="Vendas" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ],
      [
        'xl/_rels/workbook.xml.rels',
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          `<Relationship Id="rId1" Type="${relationships}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      ],
      ['xl/sharedStrings.xml', `<sst ${main}><si><t>ação 😀</t></si></sst>`],
      ['xl/styles.xml', styles],
      ['xl/worksheets/sheet1.xml', sheet],
    ]),
  );
  return file;
}

async function rowsOf(file: string, dates: boolean): Promise<SheetRow<TypedCell>[]> {
  const workbook = await openWorkbook(file, { maxSharedStrings: 10, dates });
  const rows: SheetRow<TypedCell>[] = [];
  for await (const chunk of workbook.rows('Vendas')!) rows.push(...chunk);
  return rows.map((row) => ({ number: row.number, cells: Array.from(row.cells, (cell) => cell ?? null) }));
}

const utc = (text: string) => new Date(`${text}Z`);

describe('sheet rows: cell types', () => {
  it('reads dates by their number format, and every other type as stored', async () => {
    expect(await rowsOf(writeBook(false), true)).toEqual([
      {
        number: 2,
        cells: ['ação 😀', 'São Paulo', null, utc('2025-03-10T00:00:00'), utc('2025-03-10T10:00:00')],
      },
      {
        number: 5,
        cells: [1234.5, 45727.5, true, '#N/A', utc('2025-03-10T10:00:00'), '日本語', null],
      },
    ]);
  });

  it('counts from 1904 in the 1904 date system', async () => {
    const [first] = await rowsOf(writeBook(true), true);
    expect(first!.cells[3]).toEqual(utc('2029-03-11T00:00:00'));
  });

  it('leaves date cells as serial numbers when dates are not asked for', async () => {
    const [first, second] = await rowsOf(writeBook(false), false);
    expect(first!.cells.slice(3)).toEqual([45726, 45726.4166666667]);
    expect(second!.cells[4]).toBe('2025-03-10T10:00:00');
  });
});
