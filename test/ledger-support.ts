/** What the ledger, query and export tests share: temp dirs, a config, captured console output, a warehouse. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Output } from '../cli/output.js';
import { configSchema, type Config } from '../config/schema.js';
import { Warehouse } from '../pipelines/warehouse.js';

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
  const output = new Output(json, sink((t) => (out += t)), sink((t) => (err += t)), false);
  return { output, stdout: () => out, stderr: () => err };
}

export async function openWarehouse(config: Config): Promise<Warehouse> {
  return Warehouse.open(config.database, { timezone: config.timezone });
}

/** The CLI as built by `npm run build`. */
export const cliPath = path.resolve(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
