/**
 * The read-only session analysts query through (`pinrecon query`, and `export`'s read path): which file it
 * opens (the published snapshot, else the main file read-only), the refusal of anything but one reading
 * statement, and the masking of PINs in every value it returns. The session reaches nothing but the database
 * (external access off, configuration locked). The rules: docs/ARCHITECTURE.md, "Design notes by module".
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DuckDBPreparedStatement, DuckDBResult } from '@duckdb/node-api';
import type { Config } from '../../config/schema.js';
import { JobError, UsageError } from '../../core/errors.js';
import { octalMode } from '../../core/file-modes.js';
import { zonedTimeParts } from '../../core/zoned-time.js';
import {
  hasStoredPins,
  isPinColumn,
  maskKeyFieldsSql,
  maskPin,
  maskPinValue,
  pinValuesCte,
} from '../../core/masking.js';
import { duckdb } from '../../core/duckdb.js';
import type { Output } from '../../core/output.js';
import { sqlIdentifier, sqlString } from '../../core/sql.js';
import { lockedByAnotherProcess, snapshotPath, Warehouse } from '../../core/warehouse.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';

const { DuckDBTypeId, StatementType } = duckdb;

const readingStatements = new Set([
  StatementType.SELECT,
  StatementType.EXPLAIN,
  StatementType.PRAGMA,
  StatementType.CALL,
]);

/** A query's result: its column names, and its rows in chunks with every PIN masked. */
export interface MaskedResult {
  columns: string[];
  chunks: AsyncGenerator<unknown[][]>;
}

/**
 * Opens what analysts read: the published snapshot when there is one (saying which file and how fresh,
 * on stderr unless --json), else the main file READ_ONLY (before the first job has published one); with
 * `live`, the main file on purpose. Also `export`'s read path while a job holds the database.
 */
export async function openForReading(
  config: Config,
  output: Output,
  options: { live?: boolean } = {},
): Promise<Warehouse> {
  const snapshot = snapshotPath(config.database);
  // Another account: without analysts.group the database's folder is closed to it (it would look absent).
  if (!reachable(path.dirname(path.resolve(snapshot))))
    throw notShared(snapshot, 'its folder is closed to this account');
  const hasSnapshot = existsSync(snapshot);
  if (!existsSync(config.database) && (options.live || !hasSnapshot)) {
    throw new JobError(
      `There is no database at ${config.database} yet.`,
      'Run a job first (pinrecon extract, ledger import or run), or check "database" in the config.',
    );
  }
  if (hasSnapshot && !options.live) {
    const published = statSync(snapshot).mtime;
    if (!readable(snapshot)) throw notShared(snapshot, `mode ${octalMode(statSync(snapshot).mode)}`);
    output.info(
      `reading the snapshot ${snapshot}, published ${published.toISOString()} (${age(published)} ago) ` +
        `after the last job; ${sharing(config, snapshot)}`,
    );
    const warehouse = await Warehouse.open(snapshot, warehouseSettings(config, { readOnly: true }));
    await warnOfFailedLastJob(warehouse, output);
    return warehouse;
  }
  try {
    return await Warehouse.open(config.database, warehouseSettings(config, { readOnly: true }));
  } catch (error) {
    if (!lockedByAnotherProcess(error)) throw error;
    const instead = hasSnapshot
      ? `Drop --live to read the snapshot ${snapshot}`
      : 'No snapshot has been published yet: wait for the job to finish, then query again';
    throw new JobError(`The database ${config.database} is in use by a running job.`, `${instead}.`, { cause: error });
  }
}

/**
 * The database itself (read-only, or writable to record the run), or while a job holds it the published snapshot
 * as `query` reads it: `export` and `test` never wait for a job's lock. No database yet: openForReading says so.
 */
export async function openDatabaseOrSnapshot(
  config: Config,
  output: Output,
  options: { readOnly: boolean },
): Promise<Warehouse> {
  if (!existsSync(config.database)) return openForReading(config, output);
  try {
    return await Warehouse.open(config.database, warehouseSettings(config, { ...options, lockWaitSeconds: 0 }));
  } catch (error) {
    if (!lockedByAnotherProcess(error)) throw error;
    return openForReading(config, output);
  }
}

/**
 * What `query` says before every statement on a database that keeps whole keys (`security.keys: store`, or a
 * database older than the option whose `sales.key` holds one): the masking of results is a convenience that
 * SQL can bypass (substr, ||, hex, casts, lists, structs, json_object, printf, regexp_replace...), so whoever
 * may query it can read every key. Undefined for `hash` and `drop` databases. (issue 18)
 */
export async function wholeKeysWarning(warehouse: Warehouse): Promise<string | undefined> {
  // The catch: a database made before key_protection existed.
  const mode = await warehouse.one<{ mode: string }>('SELECT mode FROM key_protection LIMIT 1').catch(() => undefined);
  if (mode && mode.mode !== 'store') return undefined;
  if (!mode && !(await holdsWholeKey(warehouse))) return undefined;
  return (
    'this database keeps whole keys (security.keys "store"): whoever can run pinrecon query or read the database ' +
    'file can read every ' +
    'PIN. The masking of query results is a convenience that SQL can bypass (substr, ||, hex, casts, lists, ' +
    'json_object...). ' +
    'Run pinrecon keys protect to keep only an HMAC and the last 4 characters.'
  );
}

/** Whether `sales.key` holds a key that is not masked (a database older than security.keys). */
async function holdsWholeKey(warehouse: Warehouse): Promise<boolean> {
  if (!(await hasStoredPins(warehouse))) return false;
  return Boolean(
    await warehouse.one(`SELECT 1 AS whole FROM sales WHERE key IS NOT NULL AND NOT starts_with(key, '****') LIMIT 1`),
  );
}

/** Issue 31: the snapshot said "published after the last job" and nothing of that job having failed. */
async function warnOfFailedLastJob(warehouse: Warehouse, output: Output): Promise<void> {
  const last = await warehouse
    .one<{ command: string; status: string; started: string }>(
      `SELECT command, status, strftime(started_at, '%Y-%m-%d %H:%M:%S %z') AS started FROM pipeline_runs
       WHERE parent_run_id IS NULL AND command <> 'export' ORDER BY started_at DESC LIMIT 1`,
    )
    .catch(() => undefined); // a database without pipeline_runs yet
  if (last && (last.status === 'failed' || last.status === 'abandoned'))
    output.warn(
      `the last job, ${last.command} started ${last.started}, ${last.status}: the snapshot holds what it saved ` +
        `(its error: pipeline_runs, the latest row)`,
    );
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether this account may pass through `folder` (a missing one is said as missing later). */
function reachable(folder: string): boolean {
  try {
    accessSync(folder, constants.X_OK);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EACCES';
  }
}

/** The snapshot is private to the account running the jobs: say how it is shared (issue 31). */
function notShared(snapshot: string, why: string): JobError {
  return new JobError(
    `The snapshot ${snapshot} is not readable by this account (${why}).`,
    `The account that runs pinrecon's jobs shares it by setting analysts.group in its config to a Unix group you ` +
      'are in; the next job writes it 0640 with that group and lets the group through its folder.',
  );
}

/** Who else may read the snapshot, and how to share it (issue 31: analysts on other Unix accounts). */
function sharing(config: Config, snapshot: string): string {
  if (config.analysts.group !== undefined) return `readable by the group ${config.analysts.group} (analysts.group)`;
  if ((statSync(snapshot).mode & 0o077) === 0)
    return 'private to this account (set analysts.group in the config to share it with a Unix group)';
  return `mode ${octalMode(statSync(snapshot).mode)}, set by hand (analysts.group sets it at every job)`;
}

/** "45 s", "12 min", "3 h 5 min", "2 days". */
function age(since: Date): string {
  const seconds = Math.max(0, Math.round((Date.now() - since.getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

/**
 * Runs one reading statement of `sql` on `warehouse` and streams its rows with every PIN masked, and every
 * TIMESTAMPTZ in the session's zone (the configured one) with its offset, as DuckDB's own console shows it
 * (issue 31: the rows said UTC while the session was in São Paulo).
 */
export async function queryMasked(warehouse: Warehouse, sql: string): Promise<MaskedResult> {
  // Read before the statement runs: another query on the connection would end its streamed result.
  const zone = (await warehouse.one<{ zone: string }>(`SELECT current_setting('TimeZone') AS zone`))?.zone ?? 'UTC';
  const { columns, pinColumns, result } = await queryForMasking(warehouse, sql);
  const zoned = columns.map((_, i) => result.columnTypeId(i) === DuckDBTypeId.TIMESTAMP_TZ);
  const chunks = async function* (): AsyncGenerator<unknown[][]> {
    for await (const chunk of result.yieldRowsJson())
      yield chunk.map((row) =>
        row.map((value, i) => (pinColumns[i] ? maskValue(value) : zoned[i] ? inZone(value, zone) : maskNested(value))),
      );
  };
  return { columns, chunks: chunks() };
}

/**
 * A TIMESTAMPTZ as DuckDB's JSON gives it ("2026-10-31 23:30:00.5+00", always UTC) in `zone`:
 * "2026-10-31 20:30:00.5-03:00". Anything else (NULL, infinity) is left as it is.
 */
export function inZone(value: unknown, zone: string): unknown {
  if (typeof value !== 'string') return value;
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)?\+00$/.exec(value);
  if (!match) return value;
  const instant = Date.parse(`${match[1]}T${match[2]}Z`);
  if (Number.isNaN(instant)) return value;
  const { local, offset } = zonedTimeParts(instant, zone, 'second');
  return `${local}${match[3] ?? ''}${offset}`;
}

/**
 * The statement's result with text values equal to a stored PIN already masked, and which columns are
 * PIN columns: the caller masks those with `maskValue` and nested values with `maskNested` (queryMasked
 * does so for JSON rows, pipelines/analysts/arrow.ts for typed Arrow columns).
 */
export async function queryForMasking(
  warehouse: Warehouse,
  sql: string,
): Promise<{ columns: string[]; pinColumns: boolean[]; result: DuckDBResult }> {
  await lockDownSession(warehouse);
  const statement = await maskingPinValues(warehouse, sql, await prepareReadOnly(warehouse, sql));
  let result;
  try {
    result = await statement.stream();
  } catch (error) {
    throw (
      externalAccessRefusal((error as Error).message) ?? new UsageError(`The query failed: ${(error as Error).message}`)
    );
  }
  const columns = result.deduplicatedColumnNames();
  return { columns, pinColumns: columns.map(isPinColumn), result };
}

/**
 * No file, glob, URL or other database from SQL: only the open database. Locked, so the statement cannot
 * turn it back on. (`export` opens its own session: it writes files by design.)
 */
async function lockDownSession(warehouse: Warehouse): Promise<void> {
  const locked = await warehouse.one<{ locked: boolean }>(`SELECT current_setting('lock_configuration') AS locked`);
  if (locked?.locked) return;
  await warehouse.run('SET enable_external_access = false');
  await warehouse.run('SET lock_configuration = true');
}

/** The statement touched a file, a glob, a URL or another database: say why that is refused. */
function externalAccessRefusal(message: string): UsageError | undefined {
  const file = /Permission Error: Cannot access (?:file|directory) "([^"]*)"/i.exec(message);
  if (!file && !/disabled (by|through) configuration|configuration has been locked/i.test(message)) return undefined;
  const what = file ? `reading or writing "${file[1]}"` : 'changing the session configuration';
  return new UsageError(
    `pinrecon query only reads: ${what} is refused (query reaches the database alone, never files, globs, URLs, ` +
      `landing files or other databases). ` +
      'Query the tables instead (e.g. sales_quarantine, landing_files); to write files of the marts, use pinrecon ' +
      'export.',
  );
}

/** Prepares the one statement of `sql`, refusing anything but a reading statement with a clear message. */
async function prepareReadOnly(warehouse: Warehouse, sql: string): Promise<DuckDBPreparedStatement> {
  const refusal = (what: string) =>
    new UsageError(
      `pinrecon query only reads: ${what} is refused (the database is opened read-only). Use SELECT, FROM, WITH, ` +
        `DESCRIBE, SHOW, SUMMARIZE or EXPLAIN.`,
    );
  let statement: DuckDBPreparedStatement;
  try {
    const statements = await warehouse.connection.extractStatements(sql);
    if (statements.count === 0) throw new UsageError('The query holds no SQL statement.');
    if (statements.count > 1)
      throw new UsageError(`pinrecon query runs one statement at a time; this query holds ${statements.count}.`);
    statement = await statements.prepare(0);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const message = (error as Error).message.replace(/^Failed to (extract statements|prepare statement): /, '');
    const external = externalAccessRefusal(message);
    if (external) throw external;
    if (/read-only|read only/i.test(message)) throw refusal('a statement that writes');
    throw new UsageError(`The query failed: ${message}`);
  }
  if (!readingStatements.has(statement.statementType)) {
    const name = StatementType[statement.statementType] ?? 'this statement';
    throw refusal(`${name.replace(/_/g, ' ')}`);
  }
  return statement;
}

/**
 * The user's statement wrapped so that every text column's values equal to a stored PIN are masked, and
 * every JSON "key" field inside a text (a quarantined record) too (`query()` runs the statement as a
 * subquery, whatever its comments or final semicolon).
 */
async function maskingPinValues(
  warehouse: Warehouse,
  sql: string,
  statement: DuckDBPreparedStatement,
): Promise<DuckDBPreparedStatement> {
  const metadataOnly =
    statement.statementType === StatementType.EXPLAIN ||
    statement.statementType === StatementType.PRAGMA ||
    /^\s*PRAGMA\b/i.test(sql);
  const textColumns = Array.from(
    { length: statement.columnCount },
    (_, i) => statement.columnTypeId(i) === DuckDBTypeId.VARCHAR,
  );
  if (metadataOnly || !textColumns.includes(true)) return statement;
  const byValue = await hasStoredPins(warehouse);
  const text = statement.statementType === StatementType.CALL ? sql.replace(/^\s*CALL\b/i, 'FROM') : sql;
  const columns = textColumns.map((isText, i) => ({ name: statement.columnName(i), isText }));
  try {
    return await warehouse.connection.prepare(pinMaskingSql(text, columns, byValue));
  } catch (error) {
    throw new UsageError(
      `pinrecon query could not check this statement's values for PINs, so it does not run it ` +
        `(${(error as Error).message.split('\n')[0]}). Write it as one SELECT (or FROM) statement.`,
    );
  }
}

/**
 * The statement `text` (of these result columns) wrapped to mask, in each text column, values equal to a stored PIN
 * (with `byValue`) and JSON "key" fields. Each value is looked up among the stored PINs once, below the masking of
 * "key" fields, which names its value three times: written in each place, every look-up was a mark join with a hash
 * table of all the stored PINs (1M sales as Arrow over whole keys: 19.7 → 9.9 s).
 */
export function pinMaskingSql(text: string, columns: { name: string; isText: boolean }[], byValue: boolean): string {
  const aliases = columns.map((_, i) => `c${i}`);
  const pinsMasked = aliases.map((alias, i) =>
    byValue && columns[i]!.isText ? `${maskPinValue(alias)} AS ${alias}` : alias,
  );
  const selectList = aliases.map(
    (alias, i) => `${columns[i]!.isText ? maskKeyFieldsSql(alias) : alias} AS ${sqlIdentifier(columns[i]!.name)}`,
  );
  const pins = byValue ? `WITH ${pinValuesCte} ` : '';
  const values = `SELECT ${pinsMasked.join(', ')} FROM query(${sqlString(text)}) AS q(${aliases.join(', ')})`;
  return `${pins}SELECT ${selectList.join(', ')} FROM (${values}) AS q`;
}

/** A PIN column's value as text: `****` and its last 4 characters. */
export function maskValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return maskPin(typeof value === 'string' ? value : JSON.stringify(value));
}

/** Structs and lists may carry a PIN field (`SELECT s FROM sales s`): mask those fields too. */
export function maskNested(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(maskNested);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isPinColumn(k) ? maskValue(v) : maskNested(v)]));
}
