/**
 * The review page's findings list (issue 32) over a period of 100,000 findings: a page of 100 filtered, sorted
 * and counted in DuckDB (pipelines/review/reads.ts findingPage), for the queries a controller sends — the first
 * page, sorted by amount, the last page, one type, undecided only, a reference searched. What the README says a
 * page takes is this bench's result. Target: every page under 1 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Warehouse } from '../core/warehouse.js';
import { findingPage, parseFindingQuery } from '../pipelines/review/reads.js';
import { insertDecidedFindings } from './generators/findings.js';
import { timed, type BenchResult } from './harness.js';

export const name = 'review page: a page of 100,000 findings';

const findings = 100_000;
const period = '2025-03';
const timezone = 'America/Sao_Paulo';

/** The list's query strings, as the page's links and forms send them. */
const queries: Record<string, string> = {
  first_page: '',
  by_amount_desc: 'sort=amount&dir=desc',
  last_page: `page=${findings / 100}`,
  one_type: 'type=cost_mismatch&sort=reference',
  undecided: 'decision=none',
  searched: 'q=PO-0004',
};

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-review-'));
  const warehouse = await Warehouse.open(path.join(dir, 'bench.duckdb'), { timezone });
  try {
    await insertDecidedFindings(warehouse, period, findings);
    // Undecided ones too, so `decision=none` has rows to find.
    await warehouse.run(`UPDATE recon_exceptions SET decision = NULL WHERE transaction_id % 10 = 0; CHECKPOINT;`);
    const metrics: Record<string, number> = { findings };
    let slowest = 0;
    for (const [label, text] of Object.entries(queries)) {
      const query = parseFindingQuery(period, new URLSearchParams(text));
      await findingPage(warehouse, query); // the first read of the table is not what a page click costs
      const { seconds, value } = await timed(() => findingPage(warehouse, query));
      if (value.rows.length === 0) throw new Error(`${label}: no rows (${text})`);
      metrics[`${label}_s`] = Number(seconds.toFixed(3));
      metrics[`${label}_total`] = value.total;
      slowest = Math.max(slowest, seconds);
    }
    return {
      metrics,
      targets: [{ label: 'every page < 1 s', measured: `slowest ${slowest.toFixed(3)} s`, ok: slowest < 1 }],
      notes:
        'Each query is run once to warm the table, then timed once: findingPage, the function behind ' +
        '/findings and /findings.json (filter, sort, count and LIMIT/OFFSET in one DuckDB query), without HTTP ' +
        'or HTML.',
    };
  } finally {
    warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
