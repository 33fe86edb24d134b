/**
 * Tables other tools understand (issue 31): after marts are published, each mart table and column carries its
 * description from `sql/marts/<mart>.yml` as a database comment (DBeaver, Evidence, Rill and dbt's catalog show
 * them), and a column the docs call JSON is typed JSON. Only what differs is changed, so a run that finds them in
 * place writes nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { sqlDir } from './paths.js';
import { sqlIdentifier, sqlString } from './sql.js';
import type { Warehouse } from './warehouse.js';

/** A mart's documentation: dbt's schema.yml shape, one model per file. */
export interface MartDoc {
  name: string;
  description: string;
  columns: { name: string; description: string }[];
}

/** A description that says the column holds JSON ("JSON: …", "JSON array of …"). */
const describesJson = /^JSON\b/;

/** The mart's `.yml` in `folder`, or undefined when it has none (`npm run docs:data` checks every mart has one). */
export function readMartDoc(name: string, folder: string = path.join(sqlDir(), 'marts')): MartDoc | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(folder, `${name}.yml`), 'utf8');
  } catch {
    return undefined;
  }
  const model = (parse(text) as { models?: MartDoc[] } | null)?.models?.find((m) => m.name === name);
  return model && Array.isArray(model.columns) ? model : undefined;
}

/** Comments and JSON types of the marts' persistent tables in `database` (schema main), from the docs beside them. */
export async function documentMarts(
  warehouse: Warehouse,
  database: string,
  marts: readonly { name: string; file: string }[],
): Promise<void> {
  const documented = marts.flatMap(({ name, file }) => {
    const doc = readMartDoc(name, path.dirname(file));
    return doc ? [{ mart: name, doc }] : [];
  });
  if (documented.length === 0) return;
  // The catalog read once for every mart, not twice per mart: each read of duckdb_tables()/duckdb_columns() cost
  // ~6 ms, 0.12 s of every reconcile (issue 27).
  const where = `database_name = $1 AND schema_name = 'main' AND table_name IN (${documented
    .map(({ mart }) => sqlString(mart))
    .join(', ')})`;
  const tables = new Map(
    (
      await warehouse.all<{ table_name: string; comment: string | null }>(
        `SELECT table_name, comment FROM duckdb_tables() WHERE ${where}`,
        [database],
      )
    ).map((table) => [table.table_name, table]),
  );
  const columnsOf = new Map<string, Map<string, { column_name: string; data_type: string; comment: string | null }>>();
  for (const column of await warehouse.all<{
    table_name: string;
    column_name: string;
    data_type: string;
    comment: string | null;
  }>(`SELECT table_name, column_name, data_type, comment FROM duckdb_columns() WHERE ${where}`, [database])) {
    const columns = columnsOf.get(column.table_name) ?? new Map();
    columns.set(column.column_name, column);
    columnsOf.set(column.table_name, columns);
  }
  for (const { mart, doc } of documented) {
    const current = tables.get(mart);
    if (!current) continue;
    const table = `${sqlIdentifier(database)}.main.${sqlIdentifier(mart)}`;
    const columns = columnsOf.get(mart) ?? new Map();
    // Typed first: changing a column's type drops its comment.
    for (const { name, description } of doc.columns) {
      const column = columns.get(name);
      if (column?.data_type !== 'VARCHAR' || !describesJson.test(description)) continue;
      await warehouse.run(`ALTER TABLE ${table} ALTER COLUMN ${sqlIdentifier(name)} SET DATA TYPE JSON`);
      column.comment = null;
    }
    if (current.comment !== doc.description.trim()) {
      await warehouse.run(`COMMENT ON TABLE ${table} IS ${sqlString(doc.description.trim())}`);
    }
    for (const { name, description } of doc.columns) {
      const column = columns.get(name);
      const text = String(description ?? '').trim();
      if (!column || text === '' || column.comment === text) continue;
      await warehouse.run(`COMMENT ON COLUMN ${table}.${sqlIdentifier(name)} IS ${sqlString(text)}`);
    }
  }
}
