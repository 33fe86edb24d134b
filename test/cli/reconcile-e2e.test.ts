/**
 * End to end against the simulator over real HTTP: extract the period, import the generated ledger (with
 * planted breaks of every kind), reconcile — the findings equal the plant exactly, including the orders
 * whose sale only an individual lookup by reference finds. Then the CLI on the same database: the human run
 * spawned (its wiring), --json and the bad period in this process (a spawn costs about a CPU-second).
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
import { decideMatches, listMatches } from '../../pipelines/decisions/matches.js';
import { Warehouse } from '../../core/warehouse.js';
import { generateLedger, type LedgerPlant } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { cliPath, runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
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
      nearMisses: true,
    });
    // A believable mix: every finding type is in the plant, planted or natural (reference_mismatch once the
    // planted suggested matches are confirmed, below).
    const types = new Set([...Object.keys(plant.byType), ...plant.findingsAfterConfirming.map((f) => f.findingType)]);
    expect([...types].sort()).toEqual([...findingTypeNames].sort());
    expect(plant.lookups.length).toBeGreaterThan(0);

    const imported = await importLedger(warehouse, config, plant.file, {}, output);
    expect(imported).toMatchObject({ lines: plant.lines, accepted: plant.lines, rejected: 0 });

    const summary = await reconcile(warehouse, config, { period, asOf }, output);
    const findingsNow = () =>
      warehouse.all<{ exception_type: string; partner_reference: string; transaction_id: string | null }>(
        'SELECT exception_type, partner_reference, transaction_id FROM recon_exceptions WHERE period = $1',
        [period],
      );
    const found = await findingsNow();
    const asText = (f: { exception_type: string; partner_reference: string; transaction_id: string | number | null }) =>
      `${f.exception_type} ${f.partner_reference} ${f.transaction_id ?? '-'}`;
    const expected = (findings: LedgerPlant['findingsAfterConfirming']) =>
      findings
        .map((f) =>
          asText({
            exception_type: f.findingType,
            partner_reference: f.partnerReference,
            transaction_id: f.transactionId,
          }),
        )
        .sort();
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
    // The orders no sale answers: the ghosts, and (issue 29) the misspelled orders and the decoys.
    const ghosts = plant.findings.filter((f) => f.findingType === 'missing_at_provider').length;
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

    // Issue 29: each planted misspelling is proposed at rank 1 with a score ≥ minScore, no decoy is; once they are
    // confirmed, the next reconcile's findings are exactly the plant's findings after confirming.
    const proposed = await listMatches(warehouse, { period });
    const ids = plant.suggestions.map((s) => {
      const row = proposed.find(
        (r) => r.ledger_reference === s.ledgerReference && r.transaction_id === String(s.transactionId),
      );
      expect(row, `${s.kind} ${s.ledgerReference}`).toMatchObject({ rank: 1, status: 'proposed' });
      expect(row!.score).toBeGreaterThanOrEqual(config.reconciliation.suggest.minScore);
      return row!.suggestion_id;
    });
    expect(new Set(plant.suggestions.map((s) => s.kind)).size).toBe(7);
    const decoys = [...plant.planted.decoy_matched_sale, ...plant.planted.decoy_other_product_and_date];
    expect(decoys.length).toBeGreaterThan(0);
    expect(proposed.filter((r) => decoys.includes(r.ledger_reference))).toEqual([]);
    const requests = ids.map((suggestionId) => ({ suggestionId, verb: 'confirm' as const, note: null }));
    const context = { by: 'e2e', source: 'cli', timezone: config.timezone, command: 'matches confirm' };
    expect((await decideMatches(warehouse, requests, context)).recorded).toHaveLength(ids.length);
    const confirmedRun = await reconcile(warehouse, config, { period, asOf }, output);
    expect(confirmedRun.tests.every((t) => t.passed)).toBe(true);
    expect((await findingsNow()).map(asText).sort()).toEqual(expected(plant.findingsAfterConfirming));
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
  const env = { PINRECON_API_IDENTIFIER: 'demo-partner', PINRECON_API_SECRET: 'demo-secret' };
  // Asynchronous: the simulator answering the CLI's lookups runs in this process.
  const spawned = (...args: string[]) => runCli([...args, '--config', configFile], { env });
  const cli = (...args: string[]) => runCommand([...args, '--config', configFile], { env });

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
    exceptions: plant.findingsAfterConfirming.length,
    history: { stillOpen: plant.findingsAfterConfirming.length, new: 0 },
  });
  expect(document.stages.marts).toBeGreaterThan(0);

  const human = await spawned('reconcile', '--period', period, '--as-of', asOf);
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
