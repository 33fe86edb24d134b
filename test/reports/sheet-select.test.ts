/**
 * A detail sheet's SELECT list (reports/sheet-select.ts) against a real DuckDB: a text column with few distinct
 * values comes as an ENUM of exactly those values (quotes, markup, edge spaces, emoji, `_xHHHH_` and the empty
 * string included), so the row writer gets the same strings as from VARCHAR; many values, control characters
 * or a long value list stay VARCHAR, read in two pieces (the first inline in DuckDB's vector) and joined again: the
 * same strings whatever their length or characters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { sqlString } from '../../core/sql.js';
import type { DetailSheet } from '../../reports/sheet-spec.js';
import { sheetSelect } from '../../reports/sheet-select.js';

const fewValues = ['a<b & "c"> \'d\'', '  edge spaces  ', '\u00a0no-break edge', '😀 ünïcødé', '_x0041_', '', 'plain'];

const sheet: DetailSheet = {
  title: 'Test',
  description: 'test rows',
  columns: [
    { key: 'id', header: 'ID', kind: 'integer', sql: 'id', width: 8 },
    { key: 'few', header: 'Few', kind: 'text', sql: 'few', width: 20 },
    { key: 'many', header: 'Many', kind: 'text', sql: 'many', width: 20 },
    { key: 'control', header: 'Control', kind: 'text', sql: 'control', width: 20 },
    { key: 'long', header: 'Long', kind: 'text', sql: 'long', width: 20 },
    { key: 'split', header: 'Split', kind: 'text', sql: 'split', width: 20 },
  ],
  table: 'sheet_rows',
  where: 'id > 0 OR id IS NULL',
  orderBy: 'id',
};

describe('sheet select list', () => {
  let warehouse: Warehouse;

  beforeAll(async () => {
    warehouse = await Warehouse.open(':memory:');
    await warehouse.run(
      `CREATE TABLE sheet_rows AS
       SELECT i AS id,
              CASE WHEN i % 9 = 8 THEN NULL
                   ELSE [${fewValues.map(sqlString).join(', ')}][i % 9 % ${fewValues.length} + 1] END AS few,
              'ref-' || i AS many,
              CASE WHEN i % 2 = 0 THEN 'bell' || chr(7) ELSE 'fine' END AS control,
              repeat(chr((97 + i % 3)::INTEGER), 10000) AS long,
              CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'abc' || '' WHEN 3 THEN 'abcd'
                   WHEN 4 THEN 'abcde' || i WHEN 5 THEN '😀😀😀😀😀' || i WHEN 6 THEN 'ünïcødé-' || i
                   ELSE '••••' || (i % 10000)::VARCHAR END AS split
       FROM range(1, 2001) AS t(i)`,
    );
  });
  afterAll(() => warehouse?.close());

  it('selects a few-valued text column as an ENUM of its values, and gives back the same strings', async () => {
    const select = await sheetSelect(warehouse, sheet, 'UTC');
    const enumColumns = select.list.split(' AS "').filter((part) => part.includes('ENUM('));
    expect(enumColumns).toHaveLength(1);
    expect(select.list).toMatch(/\(few\)::VARCHAR::ENUM\(/);
    const asSelected: Record<string, unknown>[] = [];
    const result = await warehouse.connection.stream(`SELECT ${select.list} FROM ${sheet.table} ORDER BY id`);
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const columns = select.columns(chunk);
      for (let row = 0; row < chunk.rowCount; row++)
        asSelected.push(Object.fromEntries(sheet.columns.map((column, i) => [column.key, columns[i]!.getItem(row)])));
    }
    const asText = await warehouse.all<Record<string, unknown>>(
      `SELECT id::DOUBLE AS id, few, many, control, long, split FROM ${sheet.table} ORDER BY id`,
    );
    expect(asSelected).toEqual(asText);
    expect(new Set(asSelected.map((row) => row.few))).toEqual(new Set([...fewValues, null]));
  });
});
