/**
 * Tables other tools understand (issue 31): after marts are published, each mart table and column carries its
 * description from `sql/marts/<mart>.yml` as a database comment (DBeaver, Evidence, Rill and dbt's catalog show
 * them), and a column the docs call JSON is typed JSON. Only what differs is changed, so a run that finds them in
 * place writes nothing; and a warehouse that put them in place does not look again (nothing else of ours alters a
 * mart's table while it is open).
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

/**
 * What each open warehouse (each connection) has documented: database and marts. Issue 27: reading the catalog cost
 * ~15 ms of every reconcile, the tests run hundreds, and once a warehouse has put the comments in place only it could
 * change them (the schema's files run when it opens, and no job alters a mart).
 */
const inPlace = new WeakMap<Warehouse, Set<string>>();

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
  const key = JSON.stringify([database, documented]);
  if (inPlace.get(warehouse)?.has(key)) return;
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
  // Written in one transaction, in one call: each COMMENT committed alone cost ~0.5 ms, ~190 of them at a database's
  // first reconcile, which every test's fresh database has (issue 27).
  const writes: string[] = [];
  let missing = false;
  for (const { mart, doc } of documented) {
    const current = tables.get(mart);
    if (!current) {
      missing = true;
      continue;
    }
    const table = `${sqlIdentifier(database)}.main.${sqlIdentifier(mart)}`;
    const columns = columnsOf.get(mart) ?? new Map();
    // Typed first: changing a column's type drops its comment.
    for (const { name, description } of doc.columns) {
      const column = columns.get(name);
      if (column?.data_type !== 'VARCHAR' || !describesJson.test(description)) continue;
      writes.push(`ALTER TABLE ${table} ALTER COLUMN ${sqlIdentifier(name)} SET DATA TYPE JSON`);
      column.comment = null;
    }
    if (current.comment !== doc.description.trim()) {
      writes.push(`COMMENT ON TABLE ${table} IS ${sqlString(doc.description.trim())}`);
    }
    for (const { name, description } of doc.columns) {
      const column = columns.get(name);
      const text = String(description ?? '').trim();
      if (!column || text === '' || column.comment === text) continue;
      writes.push(`COMMENT ON COLUMN ${table}.${sqlIdentifier(name)} IS ${sqlString(text)}`);
    }
  }
  if (writes.length > 0) await warehouse.transaction(() => warehouse.run(writes.join(';\n')));
  // A mart without its table yet is documented when it has one: looked for again next time.
  if (!missing) inPlace.set(warehouse, (inPlace.get(warehouse) ?? new Set()).add(key));
}
