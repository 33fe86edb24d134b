/**
 * Item 2 of issue 8: keys at rest. Extractions from the simulator over loopback HTTP through the built CLI:
 * a new database keeps only masked keys and their HMACs, and no file it writes holds a whole key; a config
 * contradicting the recorded mode is refused; a `store` database is migrated by `keys protect` (its dry run
 * changes nothing) so that no whole key is left in the tables or the landing files. The first extraction and the
 * migration spawn the CLI (their wiring); the other commands run in this process, a spawn costing a CPU-second.
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '../../core/calendar.js';
import { maskPin } from '../../core/masking.js';
import { withWarehouse } from '../../core/warehouse.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { wholeKeysUnder } from '../support/key-scan.js';
import { temporaryDirectory } from '../support/ledger.js';

const timezone = 'America/Sao_Paulo';
const temp = temporaryDirectory('keys-at-rest');
const to = addDays(todayIn(timezone), -1);
const from = addDays(to, -20);
const secret = 'keys-at-rest-test-secret';
let simulator: RunningSimulator;
let keys: Map<number, string>;

beforeAll(async () => {
  simulator = await startSimulator({
    seed: 21,
    identifier: 'keys',
    secret: 'keys-secret',
    dataset: { from: addDays(from, -2), to, salesCount: 1_500, timezone, malformedEvery: 53 },
  });
  keys = new Map(
    Array.from({ length: simulator.dataset.size }, (_, i) => simulator.dataset.sale(i)).map((sale) => [
      sale.transactionId,
      sale.key!,
    ]),
  );
});
afterAll(async () => {
  await simulator?.close();
  temp.remove();
});

function writeConfig(dir: string, security?: Record<string, string>): string {
  const file = path.join(temp.dir, `${dir}-${security?.keys ?? 'default'}.config.json`);
  const api = { baseUrl: simulator.url, identifier: 'keys', secret: 'keys-secret', maxRequestsPerSecond: 50 };
  writeFileSync(
    file,
    JSON.stringify({
      timezone,
      database: path.join(dir, 'pinrecon.duckdb'),
      api,
      extract: { landingDir: path.join(dir, 'landing') },
      ...(security && { security }),
    }),
  );
  return file;
}

const extractArgs = (config: string) => ['extract', '--from', from, '--to', to, '--config', config];
const extract = (config: string) =>
  runCommand(extractArgs(config), { cwd: temp.dir, env: { PINRECON_KEY_SECRET: secret } });
/** `keys protect …`, in this process. */
const protect = (...args: string[]) =>
  runCommand(['keys', 'protect', ...args], { env: { PINRECON_KEY_SECRET: secret } });

async function storedKeys(database: string) {
  return withWarehouse(database, { readOnly: true, timezone }, (w) =>
    w.all<{ id: string; key: string | null; key_hmac: string | null }>(
      'SELECT transaction_id::VARCHAR AS id, key, key_hmac FROM sales ORDER BY transaction_id',
    ),
  );
}

/** What a rewrite of the file must keep: the schema's objects, and each table's row count. */
async function catalog(database: string) {
  return withWarehouse(database, { readOnly: true, timezone }, async (w) => {
    const objects = await w.all(
      `SELECT 'column' AS kind, table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable AS name
         FROM duckdb_columns() WHERE database_name = current_database()
       UNION ALL SELECT 'constraint', table_name || ' ' || constraint_text FROM duckdb_constraints()
         WHERE database_name = current_database()
       UNION ALL SELECT 'index', index_name || ' ' || coalesce(sql, '') FROM duckdb_indexes()
         WHERE database_name = current_database()
       UNION ALL SELECT 'view', view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
       UNION ALL SELECT 'sequence', sequence_name FROM duckdb_sequences() WHERE database_name = current_database()
       ORDER BY ALL`,
    );
    const tables = await w.all<{ table_name: string }>(
      `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY 1`,
    );
    const rows: Record<string, string> = {};
    for (const { table_name } of tables)
      rows[table_name] = (await w.one<{ n: string }>(`SELECT count(*)::VARCHAR AS n FROM "${table_name}"`))!.n;
    return { objects, rows };
  });
}

describe('keys at rest', () => {
  it('a new database keeps the last 4 and an HMAC, and no file it writes holds a whole key', async () => {
    const config = writeConfig('fresh');
    // Spawned: extract's wiring, and what a process of its own leaves on disk.
    const result = await runCli(extractArgs(config), { cwd: temp.dir, env: { PINRECON_KEY_SECRET: secret } });
    expect(result.code, result.stderr).toBe(0);
    const rows = await storedKeys(path.join(temp.dir, 'fresh', 'pinrecon.duckdb'));
    expect(rows.length).toBeGreaterThan(500);
    for (const row of rows) {
      const key = keys.get(Number(row.id))!;
      expect(row.key).toBe(maskPin(key));
      expect(row.key_hmac).toBe(createHmac('sha256', secret).update(key).digest('hex'));
    }
    const wholeKeys = new Set(keys.values());
    expect(wholeKeysUnder(path.join(temp.dir, 'fresh'), wholeKeys)).toEqual([]);

    // The database recorded its mode: a config that says otherwise is refused, naming the key and the way out.
    const contradicting = await extract(writeConfig('fresh', { keys: 'store' }));
    expect(contradicting.code).toBe(2);
    expect(contradicting.stderr).toContain('security.keys is "store", but the database');
    expect(contradicting.stderr).toContain('"hash" mode');
  });

  it(
    'keys protect moves a store database to hash: ' + 'the dry run changes nothing, the run leaves no whole key',
    async () => {
      const storeConfig = writeConfig('old', { keys: 'store' });
      expect((await extract(storeConfig)).code).toBe(0);
      const database = path.join(temp.dir, 'old', 'pinrecon.duckdb');
      const wholeKeys = new Set(keys.values());
      const before = await storedKeys(database);
      expect(before.every((row) => row.key === keys.get(Number(row.id)))).toBe(true);
      const landingLeaks = wholeKeysUnder(path.join(temp.dir, 'old', 'landing'), wholeKeys).length;
      expect(landingLeaks).toBeGreaterThan(500);

      const hashConfig = writeConfig('old');
      const dryRun = await protect('--dry-run', '--config', hashConfig);
      expect(dryRun.code, dryRun.stderr).toBe(0);
      expect(dryRun.stdout).toContain('dry run: nothing was changed');
      expect(dryRun.stdout).toMatch(
        new RegExp(`would rewrite ${before.length} keys in sales, [1-9]\\d* records in sales_quarantine`),
      );
      expect(dryRun.stdout).toMatch(/would rewrite [1-9]\d* of [1-9]\d* landing files/);
      expect(await storedKeys(database)).toEqual(before);
      expect(wholeKeysUnder(path.join(temp.dir, 'old', 'landing'), wholeKeys).length).toBe(landingLeaks);

      const catalogBefore = await catalog(database);
      // Spawned: the migration's wiring, as an operator runs it.
      const done = await runCli(['keys', 'protect', '--config', hashConfig], { env: { PINRECON_KEY_SECRET: secret } });
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toContain('store → hash');
      const after = await storedKeys(database);
      for (const row of after) {
        const key = keys.get(Number(row.id))!;
        expect(row.key).toBe(maskPin(key));
        expect(row.key_hmac).toBe(createHmac('sha256', secret).update(key).digest('hex'));
      }
      expect(wholeKeysUnder(path.join(temp.dir, 'old', 'landing'), wholeKeys)).toEqual([]);
      // Issue 34: no freed page of the database or its snapshot keeps an old key (the files' bytes are scanned); the
      // file written again holds the same tables, columns, constraints, indexes, views, sequences and rows.
      expect(wholeKeysUnder(path.join(temp.dir, 'old'), wholeKeys)).toEqual([]);
      // (keys protect's own run is the one more row of pipeline_runs)
      catalogBefore.rows.pipeline_runs = String(Number(catalogBefore.rows.pipeline_runs) + 1);
      expect(await catalog(database)).toEqual(catalogBefore);
      const quarantine = await withWarehouse(database, { readOnly: true, timezone }, (w) =>
        w.all<{ raw: string }>('SELECT raw FROM sales_quarantine'),
      );
      expect(quarantine.length).toBeGreaterThan(0);
      for (const { raw } of quarantine)
        for (const key of wholeKeys)
          if (raw.includes(key)) throw new Error(`a whole key ending ${key.slice(-4)} is still quarantined`);

      // Protected now: a later extraction (no security.keys) keeps masking, and protecting again changes nothing.
      expect((await extract(hashConfig)).code).toBe(0);
      expect(wholeKeysUnder(path.join(temp.dir, 'old', 'landing'), wholeKeys)).toEqual([]);
      const again = await protect('--config', hashConfig);
      expect(again.stdout).toContain('rewrote 0 keys in sales, 0 records in sales_quarantine');
    },
  );
});
