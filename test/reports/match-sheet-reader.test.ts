/**
 * The Suggested matches sheet read back (issue 29): found by its header row wherever it is and whatever it is
 * called, only rows with a Decision typed, the decision lower-cased; and the import refusing each row, naming sheet
 * and row, that is not confirm or reject, has no Suggestion ID, or rejects without a Note (the others recorded).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, expect, test } from 'vitest';
import { importMatchDecisions } from '../../pipelines/decisions/match-import.js';
import { decideMatches, listMatches, type MatchVerb } from '../../pipelines/decisions/matches.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { readMatchDecisions } from '../../reports/match-sheet-reader.js';
import {
  asOf,
  capturingOutput,
  insertLedger,
  insertSales,
  ledgerFor,
  openFixture,
  period,
  sale,
} from '../support/reconcile.js';

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
  sheet.addRows([['my own title'], [], ['Score', 'Suggestion ID', 'Decision', 'Note', 'Decision ref'], ...rows]);
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
    { sheet: 'Vorschläge', row: 4, suggestionId: 's1', decision: 'confirm', note: null, decisionRef: null },
    { sheet: 'Vorschläge', row: 6, suggestionId: 's3', decision: 'reject', note: 'another order', decisionRef: null },
  ]);
});

test('refuses each row that is no decision, has no id, or rejects without a note, naming sheet and row', async () => {
  const file = await workbookWith([
    ['90', 's1', 'maybe', null],
    ['80', null, 'confirm', null],
    ['70', 's3', 'reject', null],
  ]);
  const f = await openFixture();
  try {
    const imported = await importMatchDecisions(f.warehouse, await readMatchDecisions(file), {
      by: 'Ana',
      source: 'workbook',
      timezone: 'UTC',
    });
    expect(imported.refused.map((r) => `${r.sheet} row ${r.row}: ${r.reason}`)).toEqual([
      'Vorschläge row 4: Decision must be confirm or reject, got "maybe"',
      'Vorschläge row 5: no Suggestion ID',
      'Vorschläge row 6: a reject needs a Note saying why',
    ]);
    expect(await f.warehouse.all('SELECT * FROM recon_decisions')).toEqual([]);
  } finally {
    await f.cleanup();
  }
});

test('a row typed over a decision taken since the workbook was written is refused; left as written, not', async () => {
  const f = await openFixture();
  try {
    const s = sale({ partner_reference: 'PO-2026-0009401' });
    await insertSales(f.warehouse, [s]);
    await insertLedger(f.warehouse, [ledgerFor(s, { partner_reference: 'po-2026-0009401' })]);
    await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
    const [suggestion] = await listMatches(f.warehouse, { period });
    const id = suggestion!.suggestion_id;
    const context = { by: 'Ana', source: 'workbook', timezone: 'UTC' };
    const confirm = async (verb: MatchVerb, note: string | null) =>
      decideMatches(f.warehouse, [{ suggestionId: id, verb, note }], { ...context, command: 'matches' });
    // a workbook written while the suggestion was undecided, typed `reject`; meanwhile someone confirms it
    const typedOver = await workbookWith([['90', id, 'reject', 'typed in the old workbook', null]]);
    const confirmed = await confirm('confirm', null);
    const confirmedRef = confirmed.recorded[0]!.rowSha256!;
    const refused = await importMatchDecisions(f.warehouse, await readMatchDecisions(typedOver), context);
    expect(refused.recorded).toEqual([]);
    expect(refused.refused.map((r) => [r.row, r.reason])).toEqual([
      [4, expect.stringMatching(/^edited over a newer decision \(match_confirmed recorded after the workbook was/)],
    ]);
    const overwritten = await importMatchDecisions(f.warehouse, await readMatchDecisions(typedOver), {
      ...context,
      overwrite: true,
    });
    expect(overwritten.recorded.map((r) => [r.decision, r.note])).toEqual([
      ['match_rejected', 'typed in the old workbook'],
    ]);
    // a workbook written while it was confirmed, left as written, imported after the rejection: nothing recorded
    const leftAsWritten = await workbookWith([['90', id, 'confirm', null, confirmedRef]]);
    expect(
      (await importMatchDecisions(f.warehouse, await readMatchDecisions(leftAsWritten), context)).recorded,
    ).toEqual([]);
  } finally {
    await f.cleanup();
  }
});
