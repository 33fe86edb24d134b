/**
 * Applying `sql/schema/` to a file opened for writing: every script in name order (each statement idempotent:
 * CREATE ... IF NOT EXISTS, ADD COLUMN IF NOT EXISTS), with the one-time migrations an older file needs. The scripts'
 * digest, kept in `pinrecon_settings`, tells a file the schema was applied to already: opening it then runs no DDL
 * (about 60 ms a command, every command, issue 27).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sqlDir } from './paths.js';
import type { SchemaMigration, SqlSession } from './sql-session.js';

interface SchemaScript {
  name: string;
  sql: string;
}

let scripts: SchemaScript[] | undefined;

/** `sql/schema/*.sql` in name order, read once a process. */
function schemaScripts(): SchemaScript[] {
  if (scripts) return scripts;
  const dir = path.join(sqlDir(), 'schema');
  scripts = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name), 'utf8') }));
  return scripts;
}

/**
 * What applying the schema would make of a file: the scripts (names and text) and the migrations that would run
 * with them. Equal digests, equal schema: each migration's `needed` asks about the schema alone (a column or key
 * missing), which the scripts it was applied with settled.
 */
export function schemaDigest(migrations: readonly SchemaMigration[]): string {
  const hash = createHash('sha256');
  for (const script of schemaScripts()) hash.update(`${script.name}\0${script.sql}\0`);
  for (const migration of migrations) hash.update(`migration\0${migration.name}\0`);
  return hash.digest('hex');
}

/**
 * Runs every schema script, with the one-time migrations the file needs: those that change a table before the
 * scripts run share their transaction (all or nothing).
 */
export async function applySchema(
  session: SqlSession,
  onRebuild: (message: string) => void,
  migrations: readonly SchemaMigration[],
): Promise<void> {
  const needed: SchemaMigration[] = [];
  for (const migration of migrations) if (await migration.needed(session)) needed.push(migration);
  const runScripts = async () => {
    for (const script of schemaScripts()) await session.run(script.sql);
  };
  const around = needed.filter((m) => m.before);
  for (const migration of around) if (migration.notice) onRebuild(migration.notice(session));
  if (around.length > 0) {
    await session.transaction(async () => {
      for (const migration of around) await migration.before!(session);
      await runScripts();
      for (const migration of around) await migration.after?.(session);
    });
  } else {
    await runScripts();
  }
  for (const migration of needed) if (!migration.before) await migration.after?.(session);
}
