/**
 * End to end against the simulator over real HTTP: extract the period, import the generated ledger (with
 * planted breaks of every kind), reconcile — the findings equal the plant exactly, including the orders
 * whose sale only an individual lookup by reference finds. Then the CLI on the same database.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Config } from '../../config/schema.js';
import { extractSales } from '../../pipelines/extract/extract.js';
import { importLedger } from '../../pipelines/ledger/import.js';
import { findingTypeNames } from '../../core/finding-types.js';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { Warehouse } from '../../core/warehouse.js';
import { generateLedger, type LedgerPlant } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { cliPath, runCli } from '../support/cli.js';
import { capturingOutput, testConfig } from '../support/reconcile.js';

const period = '2024-03';
const asOf = '2024-04-10';
let dir: string;
let simulator: RunningSimulator;
let config: Config;
let plant: LedgerPlant;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-reconcile-e2e-'));
  simulator = await startSimulator({
    port: 0,
    seed: 3,
    dataset: { from: '2024-02-20', to: '2024-04-06', salesCount: 4_700, timezone: 'America/Sao_Paulo' },
  });
  config = testConfig(dir, {
    api: { baseUrl: simulator.url, identifier: 'demo-partner', secret: 'demo-secret', maxRequestsPerSecond: 40 },
    reconciliation: { lookupMissing: true },
  });
});

afterAll(async () => {
  await simulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('extract + generated ledger + reconcile: the findings are exactly the plant', async () => {
  const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
  try {
    const { output, text } = capturingOutput();
    await extractSales(
      warehouse,
      config,
      { from: '2024-03-01', to: '2024-03-31', by: 'both', today: '2024-06-01' },
      output,
    );
    plant = await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: path.join(dir, 'ledger.csv'),
      reconciliation: config.reconciliation,
      salesPerBreak: 150,
    });
    // A believable mix: every finding type is in the plant, planted or natural.
    expect(Object.keys(plant.byType).sort()).toEqual([...findingTypeNames].sort());
    expect(plant.lookups.length).toBeGreaterThan(0);

    const imported = await importLedger(warehouse, config, plant.file, {}, output);
    expect(imported).toMatchObject({ lines: plant.lines, accepted: plant.lines, rejected: 0 });

    const summary = await reconcile(warehouse, config, { period, asOf }, output);
    const found = await warehouse.all<{
      exception_type: string;
      partner_reference: string;
      transaction_id: string | null;
    }>('SELECT exception_type, partner_reference, transaction_id FROM recon_exceptions WHERE period = $1', [period]);
    const asText = (f: { exception_type: string; partner_reference: string; transaction_id: string | number | null }) =>
      `${f.exception_type} ${f.partner_reference} ${f.transaction_id ?? '-'}`;
    expect(found.map(asText).sort()).toEqual(
      plant.findings
        .map((f) =>
          asText({
            exception_type: f.findingType,
            partner_reference: f.partnerReference,
            transaction_id: f.transactionId,
          }),
        )
        .sort(),
    );

    // Without extract.historyStart no window proves absence (the former rule — windows around the paid date
    // — was an assumption): every order without a sale is looked up. The late orders are found (cutoff
    // differences, not missing); the ghosts are not, and their findings say proof `lookup`.
    const ghosts = plant.planted.missing_at_provider.length;
    const asked = plant.lookups.length + ghosts;
    expect(summary.lookup).toMatchObject({
      done: true,
      found: plant.lookups.length,
      provenAbsent: 0,
      references: asked,
    });
    expect(summary.proof).toEqual({ windows: 0, lookup: ghosts, unproven: 0 });
    const proofs = await warehouse.all<{ proof: string }>(
      `SELECT DISTINCT proof FROM recon_exceptions WHERE period = $1 AND exception_type = 'missing_at_provider'`,
      [period],
    );
    expect(proofs).toEqual([{ proof: 'lookup' }]);
    for (const reference of plant.lookups) {
      expect(found.filter((f) => f.partner_reference === reference).map((f) => f.exception_type)).toEqual([
        'cutoff_difference',
      ]);
    }
    expect(simulator.stats().byEndpoint.salesByPartnerReference).toBe(summary.lookup.references);
    expect(text()).toMatch(/looked up \d+ references individually/);
    expect(summary.tests.every((t) => t.passed)).toBe(true);
  } finally {
    warehouse.close();
  }
});

test('the CLI: exit 0 with counts per type and totals per currency; exit 2 on a bad period', async () => {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: the CLI test needs dist/');
  const configFile = path.join(dir, 'pinrecon.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...JSON.parse(JSON.stringify(config)),
      api: { ...config.api, identifier: undefined, secret: undefined },
    }),
  );
  // Asynchronous: the simulator answering the CLI's lookups runs in this process.
  const cli = (...args: string[]) =>
    runCli([...args, '--config', configFile], {
      env: { PINRECON_API_IDENTIFIER: 'demo-partner', PINRECON_API_SECRET: 'demo-secret' },
    });

  const json = await cli('reconcile', '--period', period, '--as-of', asOf, '--json');
  expect(json.code, json.stderr).toBe(0);
  const document = JSON.parse(json.stdout) as {
    ok: boolean;
    exceptions: number;
    history: { stillOpen: number; new: number };
    stages: Record<string, number>;
  };
  expect(document).toMatchObject({
    ok: true,
    exceptions: plant.findings.length,
    history: { stillOpen: plant.findings.length, new: 0 },
  });
  expect(document.stages.marts).toBeGreaterThan(0);

  const human = await cli('reconcile', '--period', period, '--as-of', asOf);
  expect(human.code, human.stderr).toBe(0);
  expect(human.stdout).toMatch(/missing_at_provider\s+\d+/);
  expect(human.stdout).toMatch(/missing at provider: 0 proven by windows, [1-9]\d* by lookup, 0 unproven/);
  expect(human.stdout).toMatch(/BRL\s+\d+\s+[\d.]+/);
  const warehouse = await Warehouse.open(config.database, { readOnly: true });
  try {
    const keys = (await warehouse.all<{ key: string }>('SELECT key FROM sales')).map((r) => r.key);
    for (const key of keys) expect(human.stdout + human.stderr + json.stdout).not.toContain(key);
  } finally {
    warehouse.close();
  }

  const bad = await cli('reconcile', '--period', '2024-3');
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--period must be a month written YYYY-MM/);
});
