/**
 * Reconciling a big month: 1,000,000 provider sales against ~1,000,000 ledger lines, generated directly in
 * DuckDB (SQL) with a realistic share of breaks of every kind, then `reconcile` as the command runs it
 * (models, data tests, publish). Target: under 10 s on the 2-core machine. Reports each stage's seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConsoleOutput } from '../cli/output.js';
import { configSchema } from '../config/schema.js';
import { reconcile } from '../pipelines/reconcile.js';
import { Warehouse } from '../core/warehouse.js';
import { peakRssMiB, timed, type BenchResult } from './harness.js';

export const name = 'reconcile';

const sales = 1_000_000;
const targetSeconds = 10;

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-reconcile-'));
  const config = configSchema.parse({
    database: path.join(dir, 'bench.duckdb'),
    reconciliation: { lookupMissing: false },
  });
  const warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
  try {
    const generated = await timed(() => generate(warehouse));
    // As after a real load: the previous job checkpointed when it published its snapshot.
    await warehouse.run('CHECKPOINT');
    const counts = (await warehouse.one<{ sales: string; ledger: string }>('SELECT (SELECT count(*) FROM sales) AS sales, (SELECT count(*) FROM ledger) AS ledger'))!;
    const quiet = new ConsoleOutput(true);
    // As the command runs it: a fresh process state each time is not needed, the second run measures rebuild + history.
    const first = await timed(() => reconcile(warehouse, config, { period: '2024-03', asOf: '2024-04-10' }, quiet));
    const second = await timed(() => reconcile(warehouse, config, { period: '2024-03', asOf: '2024-04-10' }, quiet));
    const summary = first.value;
    const stageMetrics = Object.fromEntries(Object.entries(summary.stages).map(([stage, s]) => [`${stage}_s`, round(s)]));
    return {
      metrics: {
        sales: Number(counts.sales),
        ledger_lines: Number(counts.ledger),
        findings: summary.exceptions,
        generate_s: round(generated.seconds),
        reconcile_s: round(first.seconds),
        rerun_s: round(second.seconds),
        ...stageMetrics,
        peak_rss_mib: Math.round(peakRssMiB()),
      },
      targets: [
        { label: `1M sales × 1M ledger lines reconciled in < ${targetSeconds} s`, measured: `${round(first.seconds)} s`, ok: first.seconds < targetSeconds },
        { label: `re-run (identity, history) in < ${targetSeconds} s`, measured: `${round(second.seconds)} s`, ok: second.seconds < targetSeconds },
      ],
      notes:
        'Data generated with SQL in the same DuckDB file: one month of sales (3 % canceled, 6 % booked, 0.1 % unknown status) and ' +
        'its ledger with ~0.2–0.3 % of each planted break plus 1,000 ghost orders; reconcile = staging, intermediate and mart models, data tests, publish.',
    };
  } finally {
    warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One month of sales and its ledger, with breaks of every kind, in two INSERT … SELECT statements. */
async function generate(warehouse: Warehouse): Promise<void> {
  await warehouse.run(
    `INSERT INTO sales (transaction_id, partner_reference, product_id, product_name, sales_price, partner_cost_price, status, status_class,
       transaction_at, transaction_date_raw, country_code, sales_currency_code, sales_currency_symbol, key, key_sent_to_customer,
       first_seen_at, last_seen_at)
     SELECT i,
       CASE WHEN i % 5000 = 0 THEN ' PO-' || i || ' ' ELSE 'PO-' || i END,
       (i % 30) + 1, 'Product ' || ((i % 30) + 1),
       CAST(5 + (i % 30) * 2.5 AS DECIMAL(18,4)),
       CAST((5 + (i % 30) * 2.5) * 0.85 AS DECIMAL(18,4)),
       CASE WHEN i % 1000 = 999 THEN 'Pending review' WHEN i % 33 = 0 THEN 'Canceled in stock' WHEN i % 17 = 0 THEN 'delivered' ELSE 'Redeemed by Client' END,
       NULL,
       TIMESTAMPTZ '2024-03-01 03:00:00+00' + to_seconds(CAST(floor((i - 1) * 2.6784) AS BIGINT)),
       NULL, 'BR', CASE WHEN (i % 30) + 1 = 30 THEN 'USD' ELSE 'BRL' END, 'R$',
       upper(substr(md5(CAST(i AS VARCHAR)), 1, 16)),
       NOT (i % 33 = 0 OR (i % 17 = 0 AND i % 4 = 0)),
       now(), now()
     FROM range(1, $1 + 1) AS t(i)`,
    [sales],
  );
  await warehouse.run(
    `INSERT INTO ledger (partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost, currency_code, country_code,
       order_status, source_file, source_line, file_hash, run_id)
     WITH base AS (
       SELECT s.*, copy FROM sales s, range(1, 3) AS c(copy)
       WHERE (copy = 1 OR s.transaction_id % 1000 = 6)          -- duplicate_reference: the line twice
         AND s.transaction_id % 500 <> 1                        -- missing_in_ledger: no line
     )
     SELECT partner_reference,
       product_id + CASE WHEN transaction_id % 1000 = 5 THEN 1 ELSE 0 END,
       transaction_at - to_seconds(60 + transaction_id % 3600),  -- paid shortly before: some in February (cutoff)
       '', sales_price + CASE WHEN transaction_id % 400 = 3 THEN 1 ELSE 0 END,
       partner_cost_price + CASE WHEN transaction_id % 400 = 2 THEN 0.5 WHEN transaction_id % 400 = 9 THEN 0.005 ELSE 0 END,
       CASE WHEN transaction_id % 1000 = 4 THEN 'EUR' ELSE sales_currency_code END, 'BR',
       CASE WHEN status = 'Canceled in stock' AND transaction_id % 7 <> 0 THEN 'canceled'   -- 1 in 7 canceled_but_booked
            WHEN transaction_id % 700 = 8 THEN 'refunded'                                     -- refunded_not_reversed
            ELSE 'paid' END,
       'bench-ledger.csv', row_number() OVER () + 1, 'bench', 'bench'
     FROM base
     UNION ALL
     SELECT 'GHOST-' || g, 1, TIMESTAMPTZ '2024-03-15 15:00:00+00', '', 10, 8.5, 'BRL', 'BR', 'paid', 'bench-ledger.csv', 2000000 + g, 'bench', 'bench'
     FROM range(1, 1001) AS t(g)`,
  );
}

function round(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}
