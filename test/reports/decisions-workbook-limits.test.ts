/**
 * Issue 18 item 3: `findings import` refuses a zip bomb with the guard `ledger import` uses
 * (core/xlsx-limits.ts), before reading any part of it, and records the run as failed. The bomb is made
 * here: a workbook with a decisions sheet whose shared strings inflate about 400×.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importDecisions } from '../../pipelines/decisions/findings.js';
import { readDecisionsWorkbook } from '../../reports/decisions-reader.js';
import { capturedOutput, openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';
import { zip } from '../support/zip.js';

const temp = temporaryDirectory('decisions-bomb');
afterAll(() => temp.remove());

const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

/** A decisions workbook (one finding sheet) whose shared strings part is `sharedStrings`. */
function decisionsWorkbook(name: string, sharedStrings: string): string {
  const sheet =
    `<?xml version="1.0" encoding="UTF-8"?><worksheet ${ns}><sheetData>` +
    `<row r="1">${inline('A1', 'Finding ID')}${inline('B1', 'Decision')}</row>` +
    `<row r="2">${inline('A2', 'F-1')}${inline('B2', 'accepted')}</row></sheetData></worksheet>`;
  const file = path.join(temp.dir, name);
  writeFileSync(
    file,
    zip([
      [
        '[Content_Types].xml',
        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
      ],
      [
        'xl/workbook.xml',
        `<?xml version="1.0"?><workbook ${ns} ` +
          'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
          '<sheets><sheet name="Cost" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ],
      [
        'xl/_rels/workbook.xml.rels',
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
      ],
      ['xl/sharedStrings.xml', sharedStrings],
      ['xl/worksheets/sheet1.xml', sheet],
    ]),
  );
  return file;
}

describe('findings import of a hostile workbook', () => {
  it('refuses a zip bomb with the ledger import guard, and records the run as failed', async () => {
    const strings = '<si><t>AAAAAAAAAAAAAAAA</t></si>'.repeat((100 * 1024 * 1024) / 27);
    const bomb = decisionsWorkbook('bomb.xlsx', `<?xml version="1.0"?><sst ${ns}>${strings}</sst>`);
    await expect(readDecisionsWorkbook(bomb)).rejects.toThrow(
      /bomb\.xlsx is refused: its part xl\/sharedStrings\.xml inflates \d+× .*zip bomb/,
    );

    const dir = temporaryDirectory('decisions-bomb-db');
    const config = testConfig(dir.dir);
    const warehouse = await openWarehouse(config);
    try {
      const error = await importDecisions(warehouse, bomb, { by: 'tester' }, capturedOutput().output).catch(
        (e: unknown) => e as Error & { hint?: string },
      );
      expect(error.message).toMatch(/is refused: .*zip bomb/);
      expect(error.hint).toMatch(/pinrecon report/);
      const runs = await warehouse.all<{ command: string; status: string }>(
        `SELECT command, status FROM pipeline_runs`,
      );
      expect(runs).toEqual([{ command: 'findings import', status: 'failed' }]);
    } finally {
      warehouse.close();
      dir.remove();
    }
  });

  it('reads an ordinary workbook of decisions as before', async () => {
    const plain = decisionsWorkbook('plain.xlsx', `<?xml version="1.0"?><sst ${ns} count="0" uniqueCount="0"/>`);
    const workbook = await readDecisionsWorkbook(plain);
    expect(workbook.sheets).toEqual([{ name: 'Cost', headerRow: 1 }]);
    expect(workbook.rows).toMatchObject([{ findingId: 'F-1', decision: 'accepted', row: 2 }]);
  });
});
