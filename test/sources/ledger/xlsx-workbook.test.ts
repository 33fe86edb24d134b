/**
 * The ledger import's synchronous read of xl/workbook.xml (the sheets in tab order, the date system) parses the XML
 * with the rows' saxes parser: a commented-out sheet is no sheet, and a name is read whole whatever it holds.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readWorkbookIndex } from '../../../sources/ledger/xlsx-workbook.js';
import { temporaryDirectory } from '../../support/ledger.js';
import { zip } from '../../support/zip.js';

const temp = temporaryDirectory('ledger-xlsx-workbook');
afterAll(() => temp.remove());

it('reads the sheets as XML: not from a comment, names holding > and entities whole, the 1904 date system', () => {
  const workbook =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    '<workbookPr date1904="true"/><!-- <sheet name="Old" sheetId="9" r:id="rId9"/> -->' +
    '<sheets><sheet name="Vendas > 2026" sheetId="1" r:id="rId1"/>' +
    '<sheet name="P&amp;L &#x263A;" sheetId="2" r:id="rId2"/></sheets></workbook>';
  const file = path.join(temp.dir, 'book.xlsx');
  writeFileSync(file, zip([['xl/workbook.xml', workbook]]));
  expect(readWorkbookIndex(file)).toEqual({ sheets: ['Vendas > 2026', 'P&L ☺'], date1904: true });
});
