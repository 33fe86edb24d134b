/**
 * A period with 1,000,000 provider sales (generated in DuckDB with SQL): the whole workbook is written,
 * the Sales sheet streamed from the database chunk by chunk. Targets: under 40 s, peak RSS under 600 MB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadReportFacts } from '../reports/report-facts.js';
import { writeWorkbook } from '../reports/workbook.js';
import { Warehouse } from '../core/warehouse.js';
import { peakRssMiB, timed, type BenchResult } from './harness.js';

export const name = 'report: 1,000,000-row sales sheet';

const sales = 1_000_000;
const period = '2025-03';
const timezone = 'America/Sao_Paulo';

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-report-'));
  const warehouse = await Warehouse.open(path.join(dir, 'bench.duckdb'), { timezone });
  try {
    // One sale every 2 seconds from 1 March (local): 1M sales end on 24 March, all inside the period.
    await warehouse.run(`
      INSERT INTO sales (transaction_id, partner_reference, product_id, product_name, sales_price, partner_cost_price, status, status_class,
                         transaction_at, transaction_date_raw, country_code, sales_currency_code, sales_currency_symbol, key,
                         key_sent_to_customer, first_seen_at, last_seen_at)
      SELECT i, 'PO-' || lpad(i::VARCHAR, 8, '0'), 100 + i % 50, 'Gift card ' || (i % 50),
             (10 + i % 90)::DECIMAL(18,4), round((10 + i % 90) * 0.9137, 4)::DECIMAL(18,4),
             CASE WHEN i % 10 = 0 THEN 'delivered' ELSE 'Redeemed by Client' END,
             CASE WHEN i % 10 = 0 THEN 'booked' ELSE 'redeemed' END,
             TIMESTAMPTZ '2025-03-01 03:00:00+00' + to_seconds(i * 2), '', CASE WHEN i % 5 = 0 THEN 'US' ELSE 'BR' END,
             CASE WHEN i % 5 = 0 THEN 'USD' ELSE 'BRL' END, CASE WHEN i % 5 = 0 THEN '$' ELSE 'R$' END,
             upper(md5(i::VARCHAR))[1:20], i % 10 <> 0, TIMESTAMPTZ '2025-04-02 09:00:00+00', TIMESTAMPTZ '2025-04-02 09:00:00+00'
      FROM range(1, ${sales + 1}) AS t(i);
      INSERT INTO recon_summary (period, as_of, currency_code, ledger_orders, ledger_active_orders, ledger_sales_total, ledger_cost_total,
                                 provider_sales, provider_billable_sales, provider_sales_total, provider_cost_total, provider_margin,
                                 matched, exceptions, built_at, run_id)
      SELECT '${period}', DATE '2025-04-05', sales_currency_code, count(*), count(*), sum(sales_price), sum(partner_cost_price), count(*), count(*),
             sum(sales_price), sum(partner_cost_price), sum(sales_price) - sum(partner_cost_price), count(*), 0,
             TIMESTAMPTZ '2025-04-05 10:00:00+00', 'bench'
      FROM sales GROUP BY sales_currency_code;
      CHECKPOINT;
    `);
    const facts = await loadReportFacts(warehouse, { period, timezone });
    const { seconds, value: workbook } = await timed(() => writeWorkbook(warehouse, facts, { file: path.join(dir, 'pinrecon-bench.xlsx') }));
    const rows = workbook.rowsByTitle['Sales'] ?? 0;
    const peak = peakRssMiB();
    return {
      metrics: {
        sales_rows: rows,
        seconds: Number(seconds.toFixed(1)),
        rows_per_s: Math.round(rows / seconds),
        workbook_MiB: Number((workbook.bytes / 1024 / 1024).toFixed(1)),
      },
      targets: [
        { label: 'sales sheet of 1,000,000 rows written', measured: String(rows), ok: rows === sales },
        { label: 'workbook written in < 40 s', measured: `${seconds.toFixed(1)} s`, ok: seconds < 40 },
        { label: 'peak RSS < 600 MB', measured: `${Math.round(peak)} MiB`, ok: peak < 600 },
      ],
      notes: 'All sheets of the workbook, the Sales sheet streamed from DuckDB in chunks through exceljs WorkbookWriter (per-row currency formats, dates, masked PINs); peak RSS includes DuckDB.',
    };
  } finally {
    warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
