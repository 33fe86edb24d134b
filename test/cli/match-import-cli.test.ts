/**
 * `findings import --json` through the built CLI (issue 29): the Suggested matches rows' outcomes — confirmed,
 * rejected, refused with reason and row — are reported under `matches`, next to the finding decisions; a refused
 * match row makes the import exit 1 while the good rows are recorded.
 */
import ExcelJS from 'exceljs';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { reconcile } from '../../pipelines/reconcile/reconcile.js';
import { runCli } from '../support/cli.js';
import {
  asOf,
  capturingOutput,
  insertLedger,
  insertSales,
  ledgerFor,
  openFixture,
  period,
  sale,
} from '../support/reconcile.js';

interface ImportJson {
  ok: boolean;
  recorded: { findingId: string; decision: string }[];
  matches: {
    confirmed: number;
    rejected: number;
    refused: { sheet: string; row: number; suggestionId: string | null; reason: string }[];
    rows: { row: number; suggestionId: string | null; outcome: string }[];
  };
}

test('findings import --json reports the match rows next to the finding decisions; a refused one exits 1', async () => {
  const f = await openFixture();
  try {
    const confirmSale = sale({ partner_reference: 'PO-2026-0009401', product_id: 11 });
    const rejectSale = sale({ partner_reference: 'PO-2026-0009601', product_id: 12 });
    const noSale = sale({ partner_reference: 'PO-2026-0009999', product_id: 13 });
    await insertSales(f.warehouse, [confirmSale, rejectSale]);
    await insertLedger(f.warehouse, [
      ledgerFor(confirmSale, { partner_reference: 'PO-2026-009401' }),
      ledgerFor(rejectSale, { partner_reference: 'po-2026-0009601' }),
      ledgerFor(noSale),
    ]);
    await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
    const suggestions = await f.warehouse.all<{ ledger_reference: string; suggestion_id: string }>(
      'SELECT ledger_reference, suggestion_id FROM recon_match_suggestions WHERE period = $1',
      [period],
    );
    const id = (ledger: string) => suggestions.find((s) => s.ledger_reference === ledger)!.suggestion_id;
    const [finding] = await f.warehouse.all<{ finding_id: string }>(
      `SELECT finding_id FROM recon_exceptions WHERE period = $1 AND partner_reference = 'PO-2026-0009999'`,
      [period],
    );
    f.warehouse.close(); // the CLI opens the database itself

    const book = new ExcelJS.Workbook();
    book.addWorksheet('Missing').addRows([
      ['Finding ID', 'Decision', 'Note'],
      [finding!.finding_id, 'investigating', 'asked the shop'],
    ]);
    book.addWorksheet('Suggested matches').addRows([
      ['Suggestion ID', 'Decision', 'Note'],
      [id('PO-2026-009401'), 'confirm', ''],
      ['no-such-suggestion', 'confirm', ''],
      [id('po-2026-0009601'), 'reject', 'another customer'],
    ]);
    const file = path.join(f.dir, 'typed.xlsx');
    await book.xlsx.writeFile(file);
    writeFileSync(
      path.join(f.dir, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false },
      }),
    );

    const run = await runCli(['findings', 'import', file, '--by', 'Ana Lima', '--json'], {
      cwd: f.dir,
      env: { CI: 'true', PINRECON_SMTP_URL: '' },
    });
    expect(run.code, run.stderr).toBe(1);
    const json = JSON.parse(run.stdout) as ImportJson;
    expect(json.ok).toBe(false);
    expect(json.recorded.map((r) => [r.findingId, r.decision])).toEqual([[finding!.finding_id, 'investigating']]);
    expect(json.matches.confirmed).toBe(1);
    expect(json.matches.rejected).toBe(1);
    expect(json.matches.refused).toEqual([
      {
        sheet: 'Suggested matches',
        row: 3,
        suggestionId: 'no-such-suggestion',
        decision: 'confirm',
        reason: 'no suggested match no-such-suggestion (see pinrecon matches list)',
      },
    ]);
    expect(json.matches.rows.map((r) => [r.row, r.suggestionId, r.outcome])).toEqual([
      [2, id('PO-2026-009401'), 'confirmed'],
      [3, 'no-such-suggestion', 'refused'],
      [4, id('po-2026-0009601'), 'rejected'],
    ]);
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
}, 120_000);
