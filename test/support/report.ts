/**
 * A reconciled period for the report and email tests: a real DuckDB file holding the report's inputs
 * (sales, ledger rejects, API quarantine, extract trace) and the marts of docs/DATA.md, filled directly,
 * with sales on both sides of the period's edges in the configured zone and PINs that must never leave
 * the database whole. Also a small zip reader, to search the workbook's XML itself.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { configSchema, type Config } from '../../config/schema.js';
import { Warehouse } from '../../core/warehouse.js';
import { copyOfTemplate } from './database-template.js';

export const period = '2025-03';
export const asOf = '2025-04-05';
export const timezone = 'America/Sao_Paulo';

/** Every PIN of the fixture, whole: none may appear in a workbook or an email. */
export const fixturePins = [
  'PINA-1111-2222-3333',
  'PINB-4444-5555-6666',
  'PINC-7777-8888-9999',
  'K9Z',
  'PIND-0000-1111-2222',
  'PINE-3333-4444-5555',
  'PINF-6666-7777-8888',
  'QPIN-1234-5678-9012',
  '98765432',
  'Q7Z',
];

/** The sales dated in March 2025 in São Paulo (UTC−3), in transaction_at order. */
export const salesInPeriod = [1001, 1002, 1003, 1004, 1007];

export interface ReportFixture {
  dir: string;
  config: Config;
  warehouse: Warehouse;
}

/** The fixture's database with the report's inputs, and (unless `marts: false`) the marts filled directly. */
export async function createReportFixture(
  configOverrides: Record<string, unknown> = {},
  options: { marts?: boolean } = {},
): Promise<ReportFixture> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-report-'));
  const config = configSchema.parse({
    timezone,
    database: path.join(dir, 'pinrecon.duckdb'),
    reports: { outDir: path.join(dir, 'reports') },
    ...configOverrides,
  });
  // Filled once per worker, in the zone copyOfTemplate opens its templates in (this fixture's), and copied.
  const marts = options.marts ?? true;
  if (!existsSync(config.database)) {
    await copyOfTemplate(config.database, marts ? 'report-fixture' : 'report-inputs', async (w) => {
      await fillReportInputs(w);
      if (marts) await fillMarts(w);
    });
  }
  const warehouse = await Warehouse.open(config.database, { timezone });
  return { dir, config, warehouse };
}

async function fillReportInputs(warehouse: Warehouse): Promise<void> {
  await warehouse.run(`
    INSERT INTO sales (transaction_id, partner_reference, product_id, product_name, sales_price, partner_cost_price,
      status, status_class,
                       transaction_at, transaction_date_raw, country_code, sales_currency_code, sales_currency_symbol,
                         key,
                       key_sent_to_customer, first_seen_at, last_seen_at) VALUES
      (1001, 'PO-1', 10, 'Game Card 50', 50.00, 45.5000, 'Redeemed by Client', 'redeemed', '2025-03-01 03:30:00+00',
        '2025-03-01T00:30:00', 'BR', 'BRL', 'R$', 'PINA-1111-2222-3333', true,  '2025-04-02 09:02:00+00',
        '2025-04-02 09:02:00+00'),
      (1002, 'PO-2', 11, 'Gift 100',     100.00, 92.1234, 'delivered',         'booked',   '2025-03-10 15:00:00+00',
        '2025-03-10T12:00:00', 'BR', 'BRL', 'R$', 'PINB-4444-5555-6666', false, '2025-04-02 09:02:00+00',
        '2025-04-02 09:03:00+00'),
      (1003, 'PO-3', 12, 'Steam 20',      20.00, 18.0000, 'Redeemed by Client', 'redeemed', '2025-03-15 12:00:00+00',
        '2025-03-15T09:00:00', 'US', 'USD', '$',  'PINC-7777-8888-9999', true,  '2025-04-02 09:02:00+00',
        '2025-04-02 09:02:00+00'),
      (1004, 'PO-4', 10, 'Game Card 50',  50.00, 45.5000, 'Canceled in stock',  'canceled', '2025-03-31 23:00:00+00',
        '2025-03-31T20:00:00', 'BR', 'BRL', 'R$', 'K9Z',                 true,  '2025-04-02 09:02:00+00',
        '2025-04-02 09:02:00+00'),
      (1005, 'PO-5', 10, 'Game Card 50',  50.00, 45.5000, 'Redeemed by Client', 'redeemed', '2025-03-01 02:30:00+00',
        '2025-02-28T23:30:00', 'BR', 'BRL', 'R$', 'PIND-0000-1111-2222', true,  '2025-04-02 09:02:00+00',
        '2025-04-02 09:02:00+00'),
      (1006, 'PO-6', 13, 'Eur Card',      10.00,  9.0000, 'Redeemed by Client', 'redeemed', '2025-04-01 03:10:00+00',
        '2025-04-01T00:10:00', 'PT', 'EUR', '€',  'PINE-3333-4444-5555', true,  '2025-04-02 09:02:00+00',
        '2025-04-02 09:02:00+00'),
      (1007, 'PO-7', 13, 'Eur Card',      10.00,  9.0000, 'Redeemed by Client', 'redeemed', '2025-04-01 02:59:59+00',
        '2025-03-31T23:59:59', 'PT', 'EUR', '€',  'PINF-6666-7777-8888', true,  '2025-04-02 09:02:00+00',
        '2025-04-02 09:02:00+00');

    INSERT INTO ledger_files (file_hash, source_file, format, lines, accepted, rejected, imported_at, run_id) VALUES
      ('h-mar', '/in/ledger-2025-03.csv', 'csv', 12, 10, 2, '2025-04-03 10:00:00+00', 'run-ledger-2'),
      ('h-jan', '/in/ledger-2025-01.csv', 'csv', 5, 4, 1, '2025-02-03 10:00:00+00', 'run-ledger-1');
    INSERT INTO ledger (partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost, currency_code,
      country_code, order_status,
                        source_file, source_line, file_hash, run_id) VALUES
      ('PO-1', 10, '2025-03-01 03:00:00+00', '2025-03-01', 50.00, 45.0000, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-03.csv', 2, 'h-mar', 'run-ledger-2'),
      ('PO-2', 11, '2025-03-10 12:00:00+00', '2025-03-10', 100.00, 92.1234, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-03.csv', 3, 'h-mar', 'run-ledger-2'),
      ('PO-2', 11, '2025-03-10 12:00:00+00', '2025-03-10', 100.00, 92.1234, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-03.csv', 4, 'h-mar', 'run-ledger-2'),
      ('PO-9', 10, '2025-03-20 03:00:00+00', '2025-03-20', 35.00, 30.0000, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-03.csv', 5, 'h-mar', 'run-ledger-2'),
      ('PO-4', 10, '2025-03-31 12:00:00+00', '2025-03-31', 50.00, 45.5000, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-03.csv', 6, 'h-mar', 'run-ledger-2'),
      ('PO-7', 13, '2025-03-31 12:00:00+00', '2025-03-31', 10.00, 9.0000, 'BRL', 'BR', 'paid', '/in/ledger-2025-03.csv',
        8, 'h-mar', 'run-ledger-2'),
      ('PO-5', 10, '2025-03-01 03:00:00+00', '2025-03-01', 50.00, 45.5000, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-03.csv', 10, 'h-mar', 'run-ledger-2'),
      ('PO-0', 10, '2025-01-20 03:00:00+00', '2025-01-20', 35.00, 30.0000, 'BRL', 'BR', 'paid',
        '/in/ledger-2025-01.csv', 2, 'h-jan', 'run-ledger-1');
    INSERT INTO ledger_rejects (source_file, source_line, reason, raw, file_hash, run_id) VALUES
      ('/in/ledger-2025-03.csv', 9, 'expected_cost: "12,3x" is not a number',
        'PO-11,10,2025-03-04,50.00,12,3x,BRL,BR,paid', 'h-mar', 'run-ledger-2'),
      ('/in/ledger-2025-03.csv', 7, 'paid_at: "2025-13-01" is not a date',
        'PO-10,10,2025-13-01,50.00,45.00,BRL,BR,paid', 'h-mar', 'run-ledger-2'),
      ('/in/ledger-2025-01.csv', 4, 'product_id missing', 'PO-00,,2025-01-04,50.00,45.00,BRL,BR,paid', 'h-jan',
        'run-ledger-1');

    INSERT INTO sales_quarantine (landing_path, record_index, window_start, by_flag, transaction_id, reason, raw,
      run_id, quarantined_at) VALUES
      ('landing/2025-03-01_2025-03-31_paid.json.gz', 5, '2025-03-01', 'paid', 1100, 'key is not a string',
        '{"transactionId":1100,"key":98765432}', 'run-extract-1', '2025-04-02 09:02:00+00'),
      ('landing/2025-03-01_2025-03-31_paid.json.gz', 3, '2025-03-01', 'paid', 1099,
        'transactionDate: "31/02/2025" is not a date',
       '{"transactionId":1099,"key": "QPIN-1234-5678-9012","transactionDate":"31/02/2025"}', 'run-extract-1',
         '2025-04-02 09:02:00+00'),
      ('landing/2025-03-01_2025-03-31_created.json.gz', 0, '2025-03-01', 'created', 1101, 'partnerReference missing',
        '{"transactionId":1101,"Key":"Q7Z"}', 'run-extract-1', '2025-04-02 09:03:00+00'),
      ('landing/2025-02-01_2025-02-28_paid.json.gz', 1, '2025-02-01', 'paid', 1090, 'transactionDate missing',
        '{"transactionId":1090,"key":"PIND-0000-1111-2222"}', 'run-extract-0', '2025-03-02 09:00:00+00');

    INSERT INTO pipeline_runs (run_id, command, started_at, finished_at, status, requests, retries, rate_limited,
      rows_loaded) VALUES
      ('run-extract-1', 'extract', '2025-04-02 09:00:00+00', '2025-04-02 09:05:00+00', 'succeeded', 12, 1, 2, 9),
      ('run-extract-0', 'extract', '2025-03-02 09:00:00+00', '2025-03-02 09:01:00+00', 'succeeded', 4, 0, 0, 3);
    INSERT INTO extract_windows (window_start, window_end, by_flag, run_id, completed_at, records, quarantined,
      landing_path) VALUES
      ('2025-03-01', '2025-03-31', 'paid', 'run-extract-1', '2025-04-02 09:02:30+00', 6, 2,
        'landing/2025-03-01_2025-03-31_paid.json.gz'),
      ('2025-03-01', '2025-03-31', 'created', 'run-extract-1', '2025-04-02 09:03:30+00', 6, 1,
        'landing/2025-03-01_2025-03-31_created.json.gz'),
      ('2025-02-01', '2025-02-28', 'paid', 'run-extract-0', '2025-03-02 09:00:30+00', 3, 1,
        'landing/2025-02-01_2025-02-28_paid.json.gz');
    INSERT INTO landing_files (path, run_id, endpoint, window_start, window_end, by_flag, fetched_at, bytes, records,
      quarantined) VALUES
      ('landing/2025-03-01_2025-03-31_paid.json.gz', 'run-extract-1', 'salesByPeriod', '2025-03-01', '2025-03-31',
        'paid', '2025-04-02 09:02:00+00', 2048, 6, 2),
      ('landing/2025-03-01_2025-03-31_created.json.gz', 'run-extract-1', 'salesByPeriod', '2025-03-01', '2025-03-31',
        'created', '2025-04-02 09:03:00+00', 2048, 6, 1),
      ('landing/2025-02-01_2025-02-28_paid.json.gz', 'run-extract-0', 'salesByPeriod', '2025-02-01', '2025-02-28',
        'paid', '2025-03-02 09:00:00+00', 1024, 3, 1);
  `);
}

async function fillMarts(warehouse: Warehouse): Promise<void> {
  const built = `'2025-04-05 10:00:00+00'`;
  await warehouse.run(`
    INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference, transaction_id,
      product_id, ledger_value,
                                  provider_value, difference, currency_code, details, first_detected_at, ledger_source,
                                    status, status_class,
                                  order_status, transaction_at, paid_at, key_last4, age_days, aging_bucket, amount,
                                    as_of, built_at, run_id) VALUES
      ('${period}', 'f01', 'missing_at_provider', 'missing', 'PO-9', NULL, 10, 30.0000, NULL, -30.0000, 'BRL',
        'paid in the ledger, no provider sale', '2025-04-05 10:00:00+00', '/in/ledger-2025-03.csv:5', NULL, NULL,
        'paid', NULL, '2025-03-20 03:00:00+00', NULL, NULL, NULL, -30.0000, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'f02', 'missing_in_ledger', 'missing', 'PO-3', 1003, 12, NULL, 18.0000, 18.0000, 'USD',
        'provider sale without ledger order', '2025-04-04 10:00:00+00', NULL, 'Redeemed by Client', 'redeemed', NULL,
        '2025-03-15 12:00:00+00', NULL, '9999', NULL, NULL, 18.0000, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'f03', 'cost_mismatch', 'amounts', 'PO-1', 1001, 10, 45.0000, 45.5000, 0.5000, 'BRL',
        'expected_cost 45.0000, partnerCostPrice 45.5000', '2025-04-04 10:00:00+00', '/in/ledger-2025-03.csv:2',
        'Redeemed by Client', 'redeemed', 'paid', '2025-03-01 03:30:00+00', '2025-03-01 03:00:00+00', '3333', NULL,
        NULL, 0.5000, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'f04', 'currency_mismatch', 'amounts', 'PO-7', 1007, 13, NULL, NULL, NULL, 'EUR',
        'ledger BRL, provider EUR', '2025-04-05 10:00:00+00', '/in/ledger-2025-03.csv:8', 'Redeemed by Client',
        'redeemed', 'paid', '2025-04-01 02:59:59+00', '2025-03-31 12:00:00+00', '8888', NULL, NULL, NULL, '${asOf}',
        ${built}, 'rec-2'),
      ('${period}', 'f05', 'canceled_but_booked', 'status', 'PO-4', 1004, 10, 45.5000, 45.5000, 0.0000, 'BRL',
        'provider canceled, ledger paid', '2025-04-04 10:00:00+00', '/in/ledger-2025-03.csv:6', 'Canceled in stock',
        'canceled', 'paid', '2025-03-31 23:00:00+00', '2025-03-31 12:00:00+00', 'K9Z', NULL, NULL, -45.5000, '${asOf}',
        ${built}, 'rec-2'),
      ('${period}', 'f06', 'duplicate_reference', 'duplicates', 'PO-2', 1002, 11, NULL, 92.1234, NULL, 'BRL',
        '2 ledger lines', '2025-04-04 10:00:00+00', '/in/ledger-2025-03.csv:3,/in/ledger-2025-03.csv:4', 'delivered',
        'booked', 'paid', '2025-03-10 15:00:00+00', '2025-03-10 12:00:00+00', '6666', NULL, NULL, NULL, '${asOf}',
        ${built}, 'rec-2'),
      ('${period}', 'f07', 'cutoff_difference', 'cutoff', 'PO-5', 1005, 10, 45.5000, 45.5000, 0.0000, 'BRL',
        'ledger 2025-03-01, provider 2025-02-28', '2025-04-04 10:00:00+00', '/in/ledger-2025-03.csv:10',
        'Redeemed by Client', 'redeemed', 'paid', '2025-03-01 02:30:00+00', '2025-03-01 03:00:00+00', '2222', NULL,
        NULL, 4.1234, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'f08', 'unredeemed_key', 'unredeemed', 'PO-2', 1002, 11, NULL, 92.1234, NULL, 'BRL',
        'booked for 26 days', '2025-04-04 10:00:00+00', NULL, 'delivered', 'booked', 'paid', '2025-03-10 15:00:00+00',
        NULL, '6666', 26, '8-30', NULL, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'f09', 'unredeemed_key', 'unredeemed', 'PO-3', 1003, 12, NULL, 18.0000, NULL, 'USD',
        'key not sent to customer', '2025-04-05 10:00:00+00', NULL, 'Redeemed by Client', 'redeemed', NULL,
        '2025-03-15 12:00:00+00', NULL, '9999', 21, '8-30', NULL, '${asOf}', ${built}, 'rec-2'),
      ('2025-02', 'f90', 'cost_mismatch', 'amounts', 'PO-0', 990, 10, 1.0000, 2.0000, 1.0000, 'BRL', 'another period',
        '2025-03-04 10:00:00+00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1.0000, '2025-03-04',
        '2025-03-04 10:00:00+00', 'rec-0');

    INSERT INTO recon_summary (period, as_of, currency_code, ledger_orders, ledger_active_orders, ledger_sales_total,
      ledger_cost_total, provider_sales,
                               provider_billable_sales, provider_sales_total, provider_cost_total, provider_margin,
                                 matched, exceptions, built_at, run_id) VALUES
      ('${period}', '${asOf}', 'BRL', 1234, 1200, 123456.7850, 163.0000, 1230, 1229, 150.0000, 137.6234, 12.3766, 1190,
        6, ${built}, 'rec-2'),
      ('${period}', '${asOf}', 'USD', 10, 10, 20.0000, 18.0000, 11, 11, 20.0000, 18.0000, 2.0000, 9, 2, ${built},
        'rec-2'),
      ('${period}', '${asOf}', 'EUR', 1, 1, 10.0000, 9.0000, 1, 1, 10.0000, 9.0000, 1.0000, 0, 1, ${built}, 'rec-2'),
      ('2025-02', '2025-03-04', 'BRL', 9, 9, 1.0000, 1.0000, 9, 9, 1.0000, 2.0000, -1.0000, 9, 1,
        '2025-03-04 10:00:00+00', 'rec-0');

    INSERT INTO recon_bridge (period, currency_code, step, label, exception_type, amount, items, as_of, built_at,
      run_id) VALUES
      ('${period}', 'BRL', 0, 'Ledger expected cost', NULL, 163.0000, 1200, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'BRL', 1, 'Missing at the provider', 'missing_at_provider', -30.0000, 1, '${asOf}', ${built},
        'rec-2'),
      ('${period}', 'BRL', 2, 'Cost differences', 'cost_mismatch', 0.5000, 1, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'BRL', 3, 'Canceled by the provider', 'canceled_but_booked', -45.5000, 1, '${asOf}', ${built},
        'rec-2'),
      ('${period}', 'BRL', 4, 'Dated in another period', 'cutoff_difference', 49.6234, 1, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'BRL', 5, 'Provider cost', NULL, 137.6234, 1229, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'USD', 0, 'Ledger expected cost', NULL, 18.0000, 10, '${asOf}', ${built}, 'rec-2'),
      ('${period}', 'USD', 1, 'Provider cost', NULL, 18.0000, 11, '${asOf}', ${built}, 'rec-2');

    INSERT INTO recon_aging (period, as_of, currency_code, aging_bucket, keys, cost_total, built_at, run_id) VALUES
      ('${period}', '${asOf}', 'USD', '8-30', 1, 18.0000, ${built}, 'rec-2'),
      ('${period}', '${asOf}', 'BRL', '8-30', 1, 92.1234, ${built}, 'rec-2');

    INSERT INTO recon_runs (run_id, period, as_of, built_at, exceptions, new, still_open, cleared) VALUES
      ('rec-1', '${period}', '2025-04-04', '2025-04-04 10:00:00+00', 7, 7, 0, 0),
      ('rec-2', '${period}', '${asOf}', ${built}, 9, 3, 6, 1),
      ('rec-0', '2025-02', '2025-03-04', '2025-03-04 10:00:00+00', 1, 1, 0, 0);
    INSERT INTO recon_exception_history (run_id, period, finding_id, exception_type, partner_reference, transaction_id,
      change, first_detected_at, recorded_at) VALUES
      ('rec-2', '${period}', 'f01', 'missing_at_provider', 'PO-9', NULL, 'new', '2025-04-05 10:00:00+00', ${built}),
      ('rec-2', '${period}', 'f04', 'currency_mismatch', 'PO-7', 1007, 'new', '2025-04-05 10:00:00+00', ${built}),
      ('rec-2', '${period}', 'f09', 'unredeemed_key', 'PO-3', 1003, 'new', '2025-04-05 10:00:00+00', ${built}),
      ('rec-2', '${period}', 'f02', 'missing_in_ledger', 'PO-3', 1003, 'still_open', '2025-04-04 10:00:00+00',
        ${built}),
      ('rec-2', '${period}', 'f03', 'cost_mismatch', 'PO-1', 1001, 'still_open', '2025-04-04 10:00:00+00', ${built}),
      ('rec-2', '${period}', 'f05', 'canceled_but_booked', 'PO-4', 1004, 'still_open', '2025-04-04 10:00:00+00',
        ${built}),
      ('rec-2', '${period}', 'f06', 'duplicate_reference', 'PO-2', 1002, 'still_open', '2025-04-04 10:00:00+00',
        ${built}),
      ('rec-2', '${period}', 'f07', 'cutoff_difference', 'PO-5', 1005, 'still_open', '2025-04-04 10:00:00+00',
        ${built}),
      ('rec-2', '${period}', 'f08', 'unredeemed_key', 'PO-2', 1002, 'still_open', '2025-04-04 10:00:00+00', ${built}),
      ('rec-2', '${period}', 'f10', 'price_mismatch', 'PO-8', 1008, 'cleared', '2025-04-04 10:00:00+00', ${built});
  `);
}

/** The text of every entry of a zip file (an .xlsx), by name. */
export function unzipText(file: string): Map<string, string> {
  const zip = readFileSync(file);
  const entries = new Map<string, string>();
  // The central directory is at the offset named in the end-of-central-directory record.
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let offset = zip.readUInt32LE(end + 16);
  const count = zip.readUInt16LE(end + 10);
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localHeader = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    entries.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
