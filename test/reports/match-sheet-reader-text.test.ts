/**
 * The Suggested matches sheet keeps every character (issue 31 item 4): read with exceljs's streaming reader, which
 * decodes each inflated chunk apart, a Note like `ação` came back as `a��ão` wherever a chunk ended inside a
 * multi-byte character. Notes of every length (so some character straddles every boundary) are read back
 * unchanged, from text stored in the sheet (inline) and in the shared strings; the reader's caps refuse a workbook
 * past them, saying so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { JobError } from '../../core/errors.js';
import { defaultSheetReadLimits } from '../../core/xlsx-sheet-reader.js';
import { readMatchDecisions } from '../../reports/match-sheet-reader.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-match-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 1-, 2-, 3- and 4-byte characters, after a run of ASCII whose length shifts them one byte each row. */
const noteOf = (i: number) => `${'x'.repeat(i % 97)}ação São João — ç€ 😀 ${i}`;
const rows = 6_000;

async function writeWorkbook(file: string, sharedStrings: boolean): Promise<void> {
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: sharedStrings });
  const findings = writer.addWorksheet('Missing');
  findings.addRow(['Finding ID', 'Decision', 'Note']).commit();
  findings.addRow(['F-1', 'timing', 'não é sugestão']).commit();
  await findings.commit();
  const sheet = writer.addWorksheet('Sugestões de correspondência');
  sheet.addRow(['Score', 'Ledger reference', 'Suggestion ID', 'Decision', 'Note', 'Decision ref']).commit();
  for (let i = 0; i < rows; i++) {
    sheet.addRow([90, `PO-ç-${i}`, `S-${i}`, i % 2 ? 'Reject' : 'confirm', noteOf(i), null]).commit();
  }
  await sheet.commit();
  await writer.commit();
}

describe('match sheet reader: text', () => {
  for (const sharedStrings of [false, true]) {
    it(`reads every note unchanged (${sharedStrings ? 'shared strings' : 'text in the sheet'})`, async () => {
      const file = path.join(dir, `${sharedStrings ? 'shared' : 'inline'}.xlsx`);
      await writeWorkbook(file, sharedStrings);
      const read = await readMatchDecisions(file);
      expect(read).toHaveLength(rows);
      const wrong = read.filter(
        (row, i) =>
          row.note !== noteOf(i) ||
          row.suggestionId !== `S-${i}` ||
          row.decision !== (i % 2 ? 'reject' : 'confirm') ||
          row.row !== i + 2,
      );
      expect(wrong.slice(0, 3)).toEqual([]);
      expect(read[1]).toEqual({
        sheet: 'Sugestões de correspondência',
        row: 3,
        suggestionId: 'S-1',
        decision: 'reject',
        note: noteOf(1),
        decisionRef: null,
      });
    });
  }

  it('refuses a workbook past the reader’s caps, saying so', async () => {
    const file = path.join(dir, 'capped.xlsx');
    await writeWorkbook(file, true);
    const capped = readMatchDecisions(file, { ...defaultSheetReadLimits, maxRows: 1_000 });
    await expect(capped).rejects.toThrow(JobError);
    await expect(capped).rejects.toThrow(/is refused: it holds more than 1,000 rows/);
    await expect(readMatchDecisions(file, { ...defaultSheetReadLimits, maxSharedStrings: 100 })).rejects.toThrow(
      /is refused: its shared strings number more than 100/,
    );
  });
});
