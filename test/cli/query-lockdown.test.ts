/**
 * Item 3 of issue 8, in `pinrecon query` (the built CLI on a real DuckDB file): a quarantined record's PIN is
 * masked as the workbook masks it, and the session reaches nothing but the database — files, globs, the
 * landing files and EXPORT DATABASE are refused with a clear message and create nothing.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';
import { openWarehouse, temporaryDirectory, testConfig } from '../support/ledger.js';

const temp = temporaryDirectory('query-lockdown');
const config = testConfig(temp.dir);
const configFile = path.join(temp.dir, 'pinrecon.config.json');
const landingFile = path.join(temp.dir, 'landing', 'sales', '2026-01', 'paid_2026-01-01_2026-01-31_r1.json.gz');
const fullKey = 'QWER-TYUI-5678';

const query = (sql: string, ...args: string[]) => runCli(['query', sql, '--config', configFile, ...args]);

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify({ database: config.database }));
  mkdirSync(path.dirname(landingFile), { recursive: true });
  writeFileSync(landingFile, gzipSync(JSON.stringify([{ transactionId: 1, key: fullKey }])));
  const warehouse = await openWarehouse(config);
  try {
    await warehouse.run(
      `INSERT INTO sales_quarantine (landing_path, record_index, reason, raw, run_id, quarantined_at)
       VALUES ($1, 0, 'missing partnerReference', $2, 'r1', now()),
              ($1, 1, 'missing status', '{"key": "987", "n": 2}', 'r1', now())`,
      [landingFile, JSON.stringify({ transactionId: 1, key: fullKey, status: 'delivered' })],
    );
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
});
afterAll(() => temp.remove());

describe('pinrecon query', () => {
  it('masks the PIN inside a quarantined record, whatever the column is called', async () => {
    for (const sql of [
      'SELECT raw FROM sales_quarantine ORDER BY record_index',
      'SELECT upper(raw) AS anything FROM sales_quarantine ORDER BY record_index',
    ]) {
      const result = await query(sql, '--format', 'json');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.toUpperCase(), sql).not.toContain(fullKey);
      expect(result.stdout, sql).toMatch(/\\"key\\":\\"\*\*\*\*5678\\"/i);
      // A PIN of 4 characters or fewer is masked whole.
      expect(result.stdout, sql).toMatch(/\\"key\\": \\"\*\*\*\*\\"/i);
      expect(result.stdout, sql).not.toContain('987');
    }
  });

  it('refuses files, globs, landing files and EXPORT DATABASE with a clear message, creating nothing', async () => {
    const exported = path.join(temp.dir, 'exported');
    for (const [sql, named] of [
      [`SELECT * FROM read_csv('/etc/passwd')`, '/etc/passwd'],
      [`SELECT * FROM glob('/etc/*')`, '/etc/*'],
      [`SELECT json FROM read_json_objects('${landingFile}', format = 'array')`, landingFile],
      [`SELECT * FROM '${landingFile}'`, landingFile],
      [`EXPORT DATABASE '${exported}'`, exported],
    ] as const) {
      const result = await query(sql);
      expect(result.code, sql).toBe(2);
      expect(result.stderr, sql).toContain('pinrecon query only reads:');
      expect(result.stderr, sql).toContain(named);
      expect(result.stdout, sql).not.toContain('root:');
      expect(result.stdout + result.stderr, sql).not.toContain(fullKey);
    }
    expect(existsSync(exported)).toBe(false);
  });
});
