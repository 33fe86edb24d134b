/** The loader on hand-written landing files (gzip JSON as the upstream would send), into a real DuckDB file. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { hashPassNeeded, loadLandedSales, type LandedSales } from '../../../pipelines/extract/load.js';
import { landedRecordsSql } from '../../../pipelines/extract/landed-staging.js';
import { transactionAtSql } from '../../../pipelines/extract/transaction-date.js';
import { Warehouse } from '../../../core/warehouse.js';
import { sqlString } from '../../../core/sql.js';
import { saleJson } from '../../support/extract.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-extract-load-'));
const config = configSchema.parse({ database: path.join(dir, 'pinrecon.duckdb'), timezone: 'America/Sao_Paulo' });
let warehouse: Warehouse;

beforeAll(async () => {
  warehouse = await Warehouse.open(config.database, { timezone: config.timezone });
});
afterAll(() => {
  warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

const sale = saleJson;

function land(name: string, records: string[]): string {
  const file = path.join(dir, `${name}.json.gz`);
  writeFileSync(file, gzipSync(`[\n${records.join(',\n')}\n]`));
  return file;
}

const window = { start: '2026-01-01', end: '2026-01-31', flag: 'paid' as const };

async function load(file: string, fetchedAt: string, overrides: Partial<LandedSales> = {}) {
  return warehouse.transaction(() =>
    loadLandedSales(warehouse, config, {
      path: file,
      runId: `run-${path.basename(file)}`,
      endpoint: 'salesByPeriod',
      fetchedAt: new Date(fetchedAt),
      bytes: 1,
      window,
      ...overrides,
    }),
  );
}

describe('transactionDate parsing in SQL', () => {
  it(
    'reads ISO with offset, ISO without (configured zone), ' + 'dd/MM/yyyy (configured zone), and nothing else',
    async () => {
      const cases: [string, string | null][] = [
        ['2026-01-15T10:20:30-03:00', '2026-01-15T13:20:30Z'],
        ['2026-01-15T10:20:30Z', '2026-01-15T10:20:30Z'],
        ['2026-01-15T10:20:30.250+0530', '2026-01-15T04:50:30.250Z'],
        ['2026-01-15 10:20:30+00', '2026-01-15T10:20:30Z'],
        ['2026-01-15T10:20:30', '2026-01-15T13:20:30Z'], // São Paulo is UTC-3
        ['2026-01-15T23:59', '2026-01-16T02:59:00Z'],
        ['2026-01-15', '2026-01-15T03:00:00Z'],
        ['15/01/2026 10:20:30', '2026-01-15T13:20:30Z'],
        ['2026-02-30T10:00:00', null],
        ['31/02/2026 10:00:00', null],
        ['01/15/2026 10:20:30', null],
        ['yesterday', null],
        ['', null],
        ['1736947230', null],
      ];
      for (const [text, expected] of cases) {
        const row = await warehouse.one<{ utc: string | null }>(
          `SELECT strftime(timezone('UTC', (${transactionAtSql('t', config.timezone)})), '%Y-%m-%dT%H:%M:%S.%g') AS ` +
            `utc FROM (SELECT ${sqlString(text)} AS t)`,
        );
        const got = row!.utc === null ? null : `${row!.utc.replace(/\.000$/, '')}Z`;
        expect({ text, got }).toEqual({ text, got: expected });
      }
    },
  );
});

describe('loading a landed sales response', () => {
  let file: string;
  let counts: Awaited<ReturnType<typeof load>>;

  beforeAll(async () => {
    file = land('first', [
      sale(1, { status: '"delivered"' }), // 0: superseded by record 11
      sale(2, {
        transactionDate: '"2026-01-15T10:20:30"',
        salesPrice: '12345678901234.5678',
        unknownField: '{"nested": [1, 2]}',
      }),
      sale(3, { transactionDate: '"15/01/2026 10:20:30"', status: '"On hold"' }),
      sale(4, { transactionDate: '"last tuesday"' }), // 3: loaded with NULL date, quarantined
      sale(5, { salesPrice: '' }), // 4: missing
      sale(6, { partnerCostPrice: '"17.50"' }), // 5: wrong type
      sale(7, { salesPrice: '1.23456' }), // 6: too many decimals
      sale(8, { transactionId: '"8"' }), // 7: wrong type
      '42', // 8: not an object
      sale(9, { keySentToCustomer: 'null', countryCode: 'null', salesPrice: '1e1' }), // 9: optional nulls are fine
      sale(10, { partnerReference: '"  "' }), // 10: empty
      sale(1, { status: '"Redeemed by Client"', salesPrice: '20.10' }), // 11: the duplicate kept
    ]);
    counts = await load(file, '2026-02-01T12:00:00Z');
  });

  it('conserves counts: every record is loaded or kept in quarantine', async () => {
    expect(counts).toMatchObject({
      records: 12,
      loaded: 5,
      notLoaded: 7,
      duplicates: 1,
      unparseableDates: 1,
      newSales: 5,
      statusChanges: 0,
    });
    expect(counts.records).toBe(counts.loaded + counts.notLoaded);
    expect(counts.quarantined).toBe(8); // 7 not loaded + 1 loaded with an unreadable date
    const sales = await warehouse.all<{ transaction_id: string }>(
      'SELECT transaction_id FROM sales ORDER BY transaction_id',
    );
    expect(sales.map((r) => Number(r.transaction_id))).toEqual([1, 2, 3, 4, 9]);
  });

  it('quarantines each bad record whole, with its reason and place in the file', async () => {
    const rows = await warehouse.all<{
      record_index: string;
      reason: string;
      raw: string;
      landing_path: string;
      transaction_id: string | null;
    }>('SELECT record_index, reason, raw, landing_path, transaction_id FROM sales_quarantine ORDER BY record_index');
    const byIndex = Object.fromEntries(rows.map((r) => [Number(r.record_index), r]));
    expect(Object.keys(byIndex).map(Number)).toEqual([0, 3, 4, 5, 6, 7, 8, 10]);
    expect(rows.every((r) => r.landing_path === file)).toBe(true);
    expect(byIndex[0]!.reason).toMatch(/duplicate transactionId 1: record 11 .* loaded instead/);
    // a superseded record's text is read again from the file (its typing kept none: it looked clean)
    expect(byIndex[0]!.raw).toBe(sale(1, { status: '"delivered"' }));
    expect(byIndex[3]!.reason).toBe('transactionDate is not ISO 8601 or dd/MM/yyyy HH:mm:ss: "last tuesday"');
    expect(byIndex[4]!.reason).toBe('missing salesPrice');
    expect(byIndex[5]!.reason).toBe('partnerCostPrice is a string, expected a number');
    expect(byIndex[6]!.reason).toBe('salesPrice 1.23456 has more than 4 decimal places');
    expect(byIndex[7]!.reason).toBe('transactionId is a string, expected an integer');
    expect(byIndex[7]!.transaction_id).toBeNull();
    expect(byIndex[8]!.reason).toBe('not a JSON object but an integer');
    expect(byIndex[10]!.reason).toBe('partnerReference is empty');
    expect(byIndex[4]!.raw).toBe(sale(5, { salesPrice: '' }));
  });

  it('types every column: exact money, dates in the configured zone, status classes, raw date text kept', async () => {
    const rows = await warehouse.all(
      `SELECT transaction_id, sales_price::VARCHAR AS sales_price, partner_cost_price::VARCHAR AS cost, status,
        status_class,
              strftime(timezone('UTC', transaction_at), '%Y-%m-%dT%H:%M:%S') AS utc, transaction_date_raw, key,
                key_sent_to_customer,
              country_code, seen_by_paid, strftime(paid_window_start, '%Y-%m-%d') AS paid_window_start, seen_by_created
       FROM sales ORDER BY transaction_id`,
    );
    expect(rows).toEqual([
      expect.objectContaining({
        transaction_id: '1',
        sales_price: '20.1000',
        status: 'Redeemed by Client',
        status_class: 'redeemed',
        utc: '2026-01-15T13:20:30',
      }),
      expect.objectContaining({
        transaction_id: '2',
        sales_price: '12345678901234.5678',
        cost: '17.5125',
        utc: '2026-01-15T13:20:30',
      }),
      expect.objectContaining({
        transaction_id: '3',
        status_class: 'unknown',
        utc: '2026-01-15T13:20:30',
        transaction_date_raw: '15/01/2026 10:20:30',
      }),
      expect.objectContaining({ transaction_id: '4', utc: null, transaction_date_raw: 'last tuesday' }),
      expect.objectContaining({
        transaction_id: '9',
        sales_price: '10.0000',
        key_sent_to_customer: null,
        country_code: null,
      }),
    ]);
    expect(
      rows.every((r) => r.seen_by_paid === true && r.paid_window_start === '2026-01-01' && r.seen_by_created === false),
    ).toBe(true);
  });

  it('records the landing file and the first observation of each status', async () => {
    const landing = await warehouse.one(
      'SELECT records, quarantined, endpoint, by_flag FROM landing_files WHERE path = $1',
      [file],
    );
    expect(landing).toEqual({ records: '12', quarantined: '8', endpoint: 'salesByPeriod', by_flag: 'paid' });
    const history = await warehouse.all(
      'SELECT transaction_id, status, previous_status FROM sales_status_history ORDER BY transaction_id',
    );
    expect(history).toHaveLength(5);
    expect(history[0]).toEqual({ transaction_id: '1', status: 'Redeemed by Client', previous_status: null });
  });

  it('a re-fetch of the window updates sales, appends only status changes, and replaces the quarantine', async () => {
    const again = land('second', [
      sale(1, { salesPrice: '20.10' }),
      sale(2, {
        transactionDate: '"2026-01-15T10:20:30"',
        salesPrice: '12345678901234.5678',
        status: '"Canceled in stock"',
      }),
      sale(3, { transactionDate: '"15/01/2026 10:20:30"', status: '"On hold"' }),
      sale(4, { transactionDate: '"2026-01-16T08:00:00-03:00"' }),
      sale(5, { salesPrice: '' }),
      sale(9, { keySentToCustomer: 'null', countryCode: 'null', salesPrice: '1e1' }),
    ]);
    const second = await load(again, '2026-02-10T12:00:00Z');
    expect(second).toMatchObject({
      records: 6,
      loaded: 5,
      notLoaded: 1,
      quarantined: 1,
      newSales: 0,
      statusChanges: 1,
    });
    const quarantine = await warehouse.all('SELECT landing_path, record_index FROM sales_quarantine');
    expect(quarantine).toEqual([{ landing_path: again, record_index: '4' }]);
    const history = await warehouse.all(
      'SELECT status, previous_status FROM sales_status_history WHERE transaction_id = 2 ORDER BY observed_at',
    );
    expect(history).toEqual([
      { status: 'Redeemed by Client', previous_status: null },
      { status: 'Canceled in stock', previous_status: 'Redeemed by Client' },
    ]);
    const sale2 = await warehouse.one(
      `SELECT status_class, strftime(timezone('UTC', first_seen_at), '%Y-%m-%d') AS first, strftime(timezone('UTC', ` +
        `last_seen_at), '%Y-%m-%d') AS last FROM sales WHERE transaction_id = 2`,
    );
    expect(sale2).toEqual({ status_class: 'canceled', first: '2026-02-01', last: '2026-02-10' });
    const sale4 = await warehouse.one(
      `SELECT strftime(timezone('UTC', transaction_at), '%H:%M') AS t FROM sales WHERE transaction_id = 4`,
    );
    expect(sale4).toEqual({ t: '11:00' });
    expect(await warehouse.one('SELECT count(*) AS n FROM sales')).toEqual({ n: '5' });
  });

  it('a creation-date window sets the created flag and keeps the paid one', async () => {
    const created = land('created', [sale(1, { salesPrice: '20.10' })]);
    await load(created, '2026-02-11T12:00:00Z', {
      window: { start: '2026-01-01', end: '2026-01-31', flag: 'created' },
    });
    const row = await warehouse.one(
      `SELECT seen_by_paid, strftime(paid_window_start, '%Y-%m-%d') AS p, seen_by_created, ` +
        `strftime(created_window_start, '%Y-%m-%d') AS c FROM sales WHERE transaction_id = 1`,
    );
    expect(row).toEqual({ seen_by_paid: true, p: '2026-01-01', seen_by_created: true, c: '2026-01-01' });
  });

  it('loads an empty response as zero records', async () => {
    const empty = land('empty', []);
    const result = await load(empty, '2026-02-12T12:00:00Z', {
      window: { start: '2026-03-01', end: '2026-03-31', flag: 'paid' },
    });
    expect(result).toMatchObject({ records: 0, loaded: 0, quarantined: 0 });
  });

  it('fails loudly, naming nothing it half-wrote, when the body is not a JSON array', async () => {
    const broken = path.join(dir, 'broken.json.gz');
    writeFileSync(broken, gzipSync('{"error": "oops"'));
    const before = await warehouse.one('SELECT count(*) AS n FROM landing_files');
    await expect(load(broken, '2026-02-12T12:00:00Z')).rejects.toThrow();
    expect(await warehouse.one('SELECT count(*) AS n FROM landing_files')).toEqual(before);
  });
});

describe('records stored unchanged are not parsed again', () => {
  const created = { start: '2026-01-01', end: '2026-01-31', flag: 'created' as const };
  const sales = () =>
    warehouse.all(`SELECT * EXCLUDE (first_seen_at, last_seen_at, seen_by_paid, paid_window_start, seen_by_created,
      created_window_start, last_run_id)
                   FROM sales WHERE transaction_id BETWEEN 9100 AND 9199 ORDER BY transaction_id`);
  const quarantine = (flag: string) =>
    warehouse.all(
      `SELECT record_index, transaction_id, reason FROM sales_quarantine WHERE by_flag = $1 AND transaction_id ` +
        `BETWEEN 9100 AND 9199 ORDER BY record_index`,
      [flag],
    );

  it(
    'a second window with the same records takes them from the stored ' +
      'sales: same rows, same counts, every quarantine rule kept',
    async () => {
      const records = [
        sale(9101),
        sale(9102, { transactionDate: '"yesterday"' }),
        sale(9103, { partnerCostPrice: '' }),
        sale(9104),
        sale(9104),
      ];
      const paid = await load(land('unchanged-paid', records), '2026-02-01T10:00:00Z');
      const before = await sales();
      const unchanged = await load(land('unchanged-created', records), '2026-02-01T10:05:00Z', { window: created });
      // The same counts: 5 records, the duplicate and the missing cost not loaded, the unreadable date quarantined in
      // each window.
      expect({ ...unchanged, newSales: paid.newSales }).toEqual(paid);
      expect(paid).toMatchObject({
        records: 5,
        loaded: 3,
        notLoaded: 2,
        duplicates: 1,
        unparseableDates: 1,
        newSales: 3,
      });
      expect(unchanged).toMatchObject({ newSales: 0 });
      expect(await sales()).toEqual(before);
      expect(await quarantine('created')).toEqual(await quarantine('paid'));
      expect((await quarantine('created')).map((q) => q.transaction_id)).toEqual(['9102', '9103', '9104']);
      const seen = await warehouse.all(
        `SELECT transaction_id, seen_by_paid, seen_by_created FROM sales WHERE transaction_id IN (9101, 9104) ORDER BY
          1`,
      );
      expect(seen).toEqual([
        { transaction_id: '9101', seen_by_paid: true, seen_by_created: true },
        { transaction_id: '9104', seen_by_paid: true, seen_by_created: true },
      ]);
    },
  );

  it('a changed record is parsed and rewritten, with its status change in the history', async () => {
    const counts = await load(
      land('changed', [sale(9101, { status: '"Canceled in stock"' }), sale(9104)]),
      '2026-02-02T10:00:00Z',
    );
    expect(counts).toMatchObject({ records: 2, loaded: 2, statusChanges: 1, newSales: 0 });
    expect(await warehouse.one(`SELECT status, status_class FROM sales WHERE transaction_id = 9101`)).toEqual({
      status: 'Canceled in stock',
      status_class: 'canceled',
    });
    expect(
      await warehouse.all(
        `SELECT status, previous_status FROM sales_status_history WHERE transaction_id = 9101 ORDER BY observed_at`,
      ),
    ).toEqual([
      { status: 'Redeemed by Client', previous_status: null },
      { status: 'Canceled in stock', previous_status: 'Redeemed by Client' },
    ]);
  });

  it('a changed record replaces its stored row whole: once, with what that row had seen', async () => {
    // 9101 was first seen by the paid window on 2026-02-01 (canceled since); a creation-date window brings a new cost.
    const counts = await load(
      land('changed-created', [sale(9101, { status: '"Canceled in stock"', partnerCostPrice: '9.99' })]),
      '2026-02-04T10:00:00Z',
      {
        window: created,
      },
    );
    expect(counts).toMatchObject({ records: 1, loaded: 1, statusChanges: 0, newSales: 0 });
    expect(
      await warehouse.all(
        `SELECT partner_cost_price, strftime(timezone('UTC', first_seen_at), '%Y-%m-%d') AS first,
                strftime(timezone('UTC', last_seen_at), '%Y-%m-%d') AS last, seen_by_paid,
                strftime(paid_window_start, '%Y-%m-%d') AS p, seen_by_created, strftime(created_window_start,
                  '%Y-%m-%d') AS c,
                last_run_id
         FROM sales WHERE transaction_id = 9101`,
      ),
    ).toEqual([
      {
        partner_cost_price: '9.9900',
        first: '2026-02-01',
        last: '2026-02-04',
        seen_by_paid: true,
        p: '2026-01-01',
        seen_by_created: true,
        c: '2026-01-01',
        last_run_id: 'run-changed-created.json.gz',
      },
    ]);
  });

  it('a record whose hash a stored sale of another transaction id has is typed, not taken for that sale', async () => {
    // A 64-bit hash collision, made by hand: 9111's stored hash set to that of 9112's record.
    await load(land('collision-stored', [sale(9111)]), '2026-02-05T10:00:00Z');
    const file = land('collision-landed', [sale(9112)]);
    const landedHash = await warehouse.one<{ h: string }>(
      `SELECT record_hash::VARCHAR AS h FROM (${landedRecordsSql({ path: file, compressed: true }, config)})`,
    );
    await warehouse.run(`UPDATE sales SET record_hash = $1::UHUGEINT WHERE transaction_id = 9111`, [landedHash!.h]);
    const counts = await load(file, '2026-02-05T10:05:00Z', { window: created });
    expect(counts).toMatchObject({ records: 1, loaded: 1, newSales: 1 });
    expect(
      await warehouse.all(
        `SELECT transaction_id, seen_by_paid, seen_by_created FROM sales WHERE transaction_id IN (9111, 9112)
         ORDER BY 1`,
      ),
    ).toEqual([
      { transaction_id: '9111', seen_by_paid: true, seen_by_created: false },
      { transaction_id: '9112', seen_by_paid: false, seen_by_created: true },
    ]);
    // The join's build side chosen for the hashing pass is DuckDB's own again after it.
    expect(await warehouse.one(`SELECT current_setting('disabled_optimizers') AS off`)).toEqual({ off: '' });
  });

  it('changed settings (the status map) make the same JSON be parsed again under them', async () => {
    const file = land('remapped', [sale(9104)]);
    const remapped = configSchema.parse({
      ...config,
      reconciliation: { statusMap: { 'Redeemed by Client': 'booked' } },
    });
    await warehouse.transaction(() =>
      loadLandedSales(warehouse, remapped, {
        path: file,
        runId: 'run-remapped',
        endpoint: 'salesByPeriod',
        fetchedAt: new Date('2026-02-03T10:00:00Z'),
        bytes: 1,
        window,
      }),
    );
    expect(await warehouse.one(`SELECT status_class FROM sales WHERE transaction_id = 9104`)).toEqual({
      status_class: 'booked',
    });
  });
});

describe('a window whose dates hold no stored sale is typed whole, without the hashing pass', () => {
  // The month's first window after a back-fill: its sales are new but for the last day of December, whose sales a
  // creation-date window stored already and this paid window brings again unchanged (or changed: 9302).
  const december = { start: '2025-12-31', end: '2025-12-31', flag: 'created' as const };
  const lastDay = '"2025-12-31T23:00:00-03:00"';
  const backfill = [sale(9301, { transactionDate: lastDay }), sale(9302, { transactionDate: lastDay })];
  const month = [
    sale(9301, { transactionDate: lastDay }),
    sale(9302, { transactionDate: lastDay, status: '"Canceled in stock"' }),
    ...[9303, 9304, 9305].map((id) => sale(id)),
    sale(9306, { salesPrice: '"oops"' }),
    sale(9303, { partnerCostPrice: '17.00' }),
  ];
  const tables = {
    sales: 'SELECT * EXCLUDE (first_seen_at, last_seen_at) FROM sales ORDER BY transaction_id',
    history: 'SELECT * FROM sales_status_history ORDER BY transaction_id, observed_at',
    quarantine: 'SELECT * EXCLUDE (landing_path, quarantined_at) FROM sales_quarantine ORDER BY record_index',
  };

  /**
   * Loads the back-fill, then the month's paid window, into a fresh file; with `counted`, the client's count; with
   * `copies`, from uncompressed copies of the files, as a download leaves them (the gzip files removed, so only the
   * copies can be read).
   */
  async function loadBoth(name: string, counted: boolean, copies = false) {
    const db = path.join(dir, `${name}.duckdb`);
    const fresh = configSchema.parse({ ...config, database: db });
    const house = await Warehouse.open(db, { timezone: fresh.timezone });
    try {
      const landedOf = (file: string, w: LandedSales['window'], records: number): LandedSales => {
        const copy = file.replace(/\.gz$/, '');
        if (copies) {
          writeFileSync(copy, gunzipSync(readFileSync(file)));
          rmSync(file);
        }
        return {
          path: file,
          runId: `run-${w!.flag}`,
          endpoint: 'salesByPeriod',
          fetchedAt: new Date('2026-02-01T10:00:00Z'),
          bytes: 1,
          window: w,
          ...(counted && { records }),
          ...(copies && { uncompressedCopy: copy }),
        };
      };
      const first = landedOf(land(`${name}-backfill`, backfill), december, backfill.length);
      const second = landedOf(land(`${name}-month`, month), window, month.length);
      const needed = [await hashPassNeeded(house, fresh, first)];
      await house.transaction(() => loadLandedSales(house, fresh, first));
      needed.push(await hashPassNeeded(house, fresh, second));
      const counts = await house.transaction(() => loadLandedSales(house, fresh, second));
      // Brought again whole: the stored rows are in the window's dates now, so a re-fetch hashes first.
      needed.push(await hashPassNeeded(house, fresh, { ...second, window: december }));
      const rows: Record<string, unknown> = {};
      for (const [table, sql] of Object.entries(tables)) rows[table] = await house.all(sql);
      return { needed, counts, rows };
    } finally {
      house.close();
    }
  }

  it('gives exactly the result of the hashing pass: rows, history, quarantine and counts', async () => {
    const hashed = await loadBoth('hashed', false);
    const typed = await loadBoth('typed', true);
    expect(hashed.needed).toEqual([true, true, true]);
    expect(typed.needed).toEqual([false, false, true]);
    expect(typed.counts).toEqual(hashed.counts);
    expect(typed.counts).toMatchObject({ records: 7, loaded: 5, newSales: 3, statusChanges: 1, duplicates: 1 });
    expect(typed.rows).toEqual(hashed.rows);
    expect((typed.rows.sales as unknown[]).length).toBe(5);
  });

  it("reads a download's uncompressed copy to the same result, both ways", async () => {
    const hashed = await loadBoth('hashed-copy', false, true);
    const typed = await loadBoth('typed-copy', true, true);
    const reference = await loadBoth('reference', true);
    expect(hashed.needed).toEqual([true, true, true]);
    expect(hashed.counts).toEqual(reference.counts);
    expect(typed.counts).toEqual(reference.counts);
    expect(hashed.rows).toEqual(reference.rows);
    expect(typed.rows).toEqual(reference.rows);
  });
});
