/**
 * Item 7 of issue 8: `pinrecon extract --from-landing` rebuilds the extracted tables from the archived
 * responses alone. Two real extractions (the second re-fetches the recent windows) from the simulator over
 * loopback HTTP; then the database is deleted, the simulator stopped, and the rebuild must give every table
 * of the extraction back exactly, row for row and column for column.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '../../core/calendar.js';
import { snapshotPath, withWarehouse, type Warehouse } from '../../core/warehouse.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { runCli } from '../support/cli.js';
import { temporaryDirectory } from '../support/ledger.js';

const timezone = 'America/Sao_Paulo';
const temp = temporaryDirectory('from-landing');
const database = path.join(temp.dir, 'pinrecon.duckdb');
const to = addDays(todayIn(timezone), -1);
const from = addDays(to, -40);
let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({
    seed: 9,
    identifier: 'landing-test',
    secret: 'landing-test-secret',
    dataset: { from: addDays(from, -3), to, salesCount: 2_500, timezone, malformedEvery: 97 },
  });
});
afterAll(async () => {
  await simulator?.close();
  temp.remove();
});

/** Every table an extraction writes, whole, in a stable order (times as exact text). */
async function extractedTables(warehouse: Warehouse): Promise<Record<string, unknown[]>> {
  const tables: Record<string, string> = {
    sales: 'transaction_id',
    sales_status_history: 'transaction_id, observed_at, run_id',
    sales_quarantine: 'landing_path, record_index',
    landing_files: 'path',
    extract_windows: 'window_start, window_end, by_flag',
  };
  const state: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(tables)) {
    const columns = await warehouse.all<{ name: string; type: string }>(
      `SELECT column_name AS name, data_type AS type FROM duckdb_columns() WHERE table_name = $1 AND schema_name = ` +
        `'main' ORDER BY column_index`,
      [table],
    );
    const select = columns.map((c) =>
      c.type.startsWith('TIMESTAMP')
        ? `strftime(${c.name} AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%f') AS ${c.name}`
        : c.name,
    );
    state[table] = await warehouse.all(`SELECT ${select.join(', ')} FROM ${table} ORDER BY ${order}`);
  }
  return state;
}

describe('pinrecon extract --from-landing', () => {
  it('rebuilds every extracted table exactly from the landing files, with the API gone', async () => {
    const config = path.join(temp.dir, 'pinrecon.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        timezone,
        database,
        api: {
          baseUrl: simulator.url,
          identifier: 'landing-test',
          secret: 'landing-test-secret',
          maxRequestsPerSecond: 50,
        },
        extract: { landingDir: 'landing' },
      }),
    );
    for (let run = 0; run < 2; run++) {
      const extracted = await runCli(['extract', '--from', from, '--to', to, '--config', config]);
      expect(extracted.code, extracted.stderr).toBe(0);
    }
    const original = await withWarehouse(database, { readOnly: true, timezone }, extractedTables);
    expect(original.sales!.length).toBeGreaterThan(1000);
    expect(original.sales_quarantine!.length).toBeGreaterThan(0);
    // The second run re-fetched every window: two responses per window and flag.
    expect(original.landing_files!.length).toBe(2 * original.extract_windows!.length);

    await simulator.close();
    for (const file of [database, `${database}.wal`, snapshotPath(database)]) rmSync(file, { force: true });
    const rebuilt = await runCli(['extract', '--from-landing', '--config', config]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain(
      `${original.landing_files!.length} of ${original.landing_files!.length} landed responses loaded`,
    );
    expect(rebuilt.stderr).not.toContain('warning');

    const again = await withWarehouse(database, { readOnly: true, timezone }, extractedTables);
    for (const table of Object.keys(original)) expect(again[table], table).toEqual(original[table]);

    // Nothing left to load: a second rebuild changes nothing.
    const twice = await runCli(['extract', '--from-landing', '--config', config]);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stdout).toContain('0 of');
    expect(await withWarehouse(database, { readOnly: true, timezone }, extractedTables)).toEqual(original);
  });
});
