/**
 * `pinrecon test --period P` (issue 31): the data tests alone, on the period's models built as reconcile builds
 * them, publishing and recording nothing; a broken rule (a sale stored twice) fails it with exit 1 naming the test
 * and showing the rows. Its options (`--period previous`, a bad period): test/commands/test.test.ts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { runCli } from '../support/cli.js';
import { fillFindings } from '../support/decisions.js';
import { asOf, capturingOutput, type Fixture, openFixture, period } from '../support/reconcile.js';

let f: Fixture;
let configFile: string;

beforeAll(async () => {
  f = await openFixture();
  await fillFindings(f);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  f.warehouse.close();
  configFile = path.join(f.dir, 'pinrecon.config.json');
  writeFileSync(configFile, JSON.stringify({ timezone: f.config.timezone, database: f.config.database }));
});
afterAll(() => f.cleanup());

async function counts(): Promise<{ runs: string; pipeline: string }> {
  const warehouse = await Warehouse.open(f.config.database, { readOnly: true });
  try {
    return (await warehouse.one<{ runs: string; pipeline: string }>(
      `SELECT (SELECT count(*) FROM recon_runs)::VARCHAR AS runs,
              (SELECT count(*) FROM pipeline_runs)::VARCHAR AS pipeline`,
    ))!;
  } finally {
    warehouse.close();
  }
}

describe('pinrecon test', () => {
  it('runs every data test of the period and publishes nothing', async () => {
    const before = await counts();
    const result = await runCli(['test', '--period', period, '--config', configFile, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { asOf: string; tests: { name: string; passed: boolean }[] };
    expect(summary.asOf).toBe(asOf);
    expect(summary.tests.length).toBeGreaterThanOrEqual(10);
    expect(summary.tests.every((t) => t.passed)).toBe(true);
    expect(summary.tests.map((t) => t.name)).toContain('sales_stored_once');
    expect(await counts()).toEqual(before);
    const text = await runCli(['test', '--period', period, '--config', configFile]);
    expect(text.stdout).toMatch(new RegExp(`data tests of ${period} \\(as of ${asOf}\\): \\d+ passed`));
  });

  it('fails naming the test and its rows when the data breaks a rule', async () => {
    const warehouse = await Warehouse.open(f.config.database);
    try {
      await warehouse.run(`INSERT INTO sales SELECT * FROM sales ORDER BY transaction_id LIMIT 1`);
    } finally {
      warehouse.close();
    }
    const result = await runCli(['test', '--period', period, '--config', configFile]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/data test sales_stored_once failed/);
    expect(result.stderr).toMatch(/rows_stored/);
  });
});
