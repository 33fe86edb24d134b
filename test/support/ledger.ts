/**
 * What the ledger, query, export and lock tests share: temp dirs, a config, captured console output, a warehouse, lock
 * holders.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ConsoleOutput } from '../../cli/output.js';
import { packageRoot } from '../../core/paths.js';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { copyOfTemplate } from './database-template.js';

export function temporaryDirectory(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), `pinrecon-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A config whose database lives in `dir`, with the given ledger settings. */
export function testConfig(dir: string, ledger: Record<string, unknown> = {}): Config {
  const config = configSchema.parse({ ledger, reports: { outDir: path.join(dir, 'reports') } });
  config.database = path.join(dir, 'pinrecon.duckdb');
  return config;
}

/** An Output whose stdout and stderr are kept in strings. */
export function capturedOutput(json = false): { output: Output; stdout(): string; stderr(): string } {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, callback) {
        append(String(chunk));
        callback();
      },
    }) as unknown as NodeJS.WriteStream;
  const output = new ConsoleOutput(
    json,
    sink((t) => (out += t)),
    sink((t) => (err += t)),
    false,
  );
  return { output, stdout: () => out, stderr: () => err };
}

/** The config's database, opened; a new one starts as a copy of the schema's template (database-template.ts). */
export async function openWarehouse(config: Config): Promise<Warehouse> {
  if (!existsSync(config.database)) await copyOfTemplate(config.database);
  return Warehouse.open(config.database, { timezone: config.timezone });
}

/**
 * Runs `work` on a warehouse of its own in a fresh temporary directory (testConfig with these ledger settings), then
 * closes the warehouse and removes the directory, whether `work` passed or threw.
 */
export async function withLedgerWarehouse(
  prefix: string,
  ledger: Record<string, unknown>,
  work: (fixture: { dir: { dir: string }; config: Config; warehouse: Warehouse }) => Promise<void>,
): Promise<void> {
  const dir = temporaryDirectory(prefix);
  try {
    const config = testConfig(dir.dir, ledger);
    const warehouse = await openWarehouse(config);
    try {
      await work({ dir, config, warehouse });
    } finally {
      warehouse.close();
    }
  } finally {
    dir.remove();
  }
}

/**
 * Runs `script` (an ES module body, in the package root) in a child process kept alive; resolves once the script has
 * run.
 */
export async function holdOpen(script: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', `${script}\nprocess.stdout.write('ready\\n'); setInterval(() => {}, 1000);`],
    {
      cwd: packageRoot(),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return child;
}

/** Starts a process that opens the database read-write (as a running job does) and keeps it open. */
export function holdWriteLock(database: string): Promise<ChildProcess> {
  return holdOpen(`
    import { DuckDBInstance } from '@duckdb/node-api';
    const instance = await DuckDBInstance.create(${JSON.stringify(database)});
    await instance.connect();`);
}
