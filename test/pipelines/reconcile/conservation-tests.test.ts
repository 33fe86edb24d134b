/**
 * The two conservation data tests (sql/tests/*_classified_exactly_once.sql) catch a lost row of the period
 * whatever the zone: a sale or ledger line dated on the period's first or last local day, in the zones furthest
 * from UTC (+14 and -11), that no match class lists fails the test; a row of another local date does not. Each test
 * works out local dates only within a day of the period in UTC: these rows sit at the edges of that window.
 */
import { describe, expect, it } from 'vitest';
import { declareInput, loadTests } from '../../../core/model-runner.js';
import type { Warehouse } from '../../../core/warehouse.js';
import { fixtureForEachTest, insertLedger, insertSales, ledgerFor, sale } from '../../support/reconcile.js';

const f = fixtureForEachTest();

/** The period 2024-03 in `timezone`, and no row classified: every row of the period is a lost one. */
async function nothingClassified(warehouse: Warehouse, timezone: string): Promise<void> {
  await declareInput(warehouse, 'cfg_params');
  await warehouse.run(
    `INSERT INTO cfg_params BY NAME SELECT '2024-03' AS period, DATE '2024-03-01' AS period_start,
       DATE '2024-03-31' AS period_end, now() AS scope_starts_at, now() AS scope_ends_at, DATE '2024-04-05' AS as_of,
       0 AS cost_tolerance, 0 AS price_tolerance, 3 AS unredeemed_after_days, $1 AS timezone, 'run' AS run_id,
       now() AS built_at, 0 AS lookups, 0 AS lookups_found, true AS complete`,
    [timezone],
  );
  await warehouse.run(
    `CREATE OR REPLACE TEMP TABLE int_recon_rows_classified (side VARCHAR, ledger_line_id BIGINT,
       transaction_id BIGINT, partner_reference VARCHAR, is_in_period BOOLEAN, match_class VARCHAR)`,
  );
}

async function failing(warehouse: Warehouse, test: string): Promise<Record<string, unknown>[]> {
  const sql = loadTests().find((t) => t.name === test)!.sql;
  return warehouse.all(`SELECT * FROM (\n${sql}\n) AS failing`);
}

/** Instants at the edges of 2024-03 in a zone: 00:30 on its first local day and 23:30 on its last. */
const edges = [
  { zone: 'Pacific/Kiritimati', first: '2024-03-01T00:30:00+14:00', last: '2024-03-31T23:30:00+14:00' },
  { zone: 'Pacific/Pago_Pago', first: '2024-03-01T00:30:00-11:00', last: '2024-03-31T23:30:00-11:00' },
];

describe.each(edges)('in $zone', ({ zone, first, last }) => {
  it('a sale of the period no class lists fails sales_classified_exactly_once; one of February does not', async () => {
    const lost = [sale({ transaction_at: first }), sale({ transaction_at: last })];
    const before = sale({ transaction_at: first.replace('2024-03-01T00:30', '2024-02-29T23:30') });
    await insertSales(f.warehouse, [...lost, before]);
    await nothingClassified(f.warehouse, zone);
    const ids = (await failing(f.warehouse, 'sales_classified_exactly_once')).map((row) => Number(row.transaction_id));
    expect(ids.sort()).toEqual(lost.map((s) => s.transaction_id).sort());
  });

  it('a ledger line of the period that no class lists fails ledger_lines_classified_exactly_once', async () => {
    const lost = [ledgerFor(sale({ transaction_at: first })), ledgerFor(sale({ transaction_at: last }))];
    const after = ledgerFor(sale({ transaction_at: last.replace('2024-03-31T23:30', '2024-04-01T00:30') }));
    await insertLedger(f.warehouse, [...lost, after]);
    await nothingClassified(f.warehouse, zone);
    const lines = (await failing(f.warehouse, 'ledger_lines_classified_exactly_once')).map((row) =>
      Number(row.source_line),
    );
    expect(lines.sort()).toEqual(lost.map((line) => line.source_line).sort());
  });
});

describe('a sale without a date', () => {
  it('fails sales_classified_exactly_once when it shares a reference of the period, else not', async () => {
    const shared = sale({ transaction_at: null, partner_reference: 'PO-OF-THE-PERIOD' });
    const alone = sale({ transaction_at: null });
    await insertSales(f.warehouse, [shared, alone]);
    await nothingClassified(f.warehouse, 'America/Sao_Paulo');
    await f.warehouse.run(
      `INSERT INTO int_recon_rows_classified VALUES ('ledger', 1, NULL, 'PO-OF-THE-PERIOD', true, 'ledger_only')`,
    );
    const ids = (await failing(f.warehouse, 'sales_classified_exactly_once')).map((row) => Number(row.transaction_id));
    expect(ids).toEqual([shared.transaction_id]);
  });
});
