/**
 * The Suggested matches sheet read back (issue 29): found by its header row wherever it is and whatever it is
 * called, only rows with a Decision typed, the decision lower-cased; and the import refusing the whole sheet, naming
 * sheet and row, when a row is not confirm or reject, has no Suggestion ID, or rejects without a Note.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, expect, test } from 'vitest';
import { JobError } from '../../core/errors.js';
import { importMatchDecisions } from '../../pipelines/decisions/matches.js';
import { readMatchDecisions } from '../../reports/match-sheet-reader.js';
import { openFixture } from '../support/reconcile.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-match-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A workbook with a finding-like sheet first and the suggestions on a renamed sheet, header on row 3. */
async function workbookWith(rows: (string | null)[][]): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('Missing').addRows([
    ['Finding ID', 'Decision', 'Note'],
    ['f1', 'timing', 'x'],
  ]);
  const sheet = workbook.addWorksheet('Vorschläge');
  sheet.addRows([['my own title'], [], ['Score', 'Suggestion ID', 'Decision', 'Note'], ...rows]);
  const file = path.join(dir, `${rows.length}-${Date.now()}.xlsx`);
  await workbook.xlsx.writeFile(file);
  return file;
}

test('reads the rows with a decision typed, from the sheet whose header names Suggestion ID and Decision', async () => {
  const file = await workbookWith([
    ['90', 's1', ' Confirm ', null],
    ['80', 's2', null, 'a note alone is not a decision'],
    ['70', 's3', 'reject', 'another order'],
  ]);
  expect(await readMatchDecisions(file)).toEqual([
    { sheet: 'Vorschläge', row: 4, suggestionId: 's1', decision: 'confirm', note: null },
    { sheet: 'Vorschläge', row: 6, suggestionId: 's3', decision: 'reject', note: 'another order' },
  ]);
});

test('refuses the sheet, naming each row that is no decision, has no id, or rejects without a note', async () => {
  const file = await workbookWith([
    ['90', 's1', 'maybe', null],
    ['80', null, 'confirm', null],
    ['70', 's3', 'reject', null],
  ]);
  const f = await openFixture();
  try {
    const importing = importMatchDecisions(f.warehouse, file, { by: 'Ana', source: 'workbook', timezone: 'UTC' });
    await expect(importing).rejects.toBeInstanceOf(JobError);
    await expect(importing).rejects.toThrow(
      'Vorschläge row 4: Decision must be confirm or reject, got "maybe"; Vorschläge row 5: no Suggestion ID; ' +
        'Vorschläge row 6: a reject needs a Note saying why',
    );
    expect(await f.warehouse.all('SELECT * FROM recon_decisions')).toEqual([]);
  } finally {
    f.cleanup();
  }
});
