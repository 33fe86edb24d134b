/**
 * The DuckDB file: opening it (never downloading extensions), applying `sql/schema/`, query helpers,
 * transactions, and publishing the read-only snapshot analysts use. One process writes a file and any open blocks
 * a writer, so a writer that finds it locked polls for up to `lockWaitSeconds` (PINRECON_LOCK_WAIT_SECONDS,
 * default 60 s) before failing.
 */
import { printable } from './text-safety.js';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { schemaMigrations } from './schema-migrations.js';
import type { Params, Row, SchemaMigration, SqlSession } from './sql-session.js';
import { isOutOfMemory, JobError } from './errors.js';
import { copyThroughTemporary, type FileAccess, letGroupThrough, privateAccess } from './file-modes.js';
import { recordSettings, settingsCurrent } from './pinrecon-settings.js';
import { applySchema, schemaDigest } from './schema-apply.js';
import { sqlString } from './sql.js';
import { allocatorOptions, duckdb, resumeAllocatorPurging } from './duckdb.js';
import {
  holdOpen,
  letGo,
  openHere,
  publishedAlready,
  rotateSnapshot,
  sparePath,
  updateSpare,
} from './snapshot-copy.js';
import {
  autoMemoryLimit,
  autoLoadLimitBytes,
  autoMemoryLimitBytes,
  autoReconcileLimitBytes,
  describeMemoryLimit,
  memorySizeText,
} from './memory-policy.js';

export type { Params, Row } from './sql-session.js';

export interface OpenOptions {
  readOnly?: boolean;
  /** Session time zone for TIMESTAMPTZ arithmetic and display (the configured `timezone`). */
  timezone?: string;
  /** Apply `sql/schema/*.sql` (default: true unless read-only). */
  applySchema?: boolean;
  /**
   * How long to wait for a lock another process holds before failing: default 0 when read-only (a reader
   * has somewhere else to go, the snapshot), else 60. Jobs pass the config's `lockWaitSeconds`.
   */
  lockWaitSeconds?: number;
  /** Told once when the open starts waiting for the lock (default: a line on stderr). */
  onLockWait?: (message: string) => void;
  /** Told before a one-time rebuild the schema needs, which may take a minute on a big file (default: stderr). */
  onRebuild?: (message: string) => void;
  /** The one-time migrations applying the schema runs (default: all of core/schema-migrations.ts). */
  migrations?: readonly SchemaMigration[];
  /**
   * DuckDB's memory_limit for this session (the config's `memoryLimit`): a size such as "512MB", or "auto" (sized
   * from the work, core/memory-policy.ts); default DuckDB's own (80 % of RAM).
   */
  memoryLimit?: string;
}

const defaultLockWaitSeconds = 60;
const lockPollMs = 500;

/** Whether an error (of DuckDB, or Warehouse.open's JobError) says another process holds the file's lock. */
export function lockedByAnotherProcess(error: unknown): boolean {
  const message =
    error instanceof JobError ? (error.cause as Error | undefined)?.message : (error as Error | undefined)?.message;
  return message !== undefined && /Could not set lock|Conflicting lock/i.test(message);
}

function lockWaitSeconds(options: OpenOptions): number {
  return options.lockWaitSeconds ?? (options.readOnly ? 0 : defaultLockWaitSeconds);
}

export class Warehouse implements SqlSession {
  /** The memoryLimit setting in force ("auto" or a size), and what "auto" last sized it to (bytes, for what work). */
  private memorySetting?: string;
  /** Settings withSetting changed, with the values to set back (after a ROLLBACK when a transaction failed). */
  private readonly settingsToRestore = new Map<string, string>();
  private autoSized = { bytes: 0, basis: '0 sales' };
  /** The file this process has open (snapshot-copy.ts openHere). */
  private readonly fileId?: string;

  private constructor(
    readonly path: string,
    readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    readonly readOnly: boolean,
  ) {
    this.fileId = holdOpen(path);
  }

  static async open(file: string, options: OpenOptions = {}): Promise<Warehouse> {
    const readOnly = options.readOnly ?? false;
    if (file !== ':memory:' && !readOnly) mkdirSync(path.dirname(file), { recursive: true });
    const wait = lockWaitSeconds(options);
    const started = Date.now();
    let told = false;
    let instance: DuckDBInstance | undefined;
    while (!instance) {
      try {
        instance = await duckdb.DuckDBInstance.create(file, {
          access_mode: readOnly ? 'READ_ONLY' : 'READ_WRITE',
          autoinstall_known_extensions: 'false',
          autoload_known_extensions: 'false',
          ...allocatorOptions,
        });
      } catch (error) {
        const message = (error as Error).message;
        if (!lockedByAnotherProcess(error)) {
          throw new JobError(
            `Cannot open the database ${file}: ${message}`,
            'Check the "database" path in the config.',
            { cause: error },
          );
        }
        const waited = (Date.now() - started) / 1000;
        if (waited >= wait) throw lockConflict(file, message, waited, error);
        if (!told) {
          told = true;
          (options.onLockWait ?? toStderr)(
            `waiting for ${file}, held by another process${holder(message)} (up to ${wait} s)`,
          );
        }
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(lockPollMs, Math.max(0, wait * 1000 - (Date.now() - started)))),
        );
      }
    }
    const connection = await instance.connect();
    const warehouse = new Warehouse(file, instance, connection, readOnly);
    if (options.timezone) await warehouse.run(`SET TimeZone = ${sqlString(options.timezone)}`);
    // "auto" starts at its floor (the schema's own work is small), then gets room for the sales the file holds.
    if (options.memoryLimit) await warehouse.useMemoryLimit(options.memoryLimit);
    if (options.applySchema ?? !readOnly) await warehouse.applySchemaOnce(options);
    await warehouse.fitMemoryToWork();
    return warehouse;
  }

  /** Applies a memoryLimit setting: a size as given, or "auto": the sales held, raised by loads and reconciles. */
  async useMemoryLimit(setting: string): Promise<void> {
    this.memorySetting = setting;
    this.autoSized = { bytes: 0, basis: '0 sales' };
    if (setting !== autoMemoryLimit) return this.setMemoryLimit(setting);
    await this.fitMemoryToWork();
  }

  /** With "auto": raises DuckDB's limit to what the sales held need (a job's start: any of them may be read). */
  async fitMemoryToWork(): Promise<void> {
    if (this.memorySetting !== autoMemoryLimit) return;
    const sales = await this.salesHeld();
    await this.raiseAutoLimit(autoMemoryLimitBytes(sales), `${sales.toLocaleString('en-US')} sales`);
  }

  /**
   * With "auto": raises DuckDB's limit to what loading a window of `records` records needs. Never lowers it within
   * a job: what a step before needed, the next is allowed too.
   */
  async fitMemoryToLoad(records: number): Promise<void> {
    if (this.memorySetting !== autoMemoryLimit) return;
    await this.raiseAutoLimit(autoLoadLimitBytes(records), `a window of ${records.toLocaleString('en-US')} records`);
  }

  /** With "auto": raises DuckDB's limit to what reconciling a scope of `rows` ledger lines and sales needs. */
  async fitMemoryToReconcile(rows: number): Promise<void> {
    if (this.memorySetting !== autoMemoryLimit) return;
    await this.raiseAutoLimit(autoReconcileLimitBytes(rows), `${rows.toLocaleString('en-US')} rows to reconcile`);
  }

  private async raiseAutoLimit(bytes: number, basis: string): Promise<void> {
    if (bytes <= this.autoSized.bytes) return;
    await this.setMemoryLimit(memorySizeText(bytes));
    this.autoSized = { bytes, basis };
  }

  /** The memoryLimit setting in force ("auto" or a size), if one was given. */
  memoryLimitSetting(): string | undefined {
    return this.memorySetting;
  }

  /** The memoryLimit in force for messages: the size given, or how "auto" sized it. */
  memoryLimitInForce(): string | undefined {
    return this.memorySetting && describeMemoryLimit(this.memorySetting, this.autoSized.bytes, this.autoSized.basis);
  }

  /**
   * Runs one step of a job, naming it in its error (and, for an out-of-memory, the memoryLimit in force): a
   * failure deep in a load says which statement, and with how much memory, it failed.
   */
  async step<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const message = (error as Error | undefined)?.message ?? String(error);
      const limit = isOutOfMemory(error) ? ` (memoryLimit ${this.memoryLimitInForce() ?? 'DuckDB default'})` : '';
      throw new Error(`${name}${limit}: ${message}`, { cause: error });
    }
  }

  /**
   * Applies `sql/schema/` (core/schema-apply.ts) unless the file says it has this schema already, and keeps the
   * zone the calendar's dates mean, the version writing and the schema's digest in the file (pinrecon_settings,
   * issue 31). Without a zone nothing is kept, so the schema is applied at every open.
   */
  private async applySchemaOnce(options: OpenOptions): Promise<void> {
    const migrations = options.migrations ?? schemaMigrations;
    const digest = schemaDigest(migrations);
    const { timezone } = options;
    const kept = !this.readOnly && timezone !== undefined && timezone !== '';
    if (kept && (await settingsCurrent(this, timezone, digest))) return;
    await applySchema(this, options.onRebuild ?? toStderr, migrations);
    // Asked just above and not current: written without asking again.
    if (kept) await recordSettings(this, timezone, digest);
  }

  /** Rows of `sales` (0 before the schema made it): DuckDB's own count, read without a scan. */
  private async salesHeld(): Promise<number> {
    const row = await this.one<{ rows: string | null }>(
      `SELECT max(estimated_size) AS rows FROM duckdb_tables()
       WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'sales'`,
    );
    return Number(row?.rows ?? 0);
  }

  /** DuckDB's current memory_limit, as it shows it (e.g. "488.2 MiB"). */
  async memoryLimit(): Promise<string> {
    return (await this.one<{ limit: string }>(`SELECT current_setting('memory_limit') AS limit`))!.limit;
  }

  /**
   * Sets DuckDB's memory_limit. To go back, set the value memoryLimit() returned before: in a job that had
   * loaded windows, `RESET memory_limit` showed the default again while the buffer pool kept refusing
   * allocations beyond the old cap (DuckDB 1.5).
   */
  async setMemoryLimit(limit: string): Promise<void> {
    await this.run(`SET memory_limit = ${sqlString(limit)}`);
  }

  /** `work` on one DuckDB thread, for a statement whose input one thread reads anyway (a gzip file): a second thread
   * only contends for the core another part of the job needs. */
  withOneThread<T>(work: () => Promise<T>): Promise<T> {
    return this.withSetting('threads', '1', work);
  }

  /**
   * Runs `work` with a DuckDB setting at `value` (inside a call for the same setting: the outer one's), then sets
   * back what it was; an aborted transaction refuses any SET: then after its ROLLBACK (transaction()).
   */
  async withSetting<T>(setting: string, value: string, work: () => Promise<T>): Promise<T> {
    if (this.settingsToRestore.has(setting)) return work();
    const { v } = (await this.one<{ v: string }>(`SELECT current_setting(${sqlString(setting)})::VARCHAR AS v`))!;
    if (v === value) return work();
    await this.run(`SET ${setting} = ${sqlString(value)}`);
    this.settingsToRestore.set(setting, v);
    try {
      return await work();
    } finally {
      await this.restoreSettings(setting).catch(() => undefined);
    }
  }

  private async restoreSettings(only?: string): Promise<void> {
    for (const [setting, value] of this.settingsToRestore) {
      if (only && setting !== only) continue;
      await this.run(`SET ${setting} = ${sqlString(value)}`);
      this.settingsToRestore.delete(setting);
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
      await this.restoreSettings().catch(() => undefined);
      throw error;
    }
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
    letGo(this.fileId);
  }
}

/** A line for whoever watches: timestamped off a terminal, like every other line (cli/output.ts, issue 31). */
function toStderr(line: string): void {
  const stamp = process.stderr.isTTY && !process.env.CI ? '' : `${new Date().toISOString()} `;
  process.stderr.write(`${stamp}${printable(line)}\n`);
}

/** " (PID 1234)" when DuckDB's message names the process holding the lock. */
function holder(message: string): string {
  const pid = /PID (\d+)/.exec(message)?.[1];
  return pid ? ` (PID ${pid})` : '';
}

/** The lock could not be had: who may hold it, and what to do about each. */
function lockConflict(file: string, message: string, waited: number, cause: unknown): JobError {
  const after = waited > 0 ? ` after waiting ${Math.round(waited)} s` : '';
  return new JobError(
    `The database ${file} is locked by another process${holder(message)}${after} (${message.split('\n')[0]}).`,
    `Either another pinrecon job is running (let it finish, or space the scheduled jobs apart), or someone has the ` +
      `main file open ` +
      `(a DuckDB client, or pinrecon query --live): analysts should open the snapshot ${snapshotPath(file)} instead, ` +
      `which pinrecon query reads by default. ` +
      `PINRECON_LOCK_WAIT_SECONDS sets how long a job waits for the lock (default ${defaultLockWaitSeconds}).`,
    { cause },
  );
}

/** Opens the warehouse, runs `work`, and always closes it. */
export async function withWarehouse<T>(
  file: string,
  options: OpenOptions,
  work: (warehouse: Warehouse) => Promise<T>,
): Promise<T> {
  const warehouse = await Warehouse.open(file, options);
  try {
    return await work(warehouse);
  } finally {
    warehouse.close();
  }
}

/** The read-only copy analysts open; replaced atomically after each job. */
export function snapshotPath(database: string): string {
  return `${database.replace(/\.duckdb$/, '')}.snapshot.duckdb`;
}

/**
 * Checkpoints the database and publishes a consistent copy beside it (copy to a temporary name, then
 * rename), so an analyst's open connection never holds the lock a scheduled job needs; unless the snapshot already
 * is this checkpoint.
 * Call it with the writer closed or from the writer after CHECKPOINT.
 */
export async function publishSnapshot(
  warehouse: Warehouse,
  access: FileAccess = privateAccess,
  options: PublishOptions = {},
): Promise<string> {
  const target = snapshotPath(warehouse.path);
  const spare = sparePath(target);
  await warehouse.run('CHECKPOINT');
  // Issue 31: written with the access analysts.group asks for, its folder passable by that group; issue 34:
  // through an exclusive temporary.
  if (access.gid !== undefined) letGroupThrough(path.dirname(path.resolve(target)), access.gid);
  if (!options.keepNoOldCopy && publishedAlready(warehouse.path, target, access)) return target;
  const small = statSync(warehouse.path).size < (options.spareFromBytes ?? spareFromBytes);
  if (options.keepNoOldCopy || small) {
    copyThroughTemporary(warehouse.path, target, access);
    rmSync(spare, { force: true });
    return target;
  }
  // Issue 33: the spare updated by its changed blocks if nobody reads it (a check that stops purging: core/duckdb.ts).
  const spareTried = existsSync(target) && !openHere(spare);
  const updated = spareTried ? await updateSpare(warehouse.path, spare, access) : undefined;
  if (spareTried) await warehouse.run(resumeAllocatorPurging);
  rotateSnapshot(target, spare, access, () =>
    updated ? renameSync(spare, target) : copyThroughTemporary(warehouse.path, target, access),
  );
  return target;
}

export interface PublishOptions {
  /** Copy the whole file, keeping no earlier snapshot as the spare (`keys protect`: it still holds removed keys). */
  keepNoOldCopy?: boolean;
  /** The size from which a spare is kept and used (default spareFromBytes). */
  spareFromBytes?: number;
}

/**
 * Below this a whole copy is cheaper than the spare: 64 MiB copy in ≈ 50 ms here, while making sure nobody reads
 * the spare (a DuckDB open) costs 20–30 ms whatever the size (a small file: 25–31 ms a publish, against 7–9 ms).
 */
export const spareFromBytes = 64 * 1024 * 1024;

export function databaseExists(file: string): boolean {
  return existsSync(file);
}
