/**
 * The month-end job (`pinrecon run`, pipelines/ops/month-end.ts) against the simulator and the mail sink, into a
 * real DuckDB file: its extract range, the findings of a planted ledger found exactly, re-runs that change nothing,
 * and the plant found through every fault at once on an upstream with other paths.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleOutput } from '../../../cli/output.js';
import { UsageError } from '../../../core/errors.js';
import { configSchema, type Config } from '../../../config/schema.js';
import { monthEndExtractRange, runMonthEnd } from '../../../pipelines/ops/month-end.js';
import { Warehouse } from '../../../core/warehouse.js';
import { startMailSink, type MailSink } from '../../../doubles/mail-sink/mail-sink.js';
import { generateLedger, type LedgerPlant } from '../../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';
import { copyOfTemplate } from '../../support/database-template.js';

const period = '2026-03';
const asOf = '2026-04-20';
const quiet = new ConsoleOutput(true);

describe('month-end extract range', () => {
  // The previous month's last day no longer belongs to it: it only served the removed rule that windows
  // around the paid date prove absence; what lies before the period is the back-fill's (extract.historyStart).
  it('is the period plus the lookback, capped at the as-of date', () => {
    expect(monthEndExtractRange('2026-03', '2026-04-20', 35)).toEqual({ from: '2026-03-01', to: '2026-04-20' });
    expect(monthEndExtractRange('2026-03', '2026-11-22', 35)).toEqual({ from: '2026-03-01', to: '2026-05-05' });
    expect(() => monthEndExtractRange('2026-12', '2026-11-22', 35)).toThrow(/starts after the as-of date/);
    // A period that has not begun is bad usage (exit 2), not a failed job.
    expect(() => monthEndExtractRange('2026-12', '2026-11-22', 35)).toThrow(UsageError);
  });
});

// The two jobs below run concurrently: each has its own simulator, mail sink and folder, and much of their time is
// waiting out the simulator's injected faults (latency, 503s, back-offs).
describe.concurrent('pinrecon run (month-end job) against the simulator', () => {
  let simulator: RunningSimulator;
  let sink: MailSink;
  let config: Config;
  let plant: LedgerPlant;
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-run-'));

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 11,
      identifier: 'run-test',
      secret: 'run-test-secret',
      dataset: { from: '2026-03-01', to: asOf, salesCount: 6_000, timezone: 'America/Sao_Paulo' },
      faults: { error503Rate: 0.05, error500Rate: 0.05, slowRate: 0.1, slowMs: 50 },
    });
    sink = await startMailSink(path.join(dir, 'mail'));
    config = configSchema.parse({
      database: path.join(dir, 'pinrecon.duckdb'),
      api: { baseUrl: simulator.url, identifier: 'run-test', secret: 'run-test-secret', maxRequestsPerSecond: 40 },
      extract: { landingDir: path.join(dir, 'landing') },
      reports: { outDir: path.join(dir, 'reports') },
      email: { smtpUrl: sink.url },
    });
    plant = await generateLedger(simulator.dataset, {
      period,
      asOf,
      file: path.join(dir, 'ledger.csv'),
      reconciliation: config.reconciliation,
      seed: 3,
      salesPerBreak: 120,
    });
  });

  afterAll(async () => {
    await sink?.close();
    await simulator?.close();
  });

  async function state(warehouse: Warehouse) {
    return {
      findings: await warehouse.all(
        `select finding_id, exception_type, trim(partner_reference) as reference, transaction_id, difference::VARCHAR as
          difference, first_detected_at::VARCHAR as first
         from recon_exceptions where period = $1 order by finding_id`,
        [period],
      ),
      sales: await warehouse.all(
        `select transaction_id, status, partner_cost_price::VARCHAR as cost, transaction_at::VARCHAR as at from ` +
          `sales order by transaction_id`,
      ),
      ledger: (await warehouse.one<{ n: number }>(`select count(*)::INTEGER as n from ledger`))!.n,
      bridge: await warehouse.all(
        `select currency_code, step, amount::VARCHAR as amount from recon_bridge where period = $1 order by all`,
        [period],
      ),
    };
  }

  it(
    'extracts, imports, reconciles, reports and mails; the ' + 'findings equal the plant; a re-run changes nothing',
    async () => {
      // A new database: a copy of the schema's template, as a fresh open would make it (issue 27).
      await copyOfTemplate(config.database);
      const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
      try {
        const cpuBefore = process.cpuUsage();
        const first = await runMonthEnd(warehouse, config, { period, asOf, ledger: plant.file, email: true }, quiet);
        const cpu = process.cpuUsage(cpuBefore);
        expect(first.steps.map((s) => s.step)).toEqual(['extract', 'ledger import', 'reconcile', 'report + email']);
        // Each step's CPU is its own share of the job's: some for every step, together no more than the job's (each
        // step's figure is rounded to the hundredth, so up to half of one over).
        const stepCpu = first.steps.map((s) => s.cpuSeconds!);
        for (const seconds of stepCpu) expect(seconds).toBeGreaterThan(0);
        expect(stepCpu.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(
          (cpu.user + cpu.system) / 1e6 + 0.005 * stepCpu.length,
        );
        expect(first.extractRange).toEqual({ from: '2026-03-01', to: asOf });
        expect(first.ledger?.accepted).toBe(plant.lines);
        expect(sink.received).toHaveLength(1);

        const found = await warehouse.all<{ t: string; r: string }>(
          `select exception_type as t, trim(partner_reference) as r from recon_exceptions where period = $1 order by ` +
            `1, 2`,
          [period],
        );
        const expected = plant.findings
          .map((f) => ({ t: f.findingType, r: f.partnerReference }))
          .sort((a, b) => (a.t === b.t ? (a.r < b.r ? -1 : 1) : a.t < b.t ? -1 : 1));
        expect(found).toEqual(expected);

        // Every step of the job is recorded under the job's run.
        const steps = await warehouse.all<{ command: string; status: string }>(
          `select command, status from pipeline_runs where parent_run_id = $1 order by started_at`,
          [first.runId],
        );
        expect(steps).toEqual([
          { command: 'extract', status: 'succeeded' },
          { command: 'ledger import', status: 'succeeded' },
          { command: 'reconcile', status: 'succeeded' },
          { command: 'report', status: 'succeeded' },
        ]);

        const before = await state(warehouse);
        const second = await runMonthEnd(warehouse, config, { period, asOf, ledger: plant.file }, quiet);
        expect(second.runId).not.toBe(first.runId);
        const after = await state(warehouse);
        expect(after).toEqual(before);
        expect(second.reconcile.history).toEqual({ new: 0, stillOpen: before.findings.length, cleared: 0 });

        // A status that changes at the provider afterwards is seen by the next run as of the same date:
        // the period's windows are within the lookback of the as-of date, so they are fetched again.
        const booked = await warehouse.one<{ transaction_id: string; reference: string }>(
          `select transaction_id::VARCHAR as transaction_id, trim(partner_reference) as reference from recon_exceptions
         where period = $1 and exception_type = 'unredeemed_key' order by transaction_id limit 1`,
          [period],
        );
        simulator.dataset.reverse(Number(booked!.transaction_id));
        const third = await runMonthEnd(warehouse, config, { period, asOf, ledger: plant.file }, quiet);
        const sale = await warehouse.one<{ status: string }>(`select status from sales where transaction_id = $1`, [
          Number(booked!.transaction_id),
        ]);
        expect(sale!.status).toBe('Canceled in stock');
        expect(third.reconcile.history.cleared).toBeGreaterThanOrEqual(1);
      } finally {
        warehouse.close();
      }
    },
  );
});

describe.concurrent('pinrecon run against an upstream with other paths and every fault at once', () => {
  const endpoints = {
    getToken: 'POST /v2/oauth/token',
    refreshToken: 'POST /v2/oauth/token/renew',
    salesByPeriod: 'GET /v2/partner/sales?from={startDate}&to={finishDate}',
    salesByTransactionId: 'GET /v2/partner/sales/by-id/{transactionId}',
    salesByPartnerReference: 'GET /v2/partner/sales/by-order/{partnerReferenceId}',
    salesByDocument: 'GET /v2/partner/sales/by-document/{documentNumber}',
    catalogTree: 'GET /v2/catalog/tree',
    partnerCollections: 'GET /v2/catalog/mine',
    collectionProducts: 'GET /v2/catalog/{collectionId}/items',
    productInfo: 'GET /v2/products/{productId}',
    productStock: 'GET /v2/products/{productId}/availability',
    reverseByTransactionId: 'POST /v2/reversals',
    reverseByPartnerReference: 'POST /v2/reversals/by-order/{partnerReference}',
  };
  let simulator: RunningSimulator;
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-run-faults-'));

  afterAll(async () => {
    await simulator?.close();
  });

  it('finds exactly the plant through 503s, 500s, drops, latency, short-lived and revoked tokens', async ({
    expect,
  }) => {
    simulator = await startSimulator({
      seed: 5,
      identifier: 'faulty',
      secret: 'faulty-secret',
      endpoints,
      tokenLifetimeSeconds: 2,
      dataset: { from: '2026-02-01', to: '2026-03-20', salesCount: 3_000, timezone: 'America/Sao_Paulo' },
      faults: {
        error503Rate: 0.1,
        error500Rate: 0.1,
        dropRate: 0.1,
        slowRate: 0.2,
        slowMs: 300,
        revokeEverySeconds: 3,
      },
    });
    const config = configSchema.parse({
      database: path.join(dir, 'pinrecon.duckdb'),
      api: {
        baseUrl: simulator.url,
        identifier: 'faulty',
        secret: 'faulty-secret',
        endpoints,
        maxRequestsPerSecond: 45,
      },
      extract: { landingDir: path.join(dir, 'landing') },
      reports: { outDir: path.join(dir, 'reports') },
    });
    const plant = await generateLedger(simulator.dataset, {
      period: '2026-02',
      asOf: '2026-03-20',
      file: path.join(dir, 'ledger.csv'),
      reconciliation: config.reconciliation,
      seed: 9,
      salesPerBreak: 100,
    });
    await copyOfTemplate(config.database);
    const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
    try {
      const summary = await runMonthEnd(
        warehouse,
        config,
        { period: '2026-02', asOf: '2026-03-20', ledger: plant.file },
        quiet,
      );
      const found = await warehouse.all<{ t: string; r: string }>(
        `select exception_type as t, trim(partner_reference) as r from recon_exceptions where period = '2026-02' ` +
          `order by 1, 2`,
      );
      const expected = plant.findings
        .map((f) => ({ t: f.findingType, r: f.partnerReference }))
        .sort((a, b) => (a.t === b.t ? (a.r < b.r ? -1 : 1) : a.t < b.t ? -1 : 1));
      expect(found).toEqual(expected);
      const stats = simulator.stats();
      // The faults really happened, and were ridden out.
      expect(stats.injected500 + stats.dropped + stats.injected503).toBeGreaterThan(0);
      const job = await warehouse.one<{ retries: number; rate_limited: number }>(
        `select retries::INTEGER as retries, rate_limited::INTEGER as rate_limited from pipeline_runs where run_id = ` +
          `$1`,
        [summary.runId],
      );
      expect(job!.retries + job!.rate_limited).toBeGreaterThan(0);
    } finally {
      warehouse.close();
    }
  });
});
