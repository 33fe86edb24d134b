/**
 * Staging a ledger file's lines in temporary tables before they move into place: a CSV in bulk by DuckDB where
 * that reads it exactly, every other line streamed through the readers of sources/ledger with DuckDB's appender.
 */

import type { DuckDBAppender } from '@duckdb/node-api';
import type { Output } from '../../core/output.js';
import { dropBulkTables, readCsvInBulk } from '../../sources/ledger/csv-bulk.js';
import type { ByteFacts } from '../../sources/ledger/csv-byte-scan.js';
import { readLedger } from '../../sources/ledger/read-ledger.js';
import type { LedgerItem, LedgerReadSettings, LedgerReject } from '../../sources/ledger/types.js';
import type { Warehouse } from '../../core/warehouse.js';

/** How a file was read: CSV in bulk by DuckDB (sources/ledger/csv-bulk.ts), or line by line (every other format). */
export type LedgerReader = 'bulk' | 'streaming';

/** Rejects kept in the summary to show; all of them are in ledger_rejects. */
const shownRejects = 5;

export type StageCounts = {
  accepted: number;
  rejected: number;
  firstRejects: LedgerReject[];
  aboveHeader: number[];
  reader: LedgerReader;
  acceptedInBulk: number;
};

/**
 * The streaming reader's rows as staged rows (typed: exact DECIMAL money, the wall-clock or zoned paid_at), the
 * columns the bulk reader's view temp.ledger_csv_rows has too; the final insert reads their union,
 * temp.ledger_import_staged, and applies the time zone.
 */
const streamedRows = `SELECT partner_reference, product_id, CAST(paid_local AS TIMESTAMP) AS paid_local,
    CAST(paid_instant AS TIMESTAMPTZ) AS paid_instant,
    paid_at_raw, CAST(sales_price AS DECIMAL(18,4)) AS sales_price,
    CAST(expected_cost AS DECIMAL(18,4)) AS expected_cost,
    currency_code, country_code, order_status, source_line
  FROM temp.ledger_import_rows`;

/**
 * Reads the file into the temporary staging tables (a CSV in bulk when the bulk reader can read it exactly,
 * see sources/ledger/csv-bulk.ts) and the view temp.ledger_import_staged over all staged rows; returns the
 * counts and the first rejects.
 */
export async function stage(
  warehouse: Warehouse,
  file: string,
  settings: LedgerReadSettings,
  options: { reader?: 'auto' | 'streaming'; csvBytes?: ByteFacts },
  output: Output,
): Promise<StageCounts> {
  await warehouse.run(`CREATE OR REPLACE TEMP TABLE ledger_import_rows (
    partner_reference VARCHAR, product_id BIGINT, paid_local VARCHAR, paid_instant VARCHAR, paid_at_raw VARCHAR,
    sales_price VARCHAR, expected_cost VARCHAR, currency_code VARCHAR, country_code VARCHAR, order_status VARCHAR,
    source_line BIGINT)`);
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE ledger_import_rejects (source_line BIGINT, reason VARCHAR, raw VARCHAR)`,
  );
  const counts: StageCounts = {
    accepted: 0,
    rejected: 0,
    firstRejects: [],
    aboveHeader: [],
    reader: 'streaming',
    acceptedInBulk: 0,
  };
  const onProgress = progressReporter(settings, counts, output);
  // Parquet streams from DuckDB: on a connection of its own, as the appenders use the main one.
  const parquetConnection = settings.format === 'parquet' ? await warehouse.instance.connect() : undefined;
  try {
    const bulk =
      options.csvBytes && options.reader !== 'streaming'
        ? await readCsvInBulk(warehouse.connection, file, settings, options.csvBytes, onProgress)
        : undefined;
    if (bulk?.notRead) output.info(`reading it line by line: ${bulk.notRead}`);
    let staged = streamedRows;
    if (bulk?.read) {
      counts.reader = 'bulk';
      counts.accepted = bulk.read.accepted;
      counts.acceptedInBulk = bulk.read.accepted;
      counts.aboveHeader = bulk.read.aboveHeader.map((row) => row.line);
      staged += ' UNION ALL SELECT * FROM temp.ledger_csv_rows';
    }
    await warehouse.run(`CREATE OR REPLACE TEMP VIEW ledger_import_staged AS ${staged}`);
    const items =
      bulk?.read?.items ??
      readLedger(file, settings, {
        connection: parquetConnection,
        onProgress,
        onAboveHeader: (line) => counts.aboveHeader.push(line),
      });
    await appendItems(warehouse, items, counts);
  } finally {
    parquetConnection?.closeSync();
    output.clearProgress();
  }
  return counts;
}

/** Progress of a read: MiB of the file (rows of a Parquet file), with the counts so far. */
function progressReporter(
  settings: LedgerReadSettings,
  counts: StageCounts,
  output: Output,
): (done: number, total: number) => void {
  let lastPlainLine = Date.now();
  return (done, total) => {
    const plainLineDue = Date.now() - lastPlainLine >= 5000;
    if (plainLineDue) lastPlainLine = Date.now();
    const unit = settings.format === 'parquet' ? 1 : 1024 * 1024;
    output.progress(
      {
        label: settings.format === 'parquet' ? 'rows' : 'MiB',
        done: Math.round((done / unit) * 10) / 10,
        total: Math.round((total / unit) * 10) / 10,
        facts: { accepted: counts.accepted, rejected: counts.rejected },
      },
      plainLineDue,
    );
  };
}

/** Appends rows and rejects to the staging tables with DuckDB's appender, counting them. */
async function appendItems(warehouse: Warehouse, items: AsyncIterable<LedgerItem>, counts: StageCounts): Promise<void> {
  const rows = await warehouse.connection.createAppender('ledger_import_rows', 'main', 'temp');
  const rejects = await warehouse.connection.createAppender('ledger_import_rejects', 'main', 'temp');
  try {
    for await (const item of items) {
      if (item.row) {
        const r = item.row;
        appendText(rows, r.partner_reference);
        rows.appendBigInt(r.product_id);
        appendText(rows, r.paid_local);
        appendText(rows, r.paid_instant);
        appendText(rows, r.paid_at_raw);
        appendText(rows, r.sales_price);
        appendText(rows, r.expected_cost);
        appendText(rows, r.currency_code);
        appendText(rows, r.country_code);
        appendText(rows, r.order_status);
        rows.appendBigInt(BigInt(r.source_line));
        rows.endRow();
        counts.accepted++;
      } else {
        const reject = item.reject;
        rejects.appendBigInt(BigInt(reject.source_line));
        rejects.appendVarchar(reject.reason);
        rejects.appendVarchar(reject.raw);
        rejects.endRow();
        counts.rejected++;
        if (counts.firstRejects.length < shownRejects) counts.firstRejects.push(reject);
      }
    }
    rows.flushSync();
    rejects.flushSync();
  } finally {
    rows.closeSync();
    rejects.closeSync();
  }
}

function appendText(appender: DuckDBAppender, value: string | null): void {
  if (value === null) appender.appendNull();
  else appender.appendVarchar(value);
}

export async function dropStaging(warehouse: Warehouse): Promise<void> {
  await warehouse.run('DROP VIEW IF EXISTS temp.ledger_import_staged');
  await dropBulkTables(warehouse.connection);
  await warehouse.run('DROP TABLE IF EXISTS temp.ledger_import_rows');
  await warehouse.run('DROP TABLE IF EXISTS temp.ledger_import_rejects');
}
