/**
 * The loader's checks on records whose money is plainly exact (its digits are the number's own text, ≤ 4 decimals):
 * those records skip the reasons' slow path only when nothing else can be wrong with them, so each other problem
 * must still be found and named, one record each, in a real DuckDB file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { loadLandedSales } from '../../../pipelines/extract/load.js';
import { Warehouse } from '../../../core/warehouse.js';
import { saleJson } from '../../support/extract.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-load-checks-'));
const config = configSchema.parse({ database: path.join(dir, 'pinrecon.duckdb'), timezone: 'America/Sao_Paulo' });
let warehouse: Warehouse;

beforeAll(async () => {
  warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
});

afterAll(() => {
  warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A sale as the upstream sends it, its money plain: `19.9` is the text JSON gives back for the number. */
function sale(id: number, overrides: Record<string, string> = {}): string {
  return saleJson(id, { salesPrice: '19.9', salesCurrencySymbol: '', key: '', ...overrides });
}

it('finds every other problem of a record whose money is plainly exact', async () => {
  const records = [
    sale(1), // 0: clean, loaded
    sale(2, { partnerReference: '"  "' }),
    sale(3, { productId: '18446744073709551615' }),
    sale(4, { countryCode: '7' }),
    sale(5, { keySentToCustomer: '"yes"' }),
    sale(6, { salesPrice: '19.90001' }),
    sale(7, { productName: '"a lone \\\\ud800 made text"' }),
    sale(8, { status: 'null' }),
    sale(9, { countryCode: 'null', productName: '"escaped \\u00e9 is fine"' }), // 8: loaded
  ];
  const file = path.join(dir, 'plain.json.gz');
  writeFileSync(file, gzipSync(`[${records.join(',\n')}]`));
  const counts = await warehouse.transaction(() =>
    loadLandedSales(warehouse, config, {
      path: file,
      runId: 'run-plain',
      endpoint: 'salesByPeriod',
      fetchedAt: new Date('2026-02-01T12:00:00Z'),
      bytes: 1,
      window: { start: '2026-01-01', end: '2026-01-31', flag: 'paid' },
    }),
  );
  expect(counts).toMatchObject({ records: 9, loaded: 2, notLoaded: 7 });
  const rows = await warehouse.all<{ id: number; reason: string }>(
    'SELECT record_index::INTEGER AS id, reason FROM sales_quarantine ORDER BY record_index',
  );
  expect(rows).toEqual([
    { id: 1, reason: 'partnerReference is empty' },
    { id: 2, reason: 'productId 18446744073709551615 is out of range' },
    { id: 3, reason: 'countryCode is an integer, expected a string' },
    { id: 4, reason: 'keySentToCustomer is a string, expected true or false' },
    { id: 5, reason: 'salesPrice 19.90001 has more than 4 decimal places' },
    {
      id: 6,
      reason:
        'a string holds a lone surrogate escape (such as \\ud800), which is not text: kept in sales_quarantine as ' +
        'received',
    },
    { id: 7, reason: 'missing status' },
  ]);
  const loaded = await warehouse.all<{ id: number; price: string }>(
    'SELECT transaction_id::INTEGER AS id, sales_price::VARCHAR AS price FROM sales ORDER BY 1',
  );
  expect(loaded).toEqual([
    { id: 1, price: '19.9000' },
    { id: 9, price: '19.9000' },
  ]);
});
