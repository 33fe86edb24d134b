/**
 * The load under DuckDB's memory limit, on a real DuckDB file: an out-of-memory names the statement and the
 * memoryLimit in force, rolls back whole, and the same window then loads under "auto".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, expect, test } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { outOfMemoryHint } from '../../../core/errors.js';
import { Warehouse } from '../../../core/warehouse.js';
import { loadLandedSales } from '../../../pipelines/extract/load.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-load-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const records = 20_000;
function landWindow(): string {
  const sales = Array.from(
    { length: records },
    (_, i) =>
      `{"transactionId": ${1_000_000 + i * 7}, "partnerReference": "PO-${i}", "productId": 42, "salesPrice": 19.9, ` +
      `"partnerCostPrice": 17.5125, "status": "Redeemed by Client", "transactionDate": "2026-01-15T10:20:30-03:00", ` +
      `"salesCurrencyCode": "BRL", "key": "****${String(i % 10_000).padStart(4, '0')}"}`,
  );
  const file = path.join(dir, 'paid_2026-01-01_2026-01-31.json.gz');
  writeFileSync(file, gzipSync(`[${sales.join(',\n')}]`));
  return file;
}

test('an out-of-memory names the load statement and the memoryLimit; under "auto" the window loads', async () => {
  const file = landWindow();
  const config = configSchema.parse({ database: path.join(dir, 'pinrecon.duckdb') });
  const load = (warehouse: Warehouse) =>
    warehouse.transaction(() =>
      loadLandedSales(warehouse, config, {
        path: file,
        runId: 'run-1',
        endpoint: 'salesByPeriod',
        fetchedAt: new Date('2026-02-01T12:00:00Z'),
        bytes: 1,
        window: { start: '2026-01-01', end: '2026-01-31', flag: 'paid' },
      }),
    );

  const small = await Warehouse.open(config.database, { memoryLimit: '24MB' });
  try {
    const error = await load(small).catch((failure: unknown) => failure as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^[\w ,']+ \(memoryLimit 24MB\): Out of Memory Error/);
    expect(outOfMemoryHint(error)).toMatch(/PINRECON_MEMORY_LIMIT/);
    // Nothing half-loaded.
    expect((await small.one<{ n: string }>('SELECT count(*) AS n FROM sales'))!.n).toBe('0');
  } finally {
    small.close();
  }

  const auto = await Warehouse.open(config.database, { memoryLimit: config.memoryLimit });
  try {
    expect(config.memoryLimit).toBe('auto');
    const counts = await load(auto);
    expect(counts).toMatchObject({ records, loaded: records, newSales: records, quarantined: 0 });
    expect((await auto.one<{ n: string }>('SELECT count(DISTINCT transaction_id) AS n FROM sales'))!.n).toBe(
      String(records),
    );
  } finally {
    auto.close();
  }
});
