/**
 * Issue 31 item 5: `query` prints times in the configured zone (it set the session's zone but printed UTC), and the
 * database says which zone its calendar means and which pinrecon wrote it (`pinrecon_settings`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../core/paths.js';
import { publishSnapshot, Warehouse } from '../../core/warehouse.js';
import { inZone } from '../../pipelines/analysts/query.js';
import { runCli } from '../support/cli.js';
import { temporaryDirectory } from '../support/ledger.js';

const temp = temporaryDirectory('query-zone');
const configFile = path.join(temp.dir, 'pinrecon.config.json');
const version = (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
  .version;

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify({ database: 'pinrecon.duckdb', timezone: 'America/Sao_Paulo' }));
  const warehouse = await Warehouse.open(path.join(temp.dir, 'pinrecon.duckdb'), { timezone: 'America/Sao_Paulo' });
  try {
    // 23:30 UTC on 31 October is 20:30 in São Paulo: still October there.
    await warehouse.run(`INSERT INTO sales (transaction_id, partner_reference, product_id, sales_price,
        partner_cost_price, status, transaction_at, key_sent_to_customer, first_seen_at, last_seen_at)
      VALUES (1, 'R-1', 10, 1, 1, 'delivered', '2026-10-31 23:30:00.25+00', true, now(), now())`);
    await publishSnapshot(warehouse);
  } finally {
    warehouse.close();
  }
});
afterAll(() => temp.remove());

describe('query times', () => {
  it('prints TIMESTAMPTZ values in the configured zone, with their offset, in every text format', async () => {
    const sql = 'SELECT transaction_at FROM sales';
    const csv = await runCli(['query', sql, '--format', 'csv', '--config', configFile], { cwd: temp.dir });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('transaction_at\n2026-10-31 20:30:00.25-03:00\n');
    const json = await runCli(['query', sql, '--json', '--config', configFile], { cwd: temp.dir });
    expect(JSON.parse(json.stdout)).toEqual([{ transaction_at: '2026-10-31 20:30:00.25-03:00' }]);
  });

  it('keeps the zone and the version in pinrecon_settings', async () => {
    const result = await runCli(
      ['query', 'SELECT timezone, version FROM pinrecon_settings', '--json', '--config', configFile],
      { cwd: temp.dir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ timezone: 'America/Sao_Paulo', version: version }]);
  });

  it('converts only UTC timestamps as DuckDB gives them, leaving other values alone', () => {
    expect(inZone('2026-01-01 02:00:00+00', 'America/Sao_Paulo')).toBe('2025-12-31 23:00:00-03:00');
    expect(inZone('2026-07-01 12:00:00.123456+00', 'Europe/Lisbon')).toBe('2026-07-01 13:00:00.123456+01:00');
    expect(inZone('infinity', 'UTC')).toBe('infinity');
    expect(inZone(null, 'UTC')).toBeNull();
  });
});
