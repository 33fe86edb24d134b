/**
 * `pinrecon query "SQL" [--format table|csv|json] [--live]`: ad hoc, read-only SQL against the database.
 * It reads the snapshot published after each job (said on stderr, with its age), because any open of the
 * main file, even read-only, holds a lock that would block a scheduled job. The main file is opened
 * READ_ONLY only before any snapshot exists, or on purpose with --live. Only reading statements run (SELECT, FROM…, WITH, DESCRIBE, SHOW, SUMMARIZE,
 * EXPLAIN, PRAGMA, CALL): anything else is refused before DuckDB's read-only mode would refuse it.
 * Nothing is masked except PINs: a column named `key`, or with "pin" in its name, shows its last 4
 * characters (also inside structs); so does any text value equal to a PIN stored in `sales.key`
 * (ignoring case and surrounding spaces), whatever the query calls it (`key || ''`, `lower(key)`): the
 * query runs wrapped in one that masks such values. CALL f(...) is read as FROM f(...) to be wrapped;
 * PRAGMA and EXPLAIN return metadata and plans, not values, and run as written.
 */
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { DuckDBTypeId, StatementType, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { JobError, UsageError } from '../../config/errors.js';
import type { Config } from '../../config/schema.js';
import { hasStoredPins, isPinColumn, maskPin, maskPinValue, pinValuesCte } from '../../pipelines/export.js';
import { lockedByAnotherProcess, snapshotPath, sqlString, Warehouse } from '../../pipelines/warehouse.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { formatTable, type Output } from '../output.js';

interface QueryOptions extends GlobalOptions {
  format: string;
  maxRows: string;
  live?: boolean;
}

const formats = ['table', 'csv', 'json'] as const;
const readingStatements = new Set([StatementType.SELECT, StatementType.EXPLAIN, StatementType.PRAGMA, StatementType.CALL]);

export function registerQuery(program: Command): void {
  withGlobalOptions(
    program
      .command('query <sql>')
      .description('ad hoc, read-only SQL against the snapshot published after each job (the main file with --live); PINs show their last 4 characters')
      .option('--format <format>', `output: ${formats.join(', ')} (--json means json)`, 'table')
      .option('--max-rows <n>', 'rows shown in table format (csv and json stream every row)', '1000')
      .option('--live', 'read the main database file itself (newer than the snapshot while a job runs, but it blocks jobs while open)'),
  ).action(
    action<QueryOptions, [string]>(async ({ config, output }, options, sql) => {
      const format = options.json ? 'json' : options.format;
      if (!(formats as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${formats.join(', ')}, got "${format}".`);
      const maxRows = Number(options.maxRows);
      if (!Number.isInteger(maxRows) || maxRows <= 0) throw new UsageError(`--max-rows must be a positive whole number, got "${options.maxRows}".`);
      const warehouse = await openForReading(config, output, { live: options.live });
      try {
        const statement = await maskingPinValues(warehouse, sql, await prepareReadOnly(warehouse, sql));
        await printResult(statement, format as (typeof formats)[number], maxRows, output);
      } finally {
        warehouse.close();
      }
    }),
  );
}

/**
 * Opens what analysts read: the published snapshot when there is one (saying which file and how fresh,
 * on stderr unless --json), else the main file READ_ONLY (before the first job has published one); with
 * `live`, the main file on purpose. Also `export`'s read path while a job holds the database.
 */
export async function openForReading(config: Config, output: Output, options: { live?: boolean } = {}): Promise<Warehouse> {
  const snapshot = snapshotPath(config.database);
  const hasSnapshot = existsSync(snapshot);
  if (!existsSync(config.database) && (options.live || !hasSnapshot)) {
    throw new JobError(`There is no database at ${config.database} yet.`, 'Run a job first (pinrecon extract, ledger import or run), or check "database" in the config.');
  }
  if (hasSnapshot && !options.live) {
    const published = statSync(snapshot).mtime;
    output.info(`reading the snapshot ${snapshot}, published ${published.toISOString()} (${age(published)} ago) after the last job`);
    return Warehouse.open(snapshot, { readOnly: true, timezone: config.timezone });
  }
  try {
    return await Warehouse.open(config.database, { readOnly: true, timezone: config.timezone });
  } catch (error) {
    if (!lockedByAnotherProcess(error)) throw error;
    const instead = hasSnapshot ? `Drop --live to read the snapshot ${snapshot}` : 'No snapshot has been published yet: wait for the job to finish, then query again';
    throw new JobError(`The database ${config.database} is in use by a running job.`, `${instead}.`, { cause: error });
  }
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

/** Prepares the one statement of `sql`, refusing anything but a reading statement with a clear message. */
async function prepareReadOnly(warehouse: Warehouse, sql: string): Promise<DuckDBPreparedStatement> {
  const refusal = (what: string) =>
    new UsageError(`pinrecon query only reads: ${what} is refused (the database is opened read-only). Use SELECT, FROM, WITH, DESCRIBE, SHOW, SUMMARIZE or EXPLAIN.`);
  let statement: DuckDBPreparedStatement;
  try {
    const statements = await warehouse.connection.extractStatements(sql);
    if (statements.count === 0) throw new UsageError('The query holds no SQL statement.');
    if (statements.count > 1) throw new UsageError(`pinrecon query runs one statement at a time; this query holds ${statements.count}.`);
    statement = await statements.prepare(0);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const message = (error as Error).message.replace(/^Failed to (extract statements|prepare statement): /, '');
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
 * The user's statement wrapped so that every text column's values equal to a stored PIN are masked
 * (`query()` runs the statement as a subquery, whatever its comments or final semicolon).
 */
async function maskingPinValues(warehouse: Warehouse, sql: string, statement: DuckDBPreparedStatement): Promise<DuckDBPreparedStatement> {
  const metadataOnly = statement.statementType === StatementType.EXPLAIN || statement.statementType === StatementType.PRAGMA || /^\s*PRAGMA\b/i.test(sql);
  if (metadataOnly || !(await hasStoredPins(warehouse))) return statement;
  const text = statement.statementType === StatementType.CALL ? sql.replace(/^\s*CALL\b/i, 'FROM') : sql;
  const aliases = Array.from({ length: statement.columnCount }, (_, i) => `c${i}`);
  const selectList = aliases.map((alias, i) => {
    const name = `"${statement.columnName(i).replace(/"/g, '""')}"`;
    return statement.columnTypeId(i) === DuckDBTypeId.VARCHAR ? `${maskPinValue(alias)} AS ${name}` : `${alias} AS ${name}`;
  });
  try {
    return await warehouse.connection.prepare(`WITH ${pinValuesCte} SELECT ${selectList.join(', ')} FROM query(${sqlString(text)}) AS q(${aliases.join(', ')})`);
  } catch (error) {
    throw new UsageError(
      `pinrecon query could not check this statement's values for PINs, so it does not run it (${(error as Error).message.split('\n')[0]}). Write it as one SELECT (or FROM) statement.`,
    );
  }
}

async function printResult(statement: DuckDBPreparedStatement, format: (typeof formats)[number], maxRows: number, output: Output): Promise<void> {
  let result;
  try {
    result = await statement.stream();
  } catch (error) {
    throw new UsageError(`The query failed: ${(error as Error).message}`);
  }
  const columns = result.deduplicatedColumnNames();
  const masked = columns.map(isPinColumn);
  const rows = async function* (): AsyncGenerator<unknown[][]> {
    for await (const chunk of result.yieldRowsJson()) yield chunk.map((row) => row.map((value, i) => (masked[i] ? maskValue(value) : maskNested(value))));
  };
  if (format === 'table') {
    const shown: Record<string, unknown>[] = [];
    let more = false;
    for await (const chunk of rows()) {
      for (const row of chunk) {
        if (shown.length >= maxRows) {
          more = true;
          break;
        }
        shown.push(Object.fromEntries(columns.map((c, i) => [c, row[i]])));
      }
      if (more) break;
    }
    await write(shown.length === 0 ? `${columns.join('  ')}\n(no rows)\n` : `${formatTable(shown, columns)}\n`);
    if (more) output.warn(`showing the first ${maxRows} rows: use --max-rows, or --format csv or json for every row`);
    return;
  }
  if (format === 'csv') {
    await write(`${columns.map(csvField).join(',')}\n`);
    for await (const chunk of rows()) await write(chunk.map((row) => `${row.map(csvField).join(',')}\n`).join(''));
    return;
  }
  let first = true;
  await write('[');
  for await (const chunk of rows()) {
    const text = chunk.map((row) => JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, row[i]])))).join(',\n');
    if (text) await write(`${first ? '\n' : ',\n'}${text}`);
    first = false;
  }
  await write(first ? ']\n' : '\n]\n');
}

function maskValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return maskPin(typeof value === 'string' ? value : JSON.stringify(value));
}

/** Structs and lists may carry a PIN field (`SELECT s FROM sales s`): mask those fields too. */
function maskNested(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(maskNested);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isPinColumn(k) ? maskValue(v) : maskNested(v)]));
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Writes to stdout, waiting when the pipe is full (a million rows into `head` or a file). */
async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
}
