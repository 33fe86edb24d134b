/**
 * Proof of absence (README; issue 14 item 1) on a month served by the simulator over HTTP: a ledger
 * order whose provider sale was created two months before the ledger's paid date is a cutoff_difference —
 * found by an individual look-up without extract.historyStart, by the back-filled by-creation windows with it
 * (0 look-ups) — and an order the provider never saw is missing_at_provider with the proof that holds:
 * `lookup`, `windows`, or `unproven` when look-ups are off.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../../cli/output.js';
import { configSchema, type Config } from '../../../config/schema.js';
import { Warehouse } from '../../../core/warehouse.js';
import { runMonthEnd, type RunSummary } from '../../../pipelines/ops/month-end.js';
import { importLedger } from '../../../pipelines/ledger/import.js';
import { planModels, readersOf } from '../../../core/model-runner.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import { capturingOutput } from '../../support/reconcile.js';
import { loadReportFacts } from '../../../reports/report-facts.js';
import { loadSignoffFacts } from '../../../pipelines/close/signoffs.js';
import { generateLedger, type LedgerPlant } from '../../../doubles/simulator/ledger-generator.js';
import type { SimulatedSale } from '../../../doubles/simulator/sale-generator.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';
import { ZonedClock } from '../../../core/zoned-time.js';

const period = '2026-03';
const asOf = '2026-04-05';
const timezone = 'America/Sao_Paulo';
const quiet = new ConsoleOutput(true);

describe('a missing_at_provider finding is proven, or says it is not', () => {
  let simulator: RunningSimulator;
  let plant: LedgerPlant;
  /** A January sale whose order the ledger books as paid on March 10. */
  let early: SimulatedSale;
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-proof-'));

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 23,
      identifier: 'proof',
      secret: 'proof-secret',
      dataset: { from: '2026-01-01', to: asOf, salesCount: 3_000, timezone },
    });
    plant = await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: path.join(dir, 'ledger.csv'),
      reconciliation: configFor('probe', {}).reconciliation,
      seed: 5,
      salesPerBreak: 60,
    });
    early = [...simulator.dataset.salesInPeriod('2026-01-10', '2026-01-20', true)].find(
      (s) =>
        s.status === 'Redeemed by Client' &&
        s.keySentToCustomer &&
        !s.malformation &&
        s.partnerReference === s.partnerReference.trim(),
    )!;
    const clock = new ZonedClock(timezone);
    const paidAt = clock.isoLocal(clock.startOfDay('2026-03-10') + 12 * 3_600_000).replace('T', ' ');
    appendFileSync(
      plant.file,
      `"${early.partnerReference}",${early.productId},${paidAt},${early.salesPrice},${early.partnerCostPrice},` +
        `${early.salesCurrencyCode},${early.countryCode},paid\n`,
    );
  });

  afterAll(async () => {
    await simulator?.close();
  });

  function configFor(name: string, options: { historyStart?: string; lookupMissing?: boolean }): Config {
    return configSchema.parse({
      timezone,
      database: path.join(dir, `${name}.duckdb`),
      api: {
        baseUrl: simulator?.url ?? 'http://127.0.0.1:1',
        identifier: 'proof',
        secret: 'proof-secret',
        maxRequestsPerSecond: 40,
      },
      extract: {
        landingDir: path.join(dir, `landing-${name}`),
        ...(options.historyStart && { historyStart: options.historyStart }),
      },
      reconciliation: { lookupMissing: options.lookupMissing ?? true },
      reports: { outDir: path.join(dir, `reports-${name}`) },
    });
  }

  /**
   * The month-end job on its own database; its findings, the look-up requests it made, its unproven count in the
   * report.
   */
  async function monthEnd(name: string, options: { historyStart?: string; lookupMissing?: boolean }) {
    const config = configFor(name, options);
    const lookupsBefore = simulator.stats().byEndpoint.salesByPartnerReference ?? 0;
    const windowsBefore = simulator.stats().byEndpoint.salesByPeriod ?? 0;
    const warehouse = await Warehouse.open(config.database, { timezone });
    try {
      const summary: RunSummary = await runMonthEnd(warehouse, config, { period, asOf, ledger: plant.file }, quiet);
      const findings = await warehouse.all<{ t: string; r: string; proof: string | null }>(
        `select exception_type as t, trim(partner_reference) as r, proof from recon_exceptions where period = $1 ` +
          `order by all`,
        [period],
      );
      const facts = await loadReportFacts(warehouse, {
        period,
        timezone,
        signoff: await loadSignoffFacts(warehouse, period, timezone),
      });
      return {
        summary,
        findings,
        facts,
        lookupRequests: (simulator.stats().byEndpoint.salesByPartnerReference ?? 0) - lookupsBefore,
        windowRequests: (simulator.stats().byEndpoint.salesByPeriod ?? 0) - windowsBefore,
      };
    } finally {
      warehouse.close();
    }
  }

  /** The first run id of the look-up rows (the month-end's reconcile). */
  const run0 = (rows: { run_id: string }[]) => rows[0]!.run_id;
  const expected = () =>
    [
      ...plant.findings.map((f) => `${f.findingType} ${f.partnerReference}`),
      `cutoff_difference ${early.partnerReference}`,
    ].sort();
  const ghosts = () => plant.planted.missing_at_provider;
  const proofs = (findings: { t: string; proof: string | null }[]) => [
    ...new Set(findings.filter((f) => f.t === 'missing_at_provider').map((f) => f.proof)),
  ];

  it(
    'without historyStart: the early sale is found by its ' +
      'look-up (a cutoff), the ghosts are proven absent by lookup',
    async () => {
      const run = await monthEnd('lookup', {});
      expect(run.summary.steps.map((s) => s.step)).toEqual(['extract', 'ledger import', 'reconcile', 'report']);
      expect(run.findings.map((f) => `${f.t} ${f.r}`)).toEqual(expected());
      expect(proofs(run.findings)).toEqual(['lookup']);
      expect(run.summary.reconcile.proof).toEqual({ windows: 0, lookup: ghosts().length, unproven: 0 });
      // One request per order without a sale: the ghosts and the early one (found).
      expect(run.summary.reconcile.lookup).toMatchObject({ done: true, references: ghosts().length + 1, found: 1 });
      expect(run.lookupRequests).toBe(ghosts().length + 1);
      expect(run.facts.missingProof).toEqual({ windows: 0, lookup: ghosts().length, unproven: 0 });
    },
  );

  it(
    'asks again on the next reconcile (an answer proves absence ' +
      'as of then), keeps every answer, rebuilds only its readers',
    async () => {
      const config = configFor('lookup', {});
      const warehouse = await Warehouse.open(config.database, { timezone });
      try {
        const before = simulator.stats().byEndpoint.salesByPartnerReference ?? 0;
        const summary = await reconcile(warehouse, config, { period, asOf }, quiet);
        // The early sale is stored now: only the ghosts are asked about, and nothing is found or loaded.
        expect(summary.lookup).toMatchObject({ done: true, references: ghosts().length, found: 0, loaded: 0 });
        expect((simulator.stats().byEndpoint.salesByPartnerReference ?? 0) - before).toBe(ghosts().length);
        expect(summary.proof).toEqual({ windows: 0, lookup: ghosts().length, unproven: 0 });
        expect(
          await warehouse.one(`SELECT lookups, lookups_found FROM recon_runs WHERE run_id = $1`, [summary.runId]),
        ).toEqual({
          lookups: String(ghosts().length),
          lookups_found: '0',
        });
        const asked = await warehouse.all<{ run_id: string; found: boolean; n: string }>(
          `SELECT run_id, found, count(*) AS n FROM provider_lookups GROUP BY run_id, found ORDER BY run_id = $1,
            found`,
          [summary.runId],
        );
        expect(asked).toEqual([
          { run_id: run0(asked), found: false, n: String(ghosts().length) },
          { run_id: run0(asked), found: true, n: '1' },
          { run_id: summary.runId, found: false, n: String(ghosts().length) },
        ]);
      } finally {
        warehouse.close();
      }
      // Only the look-ups' readers are rebuilt when nothing was loaded: the proof's path to the mart.
      const rebuilt = readersOf(planModels(), 'stg_provider__lookups').map((m) => m.name);
      const proofPath = [
        'stg_provider__lookups',
        'int_recon_findings__missing',
        'int_recon_findings_detected',
        'recon_exceptions',
      ];
      proofPath.push('recon_runs');
      expect(rebuilt).toEqual(expect.arrayContaining(proofPath));
      expect(rebuilt).not.toContain('int_recon_rows_classified');
    },
  );

  it('a run with more than 100 look-ups says that extract.historyStart avoids them', async () => {
    const config = configFor('lookup', {});
    const extra = path.join(dir, 'ledger-more-ghosts.csv');
    const header =
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status';
    const ghost = (n: number) =>
      `"PO-202603-MORE-${String(n).padStart(4, '0')}",1,2026-03-15 10:00:00,10.00,9.00,BRL,BR,paid`;
    const lines = Array.from({ length: 101 }, (_, n) => ghost(n));
    writeFileSync(extra, `${header}\n${lines.join('\n')}\n`);
    const warehouse = await Warehouse.open(config.database, { timezone });
    try {
      await importLedger(warehouse, config, extra, {}, quiet);
      const { output, text } = capturingOutput();
      const summary = await reconcile(warehouse, config, { period, asOf }, output);
      expect(summary.lookup.references).toBe(ghosts().length + 101);
      expect(text()).toMatch(
        /\d+ individual look-ups were needed: set extract\.historyStart .* back-fill the by-creation windows from it/,
      );
    } finally {
      warehouse.close();
    }
  });

  it(
    'with historyStart: the back-filled windows hold the ' + 'early sale and prove the ghosts absent, with 0 look-ups',
    async () => {
      const run = await monthEnd('windows', { historyStart: '2026-01-01' });
      expect(run.summary.steps.map((s) => s.step)).toEqual([
        'back-fill',
        'extract',
        'ledger import',
        'reconcile',
        'report',
      ]);
      // January and February by creation date, then the period's windows (both kinds) as always.
      expect(run.summary.backfill).toMatchObject({ from: '2026-01-01', to: '2026-02-28', by: 'created' });
      expect(run.summary.backfill?.windows).toMatchObject({ fetched: 2, skipped: 0 });
      expect(run.findings.map((f) => `${f.t} ${f.r}`)).toEqual(expected());
      expect(proofs(run.findings)).toEqual(['windows']);
      expect(run.summary.reconcile.proof).toEqual({ windows: ghosts().length, lookup: 0, unproven: 0 });
      expect(run.summary.reconcile.lookup).toMatchObject({ done: false, provenAbsent: ghosts().length });
      expect(run.lookupRequests).toBe(0);
      expect(run.summary.reconcile.coverage).toMatchObject({
        historyStart: '2026-01-01',
        coveredThrough: '2026-04-04',
        provesAbsence: true,
      });
    },
  );

  it(
    'with look-ups off and no historyStart nothing is proven: the ' +
      'early order and the ghosts are missing, unproven, counted',
    async () => {
      const run = await monthEnd('unproven', { lookupMissing: false });
      // The plant's ghosts are missing as before; the early order, whose sale nobody asked for, is missing too.
      const withoutProof = [
        ...expected().filter((f) => f !== `cutoff_difference ${early.partnerReference}`),
        `missing_at_provider ${early.partnerReference}`,
      ];
      expect(run.findings.map((f) => `${f.t} ${f.r}`)).toEqual(withoutProof.sort());
      expect(proofs(run.findings)).toEqual(['unproven']);
      expect(run.lookupRequests).toBe(0);
      expect(run.facts.missingProof).toEqual({ windows: 0, lookup: 0, unproven: ghosts().length + 1 });
    },
  );
});
