/**
 * A temporary table of text columns filled through DuckDB's appender: how a job hands DuckDB a long list of
 * values (ids to look up, rows to write) fast, where 100,000 statement parameters would not be.
 */
import type { Warehouse } from './warehouse.js';

/** Creates (or replaces) temp table `name` of VARCHAR `columns` holding `rows` (null: SQL NULL). */
export async function textTable(
  warehouse: Warehouse,
  name: string,
  columns: string[],
  rows: (string | null)[][],
): Promise<void> {
  await warehouse.run(`CREATE OR REPLACE TEMP TABLE ${name} (${columns.map((c) => `${c} VARCHAR`).join(', ')})`);
  const appender = await warehouse.connection.createAppender(name, 'main', 'temp');
  try {
    for (const row of rows) {
      for (const value of row) {
        if (value === null) appender.appendNull();
        else appender.appendVarchar(value);
      }
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
