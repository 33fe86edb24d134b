/**
 * The decisions reader keeps every character (issue 31): the hand-written one decoded each inflated chunk apart
 * and turned `ação` into `a��ão` wherever a chunk ended inside a multi-byte character. Notes of every length
 * (so some character straddles every boundary) are read back unchanged, from text stored in the sheet (inline)
 * and in the shared strings; the reader's caps refuse a workbook past them (issue 34).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { JobError } from '../../core/errors.js';
import { readDecisionsWorkbook } from '../../reports/decisions-reader.js';
import { defaultSheetReadLimits } from '../../core/xlsx-sheet-reader.js';

const headers = ['Finding type', 'Finding ID', 'Decision', 'Note', 'Owner', 'Expected clear by'];
/** 1-, 2-, 3- and 4-byte characters, after a run of ASCII whose length shifts them one byte each row. */
const noteOf = (i: number) => `${'x'.repeat(i % 97)}ação São João — ç€ 😀 ${i}`;
const rows = 6_000;

async function writeWorkbook(file: string, sharedStrings: boolean): Promise<void> {
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: sharedStrings });
  const summary = writer.addWorksheet('Summary');
  summary.addRow(['Period', '2024-03']).commit();
  await summary.commit();
  const sheet = writer.addWorksheet('Amounts');
  sheet.addRow(headers).commit();
  for (let i = 0; i < rows; i++) {
    sheet.addRow(['cost_mismatch', `F-${i}`, 'write_off', noteOf(i), 'João Ñandú', '2024-04-30']).commit();
  }
  await sheet.commit();
  await writer.commit();
}

describe('decisions reader: text', () => {
  for (const sharedStrings of [false, true]) {
    it(`reads every note unchanged (${sharedStrings ? 'shared strings' : 'text in the sheet'})`, async () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-decisions-text-')), 'decided.xlsx');
      await writeWorkbook(file, sharedStrings);
      const read = await readDecisionsWorkbook(file);
      expect(read.period).toBe('2024-03');
      expect(read.sheets).toEqual([{ name: 'Amounts', headerRow: 1 }]);
      expect(read.rows).toHaveLength(rows);
      const wrong = read.rows.filter((row, i) => row.note !== noteOf(i) || row.owner !== 'João Ñandú');
      expect(wrong.slice(0, 3)).toEqual([]);
      expect(read.rows[0]).toMatchObject({ findingId: 'F-0', decision: 'write_off', expectedClearBy: '2024-04-30' });
    });
  }

  it('refuses a workbook with more rows than its cap, saying so', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinrecon-decisions-cap-')), 'decided.xlsx');
    await writeWorkbook(file, true);
    const read = readDecisionsWorkbook(file, { ...defaultSheetReadLimits, maxRows: 1_000 });
    await expect(read).rejects.toThrow(JobError);
    await expect(readDecisionsWorkbook(file, { ...defaultSheetReadLimits, maxRows: 1_000 })).rejects.toThrow(
      /is refused: it holds more than 1,000 rows/,
    );
    await expect(readDecisionsWorkbook(file, { ...defaultSheetReadLimits, maxSharedStrings: 100 })).rejects.toThrow(
      /is refused: its shared strings number more than 100/,
    );
  });
});
