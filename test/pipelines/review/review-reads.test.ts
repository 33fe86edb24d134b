/**
 * The review page's findings list (issue 32) over a real DuckDB file: filters, search, sort and paging run in SQL
 * (LIMIT/OFFSET with the count on the same query), the last page and a page past the end keep the total, the ids
 * "every finding the filters choose" decides are exactly the ones counted, and a bad filter is refused before any
 * SQL is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filteredFindingIds,
  findingPage,
  parseFindingQuery,
  type FindingQuery,
} from '../../../pipelines/review/reads.js';
import { openFixture, type Fixture } from '../../support/reconcile.js';

const period = '2026-01';
const query = (text: string): FindingQuery => parseFindingQuery(period, new URLSearchParams(text));

describe('the review page findings list', () => {
  let f: Fixture;

  beforeAll(async () => {
    f = await openFixture();
    // 1,000 findings of three types, amounts i % 100 / 4 (exact quarters), a third of them decided.
    await f.warehouse.run(
      `INSERT INTO recon_exceptions (period, finding_id, exception_type, family, partner_reference,
        transaction_id, currency_code, details, first_detected_at, amount, as_of, built_at, run_id)
      SELECT $1, md5(i::VARCHAR),
        CASE i % 3 WHEN 0 THEN 'cost_mismatch' WHEN 1 THEN 'missing_in_ledger' ELSE 'price_mismatch' END,
        CASE i % 3 WHEN 0 THEN 'amounts' WHEN 1 THEN 'missing' ELSE 'amounts' END, 'PO-' || i, i, 'BRL', 'x', now(),
        (i % 100)::DECIMAL(18,4) / 4, DATE '2026-02-05', now(), 'r'
      FROM range(1000) t(i)`,
      [period],
    );
    await f.warehouse.run(
      `UPDATE recon_exceptions SET decision = 'investigating', owner = 'ops' WHERE transaction_id % 3 = 0`,
    );
  });

  afterAll(() => f?.cleanup());

  it('pages in SQL: 100 rows a page, the total on every page, none past the end', async () => {
    const first = await findingPage(f.warehouse, query(''));
    expect(first.total).toBe(1000);
    expect(first.rows).toHaveLength(100);
    const last = await findingPage(f.warehouse, query('page=10'));
    expect([last.total, last.rows.length]).toEqual([1000, 100]);
    const beyond = await findingPage(f.warehouse, query('page=11'));
    expect([beyond.total, beyond.rows.length]).toEqual([1000, 0]);
    const all = new Set<string>();
    for (let page = 1; page <= 10; page++)
      for (const row of (await findingPage(f.warehouse, query(`page=${page}`))).rows) all.add(row.finding_id);
    expect(all.size).toBe(1000);
  });

  it('filters, searches and sorts in SQL, amounts as exact decimal text', async () => {
    const costs = await findingPage(f.warehouse, query('type=cost_mismatch&sort=amount&dir=desc'));
    expect(costs.total).toBe(334);
    expect(costs.rows.every((r) => r.exception_type === 'cost_mismatch')).toBe(true);
    expect(costs.rows[0]!.amount).toBe('24.7500');
    const amounts = costs.rows.map((r) => Number(r.amount));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    const undecided = await findingPage(f.warehouse, query('decision=none'));
    expect(undecided.total).toBe(666);
    const owned = await findingPage(f.warehouse, query('owner=OP&state=decided'));
    expect(owned.total).toBe(334);
    const band = await findingPage(f.warehouse, query('min_amount=10&max_amount=10.25'));
    expect(band.total).toBe(20);
    expect(new Set(band.rows.map((r) => r.amount))).toEqual(new Set(['10.0000', '10.2500']));
    const search = await findingPage(f.warehouse, query('q=PO-99'));
    expect(search.rows.map((r) => r.partner_reference).sort()).toEqual(
      ['PO-99', ...Array.from({ length: 10 }, (_, i) => `PO-99${i}`)].sort(),
    );
    const byId = await findingPage(f.warehouse, query('q=123'));
    expect(byId.rows.map((r) => r.transaction_id)).toContain('123');
  });

  it('chooses for "every finding the filters choose" exactly the ids the list counts, over all pages', async () => {
    const chosen = await filteredFindingIds(f.warehouse, query('family=amounts&decision=none&page=3'));
    const listed = await findingPage(f.warehouse, query('family=amounts&decision=none'));
    expect(chosen).toHaveLength(listed.total);
    expect(listed.total).toBeGreaterThan(100);
  });

  it('refuses a bad filter before writing any SQL', () => {
    expect(() => query('type=drop table')).toThrow(/type must be one of/);
    expect(() => query("max_amount=1' OR 1=1")).toThrow(/max_amount must be an amount/);
    expect(() => query('sort=finding_id; DROP TABLE x')).toThrow(/sort must be one of/);
    expect(() => query('page=0')).toThrow(/page must be a whole number/);
  });
});
