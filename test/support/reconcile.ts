/**
 * Fixtures of the reconcile tests: a real DuckDB file in a temp dir, rows inserted into `sales` and `ledger`
 * the way the extract and ledger-import stages leave them, and an Output that keeps what it printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { ConsoleOutput } from '../../cli/output.js';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { copyOfTemplate } from './database-template.js';

export interface SaleRow {
  transaction_id: number;
  partner_reference: string | null;
  product_id: number;
  sales_price: string;
  partner_cost_price: string;
  status: string;
  /** ISO 8601 with offset. */
  transaction_at: string | null;
  currency: string;
  key: string;
  key_sent_to_customer: boolean;
}

export interface LedgerRow {
  partner_reference: string;
  product_id: number;
  /** ISO 8601 with offset. */
  paid_at: string;
  sales_price: string;
  expected_cost: string;
  currency_code: string;
  order_status: string;
  source_line: number;
  file_hash: string;
}

export interface Fixture {
  dir: string;
  config: Config;
  warehouse: Warehouse;
  /** Closes the database and removes the temp dir. */
  cleanup(): Promise<void>;
}

export function testConfig(dir: string, overrides: Record<string, unknown> = {}): Config {
  const { reconciliation, reports, ...rest } = overrides as {
    reconciliation?: Record<string, unknown>;
    reports?: Record<string, unknown>;
  };
  return configSchema.parse({
    timezone: 'America/Sao_Paulo',
    database: path.join(dir, 'pinrecon.duckdb'),
    extract: { landingDir: path.join(dir, 'landing') },
    reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false, ...reconciliation },
    // The fixture's own folder: the default (data/reports) is relative to the working folder, which every worker
    // shares, so two tests wrote and read one pinrecon-2024-03.xlsx at once (an Actions sheet read back empty).
    reports: { outDir: path.join(dir, 'reports'), ...reports },
    // A limit for the fixtures' currency: approvals in a currency without one fail closed (issue 34).
    actions: { approvalLimit: { BRL: 1000 } },
    ...rest,
  });
}

export async function openFixture(overrides: Record<string, unknown> = {}): Promise<Fixture> {
  // Each database's made-up ids start afresh: the unit files share their worker's modules (isolate: false), so
  // ids must not depend on which test files ran before in the same worker.
  nextTransactionId = 1000;
  nextLine = 2;
  // The fixtures' sales stand for complete extractions of these months (fetched today, after they ended).
  return openFixtureOf('reconcile-fixture', (w) => recordExtractedMonths(w, '2020-01', '2025-12'), overrides);
}

/**
 * A fixture whose database is a copy of the template `name` (test/support/database-template.ts), which `fill` makes
 * once per worker: a state several tests start from costs its setup once.
 */
export async function openFixtureOf(
  name: string,
  fill: (warehouse: Warehouse) => Promise<void>,
  overrides: Record<string, unknown> = {},
): Promise<Fixture> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-reconcile-'));
  const config = testConfig(dir, overrides);
  await copyOfTemplate(config.database, name, fill);
  const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
  return {
    dir,
    config,
    warehouse,
    async cleanup() {
      // The file is removed next, so its write-ahead log is not folded into it first: that checkpoint was ~24 ms of
      // each fixture's 34 ms close after a reconcile, hundreds of times a run (issue 27). A test may have closed it.
      await warehouse.run('PRAGMA disable_checkpoint_on_shutdown').catch(() => undefined);
      warehouse.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The period the default sale and ledger line fall in, and an as-of date soon after it. */
export const period = '2024-03';
export const asOf = '2024-04-05';

/** A fixture opened afresh before each test of the calling file and cleaned up after it (the same object, refilled). */
export function fixtureForEachTest(): Fixture {
  const fixture = {} as Fixture;
  beforeEach(async () => {
    Object.assign(fixture, await openFixture());
  });
  afterEach(() => fixture.cleanup());
  return fixture;
}

let nextTransactionId = 1000;
let nextLine = 2;

/** A redeemed sale of product 7 at 10.00/8.00 BRL on 2024-03-10 12:00 local, unless overridden. */
export function sale(overrides: Partial<SaleRow> = {}): SaleRow {
  const id = overrides.transaction_id ?? nextTransactionId++;
  return {
    transaction_id: id,
    partner_reference: `PO-${id}`,
    product_id: 7,
    sales_price: '10.00',
    partner_cost_price: '8.00',
    status: 'Redeemed by Client',
    transaction_at: '2024-03-10T12:00:00-03:00',
    currency: 'BRL',
    key: `KEY-SECRET-${String(id).padStart(4, '0')}`,
    key_sent_to_customer: true,
    ...overrides,
  };
}

/** The ledger line matching `s` (same reference, product, prices, currency, paid at its time), unless overridden. */
export function ledgerFor(s: SaleRow, overrides: Partial<LedgerRow> = {}): LedgerRow {
  return {
    partner_reference: s.partner_reference ?? '',
    product_id: s.product_id,
    paid_at: s.transaction_at ?? '2024-03-10T12:00:00-03:00',
    sales_price: s.sales_price,
    expected_cost: s.partner_cost_price,
    currency_code: s.currency,
    order_status: 'paid',
    source_line: nextLine++,
    file_hash: 'fixture',
    ...overrides,
  };
}

/**
 * Completed extract windows (both kinds, one per month, fetched now) for every month from `first` to
 * `last`, as `extract` leaves them: rows inserted straight into `sales` then reconcile as a complete period.
 */
export async function recordExtractedMonths(warehouse: Warehouse, first: string, last: string): Promise<void> {
  await warehouse.run(
    `INSERT INTO extract_windows (window_start, window_end, by_flag, run_id, completed_at, records, quarantined,
       landing_path)
     SELECT month::DATE, last_day(month::DATE), flag, 'fixture', now(), 0, 0, ''
     FROM range($1::TIMESTAMP, $2::TIMESTAMP + INTERVAL 1 MONTH, INTERVAL 1 MONTH) AS months(month),
       (VALUES ('paid'), ('created')) AS flags(flag)
     ON CONFLICT DO NOTHING`,
    [`${first}-01`, `${last}-01`],
  );
}

export async function insertSales(warehouse: Warehouse, rows: SaleRow[]): Promise<void> {
  for (const r of rows) {
    await warehouse.run(
      `INSERT INTO sales (transaction_id, partner_reference, product_id, product_name, sales_price, partner_cost_price,
         status, status_class, transaction_at, transaction_date_raw, country_code, sales_currency_code,
         sales_currency_symbol, key, key_sent_to_customer, first_seen_at, last_seen_at)
       VALUES ($1, $2, $3, 'Product ' || $3, $4::DECIMAL(18,4), $5::DECIMAL(18,4), $6, NULL, $7::TIMESTAMPTZ, $7, 'BR',
         $8, 'R$', $9, $10, now(), now())`,
      [
        r.transaction_id,
        r.partner_reference,
        r.product_id,
        r.sales_price,
        r.partner_cost_price,
        r.status,
        r.transaction_at,
        r.currency,
        r.key,
        r.key_sent_to_customer,
      ],
    );
  }
}

export async function insertLedger(warehouse: Warehouse, rows: LedgerRow[]): Promise<void> {
  for (const r of rows) {
    await warehouse.run(
      `INSERT INTO ledger (partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost,
         currency_code, country_code, order_status, source_file, source_line, file_hash, run_id)
       VALUES ($1, $2, $3::TIMESTAMPTZ, $3, $4::DECIMAL(18,4), $5::DECIMAL(18,4), $6, 'BR', $7, 'ledger.csv', $8, $9,
         'fixture')`,
      [
        r.partner_reference,
        r.product_id,
        r.paid_at,
        r.sales_price,
        r.expected_cost,
        r.currency_code,
        r.order_status,
        r.source_line,
        r.file_hash,
      ],
    );
  }
}

/** An Output whose lines (stdout and stderr) are kept in `text`. */
export function capturingOutput(): { output: Output; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { output: new ConsoleOutput(false, sink, sink, false), text: () => text };
}

/** The findings of a period as sorted "type reference" strings. */
export async function findingsOf(warehouse: Warehouse, period: string): Promise<string[]> {
  const rows = await warehouse.all<{ exception_type: string; partner_reference: string | null }>(
    'SELECT exception_type, partner_reference FROM recon_exceptions WHERE period = $1',
    [period],
  );
  return rows.map((r) => `${r.exception_type} ${r.partner_reference ?? ''}`).sort();
}
