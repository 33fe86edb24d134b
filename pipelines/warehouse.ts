/**
 * The DuckDB file: opening it (never downloading extensions), applying the schema in `sql/schema/`,
 * small query helpers, transactions, and publishing the read-only snapshot analysts use.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { JobError } from '../config/errors.js';
import { sqlDir } from '../config/paths.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
/** Rows as JSON-safe values: DECIMAL and BIGINT arrive as exact strings, timestamps as ISO-like text. */
export type Row = Record<string, unknown>;

export interface OpenOptions {
  readOnly?: boolean;
  /** Session time zone for TIMESTAMPTZ arithmetic and display (the configured `timezone`). */
  timezone?: string;
  /** Apply `sql/schema/*.sql` (default: true unless read-only). */
  applySchema?: boolean;
}

export class Warehouse {
  private constructor(
    readonly path: string,
    readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    readonly readOnly: boolean,
  ) {}

  static async open(file: string, options: OpenOptions = {}): Promise<Warehouse> {
    const readOnly = options.readOnly ?? false;
    if (file !== ':memory:' && !readOnly) mkdirSync(path.dirname(file), { recursive: true });
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(file, {
        access_mode: readOnly ? 'READ_ONLY' : 'READ_WRITE',
        autoinstall_known_extensions: 'false',
        autoload_known_extensions: 'false',
      });
    } catch (error) {
      const message = (error as Error).message;
      if (/lock/i.test(message)) {
        throw new JobError(
          `The database ${file} is in use by another pinrecon process (${message.split('\n')[0]}).`,
          'Wait for the running job to finish; analysts can query the snapshot (pinrecon query uses it automatically).',
          { cause: error },
        );
      }
      throw new JobError(`Cannot open the database ${file}: ${message}`, 'Check the "database" path in the config.', { cause: error });
    }
    const connection = await instance.connect();
    const warehouse = new Warehouse(file, instance, connection, readOnly);
    if (options.timezone) await warehouse.run(`SET TimeZone = '${options.timezone.replace(/'/g, "''")}'`);
    if (options.applySchema ?? !readOnly) await warehouse.applySchema();
    return warehouse;
  }

  /** Runs every `sql/schema/*.sql` in name order; each statement is idempotent (CREATE ... IF NOT EXISTS). */
  async applySchema(): Promise<void> {
    const dir = path.join(sqlDir(), 'schema');
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
      await this.run(readFileSync(path.join(dir, name), 'utf8'));
    }
  }

  async run(sql: string, params?: Params): Promise<void> {
    await this.connection.run(sql, params);
  }

  async all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJson() as T[];
  }

  async one<T extends Row = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Runs `work` inside BEGIN/COMMIT; rolls back and rethrows on any error. Not re-entrant. */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.run('BEGIN TRANSACTION');
    try {
      const result = await work();
      await this.run('COMMIT');
      return result;
    } catch (error) {
      await this.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/** Opens the warehouse, runs `work`, and always closes it. */
export async function withWarehouse<T>(file: string, options: OpenOptions, work: (warehouse: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await Warehouse.open(file, options);
  try {
    return await work(warehouse);
  } finally {
    warehouse.close();
  }
}

/** The read-only copy analysts open; replaced atomically after each job. */
export function snapshotPath(database: string): string {
  return database.replace(/\.duckdb$/, '') + '.snapshot.duckdb';
}

/**
 * Checkpoints the database and publishes a consistent copy beside it (copy to a temporary name, then
 * rename), so an analyst's open connection never holds the lock a scheduled job needs.
 * Call it with the writer closed or from the writer after CHECKPOINT.
 */
export async function publishSnapshot(warehouse: Warehouse): Promise<string> {
  const target = snapshotPath(warehouse.path);
  await warehouse.run('CHECKPOINT');
  const temporary = `${target}.tmp-${process.pid}`;
  rmSync(temporary, { force: true });
  copyFileSync(warehouse.path, temporary);
  renameSync(temporary, target);
  return target;
}

export function databaseExists(file: string): boolean {
  return existsSync(file);
}

/** Quotes a SQL string literal (for paths and identifiers DuckDB functions take as text). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
