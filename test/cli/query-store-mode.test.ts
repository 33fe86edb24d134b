/**
 * Issue 18 item 6: masking in `query` is a convenience SQL can bypass (substr, ||, hex, casts...). On a
 * database that keeps whole keys (`security.keys: store`, or one older than the option), every `query` start
 * says so on stderr, --json or not; on a `hash` database it says nothing. Through the built CLI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../core/warehouse.js';
import { recordKeyMode } from '../../pipelines/extract/key-mode.js';
import { runCli } from '../support/cli.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';
import { insertSales, sale } from '../support/reconcile.js';

const temp = temporaryDirectory('query-store-mode');
afterAll(() => temp.remove());

/** A database holding one sale with `key`, in `mode` (undefined: no mode recorded, as before security.keys). */
async function databaseWith(name: string, key: string, mode: 'store' | 'hash' | undefined): Promise<string> {
  mkdirSync(path.join(temp.dir, name));
  const config = testConfig(path.join(temp.dir, name));
  const configFile = path.join(temp.dir, name, 'pinrecon.config.json');
  writeFileSync(configFile, JSON.stringify({ database: config.database }));
  const warehouse = await openWarehouse(config);
  try {
    await warehouse.run('DELETE FROM key_protection');
    if (mode) await recordKeyMode(warehouse, mode, mode === 'hash' ? Buffer.alloc(32, 7) : undefined);
    await insertSales(warehouse, [sale({ key })]);
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
  return configFile;
}

const warning =
  /warning: this database keeps whole keys \(security\.keys "store"\).*SQL can bypass.*pinrecon keys protect/;

describe('query on a database that keeps whole keys', () => {
  it('says at every start that whole keys can be read (the bypass it warns of is real)', async () => {
    const configFile = await databaseWith('store', 'WHOLE-KEY-AAAA-1234', 'store');
    const bypass = await runCli([
      'query',
      "SELECT substr(key, 1, 9) || '|' || substr(key, 10) AS k FROM sales",
      '--config',
      configFile,
      '--format',
      'csv',
    ]);
    expect(bypass.code, bypass.stderr).toBe(0);
    expect(bypass.stdout).toContain('WHOLE-KEY|-AAAA-1234');
    expect(bypass.stderr).toMatch(warning);
    const json = await runCli(['query', 'SELECT count(*) AS n FROM sales', '--config', configFile, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toMatch(warning);
  });

  it('says it for a database older than security.keys whose keys are whole, and not for a hash database', async () => {
    const older = await databaseWith('older', 'OLDER-KEY-BBBB-5678', undefined);
    expect((await runCli(['query', 'SELECT 1 AS one', '--config', older])).stderr).toMatch(warning);
    const hashed = await databaseWith('hash', '****5678', 'hash');
    const quiet = await runCli(['query', 'SELECT 1 AS one', '--config', hashed]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/whole keys/);
  });
});
