/**
 * Item 6 of issue 8, in `run`: after its ledger import the job checks that the period has ledger orders, so
 * a file of the wrong month never turns into a report where every provider sale is missing from the ledger.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../../cli/output.js';
import { configSchema, type Config } from '../../../config/schema.js';
import { Warehouse } from '../../../core/warehouse.js';
import { MonthEndJobError, runMonthEnd } from '../../../pipelines/ops/month-end.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';
import { temporaryDirectory } from '../../support/ledger.js';

const temp = temporaryDirectory('run-ledger-check');
let simulator: RunningSimulator;
let config: Config;

beforeAll(async () => {
  simulator = await startSimulator({
    seed: 5,
    identifier: 'check',
    secret: 'check-secret',
    dataset: { from: '2026-03-01', to: '2026-04-05', salesCount: 300, timezone: 'America/Sao_Paulo' },
  });
  config = configSchema.parse({
    database: path.join(temp.dir, 'pinrecon.duckdb'),
    api: { baseUrl: simulator.url, identifier: 'check', secret: 'check-secret', maxRequestsPerSecond: 50 },
    extract: { landingDir: path.join(temp.dir, 'landing') },
    reports: { outDir: path.join(temp.dir, 'reports') },
  });
});

afterAll(async () => {
  await simulator?.close();
  temp.remove();
});

describe('run with a ledger of another month', () => {
  it('stops after the import, before reconciling, naming the period and the file', async () => {
    const ledger = path.join(temp.dir, 'february.csv');
    writeFileSync(
      ledger,
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,' +
        'order_status\nPO-1,10,2026-02-10,10.00,8.00,BRL,BR,paid\n',
    );
    const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
    try {
      const failure = await runMonthEnd(
        warehouse,
        config,
        { period: '2026-03', asOf: '2026-04-05', ledger },
        new ConsoleOutput(true),
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(MonthEndJobError);
      const error = failure as MonthEndJobError;
      expect(error.message).toContain(`No ledger order paid in 2026-03 after importing ${ledger}`);
      expect(error.progress.steps.map((s) => `${s.step}:${s.status}`)).toEqual([
        'extract:succeeded',
        'ledger import:succeeded',
        'reconcile:not run',
        'report:not run',
      ]);
      const findings = await warehouse.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM recon_exceptions`);
      expect(findings!.n).toBe(0);
    } finally {
      warehouse.close();
    }
  });
});
