/**
 * The look-up rule (issue 9, "Individual lookups"): a paid ledger order without a provider sale is looked
 * up individually only when its sale could lie outside every completed extract window. On a small month
 * whose extraction stops one day after the period (as of that day), the rule must give exactly the findings
 * of looking every such order up — and the plant's — with far fewer look-ups.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../cli/output.js';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { extractSales } from '../../pipelines/extract/extract.js';
import { importLedger } from '../../pipelines/ledger-import.js';
import { reconcile, type ReconcileSummary } from '../../pipelines/reconcile.js';
import { monthEndExtractRange } from '../../pipelines/month-end.js';
import { PartnerApiClient } from '../../sources/partner-api/client.js';
import { generateLedger, type LedgerPlant } from '../../sources/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../sources/simulator/server.js';

const period = '2026-03';
/** One day after the period: the late orders' sales (created on April 1–2) are partly outside the extract. */
const asOf = '2026-04-01';
const quiet = new ConsoleOutput(true);

describe('individual look-ups only where the windows do not prove absence', () => {
  let simulator: RunningSimulator;
  let plant: LedgerPlant;
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-lookup-coverage-'));

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 23,
      identifier: 'coverage',
      secret: 'coverage-secret',
      dataset: { from: '2026-02-20', to: '2026-04-05', salesCount: 4_000, timezone: 'America/Sao_Paulo' },
    });
    plant = await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: path.join(dir, 'ledger.csv'),
      reconciliation: configFor('probe').reconciliation,
      seed: 5,
      salesPerBreak: 60,
    });
  });

  afterAll(async () => {
    await simulator?.close();
  });

  function configFor(name: string): Config {
    return configSchema.parse({
      database: path.join(dir, `${name}.duckdb`),
      api: { baseUrl: simulator?.url ?? 'http://127.0.0.1:1', identifier: 'coverage', secret: 'coverage-secret', maxRequestsPerSecond: 40 },
      extract: { landingDir: path.join(dir, `landing-${name}`) },
    });
  }

  /** The month-end's extract, ledger import and reconcile, looking up by `lookupScope`. */
  async function monthEnd(name: string, lookupScope: 'uncovered' | 'all') {
    const config = configFor(name);
    const client = new PartnerApiClient(config.api);
    const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
    try {
      const range = monthEndExtractRange(period, asOf, config.extract.lookbackDays);
      await extractSales(warehouse, config, { ...range, by: 'both', client, today: asOf }, quiet);
      await importLedger(warehouse, config, plant.file, {}, quiet);
      const before = client.stats.requests;
      const summary: ReconcileSummary = await reconcile(warehouse, config, { period, asOf, client, lookupScope }, quiet);
      const findings = await warehouse.all<{ t: string; r: string; id: string | null }>(
        `select exception_type as t, trim(partner_reference) as r, transaction_id::VARCHAR as id from recon_exceptions where period = $1 order by all`,
        [period],
      );
      return { summary, findings, lookupRequests: client.stats.requests - before };
    } finally {
      warehouse.close();
      client.close();
    }
  }

  it('finds the same as looking all up, and the plant, with a fraction of the look-ups', async () => {
    const byRule = await monthEnd('rule', 'uncovered');
    const all = await monthEnd('all', 'all');
    expect(byRule.findings).toEqual(all.findings);

    const expected = plant.findings.map((f) => `${f.exceptionType} ${f.partnerReference}`).sort();
    expect(byRule.findings.map((f) => `${f.t} ${f.r}`).sort()).toEqual(expected);

    const lookedUp = byRule.summary.lookup.references ?? 0;
    const wouldBeMissing = all.summary.lookup.references ?? 0;
    // The late orders whose sale was created after the extract's end are among the look-ups and found.
    expect(byRule.summary.lookup.found).toBe(all.summary.lookup.found);
    expect(byRule.summary.lookup.found).toBeGreaterThan(0);
    // Orders paid before the period's last days are proven absent by the windows.
    expect(byRule.summary.lookup.provenAbsent).toBe(wouldBeMissing - lookedUp);
    expect(lookedUp).toBeLessThan(wouldBeMissing / 2);
    // An unknown reference costs one request (plus a canary now and then), not three.
    expect(all.lookupRequests).toBeLessThan(wouldBeMissing * 1.2 + 5);
  }, 120_000);
});
