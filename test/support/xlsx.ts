/**
 * Text that SpreadsheetML writers get wrong, as ledger rejects of the report fixture (an unplaced file,
 * so every report lists them): what is stored, and what a reader must get back from the workbook.
 */
import type { Warehouse } from '../../core/warehouse.js';
import { sqlString } from '../../core/sql.js';

export const awkwardTexts: { stored: string; expected: string; exceljsReads?: string }[] = [
  { stored: 'a<b & "c"> \'d\'', expected: 'a<b & "c"> \'d\'' },
  // (A lone surrogate never reaches the database: DuckDB stores text as UTF-8. The unit test covers it.)
  { stored: 'bell\u0007 vt\u000B end', expected: 'bell vt end' },
  // Excel and LibreOffice read `_xHHHH_` as an escaped character, so the writer escapes its underscore
  // (`_x005F_`); exceljs's reader does not decode these escapes and shows the escaped form.
  {
    stored: '_x0041_ stays as typed',
    expected: '_x0041_ stays as typed',
    exceljsReads: '_x005F_x0041_ stays as typed',
  },
  { stored: '  leading and trailing  ', expected: '  leading and trailing  ' },
  { stored: 'line one\nline two', expected: 'line one\nline two' },
  { stored: '😀 ünïcødé ção €', expected: '😀 ünïcødé ção €' },
  { stored: '=1+1', expected: '=1+1' },
  { stored: 'z'.repeat(40_000), expected: `${'z'.repeat(32_767 - 25)}… (cut: 40000 characters)` },
];

/** Inserts the awkward texts as the raw lines of rejects from `awkward.csv`, lines 1, 2, 3… in order. */
export async function insertAwkwardRejects(warehouse: Warehouse): Promise<void> {
  const values = awkwardTexts.map(
    ({ stored }, i) => `('awkward.csv', ${i + 1}, 'awkward text', ${sqlString(stored)}, 'h-awkward', 'run-awkward')`,
  );
  await warehouse.run(
    `INSERT INTO ledger_rejects (source_file, source_line, reason, raw, file_hash, run_id) VALUES ${values.join(', ')}`,
  );
}
