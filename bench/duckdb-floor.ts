/**
 * The DuckDB floor of a month-end (issue 33): DuckDB alone doing each step's core work on the same inputs, in its own
 * process, on a fresh file with default settings. Extract: the landed responses read and typed, one row per sale.
 * Ledger import: the ledger read and typed. Reconcile: one statement naming each break of the period, to Parquet.
 * Report: the period's sales written out as text. What pinrecon does beyond that (the download, masking the PINs,
 * checking and quarantining every record and line, the decisions, the workbook's XML) is the gap the month-end bench
 * reports step by step. `measureFloor` runs this file as a child process; the child prints the seconds as JSON.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqlString } from '../core/sql.js';
import { salesRecordFields } from '../pipelines/extract/landed-staging.js';

export interface FloorInput {
  /** Where the floor's own database and outputs go (removed after). */
  dir: string;
  /** The run's landing directory: every .json.gz under it is read. */
  landingDir: string;
  ledger: string;
  /** The period's first day and the next period's, local dates. */
  from: string;
  until: string;
}

/**
 * Wall seconds of each step's floor, the CPU seconds of all of them (DuckDB's threads included), and what they made
 * (sales typed, ledger lines, breaks named), so a floor that read nothing shows it.
 */
export interface FloorSeconds {
  extract: number;
  ledger_import: number;
  reconcile: number;
  report: number;
  cpu: number;
  sales: number;
  ledgerLines: number;
  breaks: number;
}

export function measureFloor(input: FloorInput): FloorSeconds {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(input)], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`the DuckDB floor failed (exit ${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as FloorSeconds;
}

function landedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.json.gz'))
    .map((name) => path.join(dir, name))
    .sort();
}

/** DuckDB's type for each kind of the Sales record's fields, as the loader types them. */
const kindTypes = { integer: 'BIGINT', text: 'VARCHAR', money: 'DECIMAL(18,4)', boolean: 'BOOLEAN' } as const;
const salesColumns = `{${salesRecordFields.map((f) => `${f.name}: '${kindTypes[f.kind]}'`).join(', ')}}`;

type FlooredStep = 'extract' | 'ledger_import' | 'reconcile' | 'report';

function floorStatements(input: FloorInput, work: string): Record<FlooredStep, string> {
  const files = `[${landedFiles(input.landingDir).map(sqlString).join(', ')}]`;
  const inPeriod = (column: string) =>
    `${column} >= TIMESTAMP ${sqlString(input.from)} AND ${column} < TIMESTAMP ${sqlString(input.until)}`;
  return {
    extract: `CREATE TABLE sales AS
      SELECT DISTINCT ON (transactionId) *,
             coalesce(TRY_CAST(transactionDate AS TIMESTAMP),
                      try_strptime(transactionDate, '%d/%m/%Y %H:%M:%S')) AS transaction_at
      FROM read_json(${files}, format = 'array', compression = 'gzip', ignore_errors = true,
                     columns = ${salesColumns})`,
    ledger_import: `CREATE TABLE ledger AS
      SELECT trim(partner_reference) AS reference, TRY_CAST(product_id AS BIGINT) AS product_id,
             try_strptime(paid_at, '%Y-%m-%d %H:%M:%S') AS paid_at, TRY_CAST(sales_price AS DECIMAL(18,4)) AS price,
             TRY_CAST(expected_cost AS DECIMAL(18,4)) AS cost, currency_code, order_status
      FROM read_csv(${sqlString(input.ledger)}, header = true, all_varchar = true, ignore_errors = true)`,
    reconcile: `COPY (
      WITH orders AS (SELECT * FROM ledger WHERE ${inPeriod('paid_at')}),
           sales AS (SELECT trim(partnerReference) AS reference, * FROM sales WHERE ${inPeriod('transaction_at')})
      SELECT coalesce(orders.reference, sales.reference) AS reference, sales.transactionId,
             CASE WHEN sales.reference IS NULL THEN 'missing_at_provider'
                  WHEN orders.reference IS NULL THEN 'missing_in_ledger'
                  WHEN orders.cost <> sales.partnerCostPrice THEN 'cost_mismatch'
                  WHEN orders.price <> sales.salesPrice THEN 'price_mismatch'
                  WHEN orders.product_id <> sales.productId THEN 'product_mismatch'
                  WHEN orders.order_status IN ('refunded', 'canceled') <> (sales.status ILIKE 'cancel%') THEN 'status'
             END AS finding
      FROM orders FULL JOIN sales ON orders.reference = sales.reference
      WHERE finding IS NOT NULL
    ) TO ${sqlString(path.join(work, 'findings.parquet'))} (FORMAT parquet)`,
    report: `COPY (SELECT * EXCLUDE (key, keyHmac) FROM sales WHERE ${inPeriod('transaction_at')}
                   ORDER BY transaction_at)
             TO ${sqlString(path.join(work, 'sales.csv'))}`,
  };
}

async function child(input: FloorInput): Promise<void> {
  // Loaded here only: the bench's own process never opens DuckDB for the floor.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const work = mkdtempSync(path.join(input.dir, 'duckdb-floor-'));
  try {
    const instance = await DuckDBInstance.create(path.join(work, 'floor.duckdb'));
    const connection = await instance.connect();
    const seconds: Partial<FloorSeconds> = {};
    const cpuBefore = process.cpuUsage();
    for (const [step, sql] of Object.entries(floorStatements(input, work))) {
      const started = process.hrtime.bigint();
      await connection.run(sql);
      seconds[step as FlooredStep] = Number(process.hrtime.bigint() - started) / 1e9;
    }
    const cpu = process.cpuUsage(cpuBefore);
    seconds.cpu = (cpu.user + cpu.system) / 1e6;
    const made = await connection.runAndReadAll(
      `SELECT (SELECT count(*) FROM sales)::INTEGER, (SELECT count(*) FROM ledger)::INTEGER,
              (SELECT count(*) FROM read_parquet(${sqlString(path.join(work, 'findings.parquet'))}))::INTEGER`,
    );
    [seconds.sales, seconds.ledgerLines, seconds.breaks] = made.getRows()[0] as [number, number, number];
    connection.closeSync();
    instance.closeSync();
    process.stdout.write(`${JSON.stringify(seconds)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await child(JSON.parse(process.argv[2]!) as FloorInput);
}
