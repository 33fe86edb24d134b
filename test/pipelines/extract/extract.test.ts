/**
 * extractSales over real HTTP against the simulator, into real DuckDB files: completeness against the
 * simulator's own data set, re-runs, faults, token expiry and revocation, the 31-day rule, malformed records.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { maskPin } from '../../../core/masking.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../config/schema.js';
import { extractSales, type ExtractSummary } from '../../../pipelines/extract/extract.js';
import { planWindows } from '../../../pipelines/extract/plan.js';
import { withWarehouse, type Warehouse } from '../../../core/warehouse.js';
import { PartnerApiClient, ProviderError } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../../doubles/simulator/server.js';
import { wireRecord } from '../../../doubles/simulator/sale-generator.js';
import {
  capturedOutput,
  extractConfig,
  identifier,
  salesState,
  secret,
  sideTablesState,
  tempDir,
} from '../../support/extract.js';
import { copyOfTemplate } from '../../support/database-template.js';

const dataset = { from: '2025-12-20', to: '2026-04-05', salesCount: 6_000, timezone: 'America/Sao_Paulo' };
const range = { from: '2026-01-01', to: '2026-03-31' };
/** Far enough after the range that no window is within the 35-day lookback. */
const today = '2026-06-30';

const simulators: RunningSimulator[] = [];
async function simulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const running = await startSimulator({ seed: 7, identifier, secret, dataset, ...options });
  simulators.push(running);
  return running;
}
afterAll(async () => {
  await Promise.all(simulators.map((s) => s.close()));
});

async function extract(config: Config, options: Partial<Parameters<typeof extractSales>[2]> = {}, terminal = false) {
  const { output, text } = capturedOutput(terminal);
  // A new database is a copy of the schema's template, as a fresh open would make it, not a new schema (issue 27).
  if (!existsSync(config.database)) await copyOfTemplate(config.database);
  const summary = await withWarehouse(config.database, { timezone: config.timezone }, (warehouse) =>
    extractSales(warehouse, config, { ...range, by: 'both', today, ...options }, output),
  );
  return { summary, console: text() };
}

function read<T>(config: Config, work: (warehouse: Warehouse) => Promise<T>): Promise<T> {
  return withWarehouse(config.database, { timezone: config.timezone }, work);
}

describe('extract against the simulator', () => {
  let clean: RunningSimulator;
  let config: Config;
  let first: { summary: ExtractSummary; console: string };
  /**
   * The sales of a fault-free extraction from an untouched simulator, to compare faulty runs with: the first
   * extraction's, kept before any test changes `clean` or the database (issue 27: not a second extraction, 1.6 s,
   * from a second simulator of the same seed).
   */
  let reference: unknown[];

  beforeAll(async () => {
    clean = await simulator();
    config = extractConfig(tempDir('extract'), clean.url);
    first = await extract(config);
    reference = await read(config, salesState);
  });

  it(
    'loads every simulator sale of the range exactly once, with ' +
      'the seen flags and windows of the searches that returned it',
    async () => {
      const expected = new Map<
        number,
        { paid?: string; created?: string; sale: ReturnType<typeof wireRecord>; createdAt: number }
      >();
      let received = 0;
      for (const window of planWindows(range.from, range.to, 'both', 31)) {
        for (const sale of clean.dataset.salesInPeriod(window.start, window.end, window.flag === 'created')) {
          received++;
          const entry = expected.get(sale.transactionId) ?? {
            sale: wireRecord(sale),
            createdAt: sale.createdAt.getTime(),
          };
          entry[window.flag] = window.start;
          expected.set(sale.transactionId, entry);
        }
      }
      expect(expected.size).toBeGreaterThan(4_000);
      expect(first.summary).toMatchObject({
        records: received,
        loaded: received,
        notLoaded: 0,
        quarantined: 0,
        newSales: expected.size,
      });
      expect(first.summary.windows).toEqual({ planned: 6, fetched: 6, skipped: 0 });

      const rows = await read(config, (w) =>
        w.all<Record<string, string | boolean | null>>(
          `SELECT transaction_id, partner_reference, product_id, sales_price::VARCHAR AS price,
            partner_cost_price::VARCHAR AS cost, status,
                transaction_date_raw, epoch_ms(transaction_at) AS at_ms, key, seen_by_paid, paid_window_start::VARCHAR
                  AS paid,
                seen_by_created, created_window_start::VARCHAR AS created
         FROM sales ORDER BY transaction_id`,
        ),
      );
      expect(rows).toHaveLength(expected.size);
      for (const row of rows) {
        const want = expected.get(Number(row.transaction_id))!;
        expect(want, `sale ${row.transaction_id} is not in the range`).toBeDefined();
        expect(row).toEqual({
          transaction_id: String(want.sale.transactionId),
          partner_reference: want.sale.partnerReference,
          product_id: String(want.sale.productId),
          price: want.sale.salesPrice!.toFixed(4),
          cost: want.sale.partnerCostPrice!.toFixed(4),
          status: want.sale.status,
          transaction_date_raw: want.sale.transactionDate,
          at_ms: String(want.createdAt), // every date shape read back to the same instant
          // security.keys "hash", the default of a new database: only the masked key is kept.
          key: maskPin(want.sale.key!),
          seen_by_paid: want.paid !== undefined,
          paid: want.paid ?? null,
          seen_by_created: want.created !== undefined,
          created: want.created ?? null,
        });
      }
    },
  );

  it('records the run, the landing files and one checkpoint per window, and prints one line per window', async () => {
    const run = await read(config, (w) =>
      w.one(`SELECT status, requests, rate_limited, rows_loaded FROM pipeline_runs WHERE run_id = $1`, [
        first.summary.runId!,
      ]),
    );
    expect(run).toEqual({
      status: 'succeeded',
      requests: String(first.summary.requests),
      rate_limited: '0',
      rows_loaded: String(first.summary.loaded),
    });
    expect(first.summary.requests).toBe(7); // the token call and one per window
    const landing = await read(config, (w) =>
      w.all<{ path: string; records: string }>(`SELECT path, records FROM landing_files ORDER BY path`),
    );
    expect(landing).toHaveLength(6);
    // The downloads' uncompressed copies are gone with their loads: each month holds its files and their records.
    for (const month of ['2026-01', '2026-02', '2026-03']) {
      const names = readdirSync(path.join(first.summary.landingDir, 'sales', month));
      expect(names.filter((name) => !/\.json\.gz(\.meta\.json)?$/.test(name))).toEqual([]);
      expect(names).toHaveLength(4);
    }
    for (const file of landing) {
      expect(existsSync(file.path)).toBe(true);
      expect(file.path).toMatch(
        new RegExp(
          `sales/2026-0[1-3]/(paid|created)_2026-0[1-3]-01_2026-0[1-3]-\\d\\d_${first.summary.runId}\\.json\\.gz$`,
        ),
      );
    }
    expect(
      first.console.match(
        new RegExp(
          /window 2026-\d\d-01\.\.2026-\d\d-\d\d \(by (paid|created)\): \d+ records, \d+ loaded, /.source +
            /0 quarantined; [\d.]+ s download, [\d.]+ s load/.source,
          'g',
        ),
      ),
    ).toHaveLength(6);
  });

  it('a re-run skips the done windows; a run within the lookback re-fetches without duplicating anything', async () => {
    const before = await read(config, async (w) => ({ sales: await salesState(w), side: await sideTablesState(w) }));
    const skipped = await extract(config);
    expect(skipped.summary.windows).toEqual({ planned: 6, fetched: 0, skipped: 6 });
    expect(skipped.summary.requests).toBe(0);

    // What a killed run's download left in March's folder (its gzip file and its uncompressed copy, both under way)
    // goes when a window downloads there again.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const left = ['json', 'json.gz'].map((ext) =>
      path.join(first.summary.landingDir, 'sales', '2026-03', `paid_killed.${ext}.tmp-${dead}`),
    );
    for (const file of left) writeFileSync(file, '[');
    const refetched = await extract(config, { today: '2026-04-15' }); // March (and only March) is within 35 days
    expect(left.filter((file) => existsSync(file))).toEqual([]);
    expect(refetched.summary.windows).toEqual({ planned: 6, fetched: 2, skipped: 4 });
    expect(refetched.summary.newSales).toBe(0);
    expect(refetched.summary.statusChanges).toBe(0);
    const after = await read(config, async (w) => ({ sales: await salesState(w), side: await sideTablesState(w) }));
    expect(after).toEqual(before);
  });

  it('status changes upstream are picked up by a re-fetch and appended to the history once', async () => {
    const [sale] = clean.dataset.salesInPeriod('2026-03-10', '2026-03-10', false);
    const reversed = clean.dataset.reverse(sale!.transactionId);
    expect(reversed.status).toBe('Canceled in stock');
    const again = await extract(config, { today: '2026-04-15' });
    expect(again.summary.statusChanges).toBeGreaterThanOrEqual(1);
    const history = await read(config, (w) =>
      w.all(`SELECT status, previous_status FROM sales_status_history WHERE transaction_id = $1 ORDER BY observed_at`, [
        sale!.transactionId,
      ]),
    );
    expect(history).toEqual([
      { status: sale!.status, previous_status: null },
      { status: 'Canceled in stock', previous_status: sale!.status },
    ]);
    const row = await read(config, (w) =>
      w.one(`SELECT status_class FROM sales WHERE transaction_id = $1`, [sale!.transactionId]),
    );
    expect(row).toEqual({ status_class: 'canceled' });
  });

  // The next three wait on the simulator's pacing, back-offs and token lifetimes (~11 s each, little CPU), each with
  // its own simulator and database: run side by side, their waits overlap (issue 27).
  it.concurrent(
    'under injected 503/500, dropped connections, latency ' + 'and expiring tokens, ends with the fault-free result',
    async ({ expect }) => {
      const faulty = await simulator({
        tokenLifetimeSeconds: 1,
        faults: { error503Rate: 0.2, error500Rate: 0.15, dropRate: 0.1, slowRate: 0.3, slowMs: 400 },
      });
      const target = extractConfig(tempDir('extract-faulty'), faulty.url, { api: { refreshMarginSeconds: 0 } });
      const { summary } = await extract(target);
      const stats = faulty.stats();
      expect(stats.injected503 + stats.injected500 + stats.dropped).toBeGreaterThan(0);
      expect(summary.retries + summary.rateLimited).toBeGreaterThan(0);
      expect(await read(target, salesState)).toEqual(reference);
      const run = await read(target, (w) =>
        w.one(`SELECT retries, rate_limited FROM pipeline_runs WHERE run_id = $1`, [summary.runId!]),
      );
      expect(run).toEqual({ retries: String(summary.retries), rate_limited: String(summary.rateLimited) });
    },
  );

  it.concurrent('survives tokens revoked mid-run', async ({ expect }) => {
    // Every 4 s, not 3: a renewal cycle (canary, ≥ 1 s back-off, login, request) takes about 3 s with 700 ms
    // answers, and a revocation period that close to it can hit every fresh token in a row (the client gives
    // up after 3 renewals by design). Six windows of ≥ 700 ms each outlast one period, so revocations happen.
    const revoking = await simulator({ faults: { slowRate: 1, slowMs: 700, revokeEverySeconds: 4 } });
    const target = extractConfig(tempDir('extract-revoked'), revoking.url);
    const { summary } = await extract(target);
    expect(revoking.stats().revocations).toBeGreaterThan(0);
    expect(revoking.stats().tokensIssued).toBeGreaterThan(1);
    expect(summary.windows.fetched).toBe(6);
    expect(await read(target, salesState)).toEqual(reference);
  });

  it.concurrent('renews tokens that expire mid-run (1-second lifetime, slow responses)', async ({ expect }) => {
    const expiring = await simulator({ tokenLifetimeSeconds: 1, faults: { slowRate: 1, slowMs: 700 } });
    const target = extractConfig(tempDir('extract-expiring'), expiring.url, { api: { refreshMarginSeconds: 0 } });
    const { summary } = await extract(target, { from: '2026-01-01', to: '2026-02-28' });
    expect(summary.windows.fetched).toBe(4);
    const stats = expiring.stats();
    expect(stats.tokensIssued).toBeGreaterThan(1);
    expect(await read(target, (w) => w.one(`SELECT count(*) AS n FROM extract_windows`))).toEqual({ n: '4' });
  });
});

describe('extract: refusals and bad records', () => {
  it(
    'the 31-day rule: the planner never asks for more, and ' +
      'the upstream answers a longer period with a 400 naming it',
    async () => {
      const upstream = await simulator();
      const client = new PartnerApiClient(extractConfig(tempDir('extract-31'), upstream.url).api, {
        limiter: new RateLimiter(20),
      });
      try {
        const error = await client.salesByPeriod('2026-01-01', '2026-02-01', false).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).status).toBe(400);
        // Issue 34: the upstream's words are not quoted; the hint names the 31-day rule.
        expect((error as ProviderError).body).toMatch(/^a body of \d+ bytes, sha256 [0-9a-f]{16}$/);
        expect((error as ProviderError).hint).toMatch(/32 days; the provider allows at most 31/);
      } finally {
        client.close();
      }
    },
  );

  it(
    'a window the upstream refuses fails the job naming the ' +
      'endpoint and window, with what to do; done windows stay done',
    async () => {
      const strict = await simulator({ maxPeriodDays: 28 });
      const config = extractConfig(tempDir('extract-strict'), strict.url);
      const error = await extract(config, { from: '2026-02-01', to: '2026-03-31', by: 'paid' }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/window 2026-03-01\.\.2026-03-31 \(by paid\) failed at salesByPeriod/);
      expect((error as { hint?: string }).hint).toMatch(/extract\.maxWindowDays/);
      const state = await read(config, async (w) => ({
        windows: await w.all(`SELECT window_start::VARCHAR AS s FROM extract_windows`),
        run: await w.one<{ status: string; error: string }>(`SELECT status, error FROM pipeline_runs`),
      }));
      expect(state.windows).toEqual([{ s: '2026-02-01' }]);
      expect(state.run!.status).toBe('failed');
    },
  );

  it('bad credentials fail with a hint naming api.identifier and api.secret', async () => {
    const upstream = await simulator();
    const config = extractConfig(tempDir('extract-creds'), upstream.url, { api: { secret: 'wrong-secret' } });
    const error = await extract(config, { from: '2026-01-01', to: '2026-01-31', by: 'paid' }).catch((e: unknown) => e);
    expect((error as { hint?: string }).hint).toMatch(/api\.identifier and api\.secret/);
    expect(String((error as Error).message)).not.toContain('wrong-secret');
  });

  it(
    'malformed records are quarantined with their reason; received ' +
      '= loaded + not loaded; bad dates are loaded and quarantined',
    async () => {
      const malformed = await simulator({ dataset: { ...dataset, malformedEvery: 97 } });
      const config = extractConfig(tempDir('extract-malformed'), malformed.url);
      // One month, not the range's three (issue 27): its ~2,000 records already hold every kind of malformation.
      const january = { from: '2026-01-01', to: '2026-01-31' };
      const { summary, console } = await extract(config, january);
      let served = 0;
      let missing = 0;
      let badDates = 0;
      for (const window of planWindows(january.from, january.to, 'both', 31)) {
        for (const sale of malformed.dataset.salesInPeriod(window.start, window.end, window.flag === 'created')) {
          served++;
          if (sale.malformation?.kind === 'missing-field') missing++;
          if (sale.malformation?.kind === 'bad-date') badDates++;
        }
      }
      expect(missing).toBeGreaterThan(0);
      expect(badDates).toBeGreaterThan(0);
      expect(summary.records).toBe(served);
      expect(summary.records).toBe(summary.loaded + summary.notLoaded);
      expect(summary.notLoaded).toBe(missing);
      expect(summary.unparseableDates).toBe(badDates);
      expect(summary.quarantined).toBe(missing + badDates);
      const reasons = await read(config, (w) =>
        w.all<{ reason: string; n: string }>(
          `SELECT regexp_replace(reason, ':.*', '') AS reason, count(*) AS n FROM sales_quarantine
            GROUP BY 1 ORDER BY 1`,
        ),
      );
      expect(reasons.map((r) => r.reason)).toEqual(
        expect.arrayContaining([
          'missing partnerCostPrice',
          'transactionDate is not ISO 8601 or dd/MM/yyyy HH',
          'missing salesPrice',
        ]),
      );
      const badDateRows = await read(config, (w) =>
        w.one<{ n: string }>(
          `SELECT count(*) AS n FROM sales s JOIN sales_quarantine q USING (transaction_id)
            WHERE s.transaction_at IS NULL AND q.reason LIKE 'transactionDate%'`,
        ),
      );
      expect(Number(badDateRows!.n)).toBe(badDates);
      expect(console).toMatch(/could not be read; loaded with transaction_at NULL/);
    },
  );

  it(
    'on a terminal, shows a progress bar (windows, rows, ' + 'requests/s, 503s) instead of one line per window',
    async () => {
      const upstream = await simulator();
      const config = extractConfig(tempDir('extract-tty'), upstream.url);
      const { console } = await extract(config, { from: '2026-01-01', to: '2026-02-28' }, true);
      expect(console).toMatch(/\r\[#{24}\] windows 4\/4 · rows \d+ · req\/s [\d.]+ · 503s 0/);
      expect(console).not.toMatch(/window 2026-01-01\.\.2026-01-31 \(by paid\): \d+ records/);
    },
  );

  it('a dry run prints the plan and calls nothing', async () => {
    const upstream = await simulator();
    const config = extractConfig(tempDir('extract-dry'), upstream.url);
    const before = upstream.stats().requests;
    const { summary } = await extract(config, { dryRun: true });
    expect(upstream.stats().requests).toBe(before);
    expect(summary).toMatchObject({ dryRun: true, requests: 7, windows: { planned: 6, fetched: 0, skipped: 0 } });
    expect(summary.estimatedSeconds).toBeCloseTo(7 / 40);
    expect(summary.plan.map((w) => `${w.start}/${w.flag}/${w.action}`)).toContain('2026-02-01/created/fetch');
    expect(path.basename(config.database)).toBe('pinrecon.duckdb');
  });
});
