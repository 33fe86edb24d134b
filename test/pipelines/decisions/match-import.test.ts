/**
 * `findings import`'s Suggested matches rows (issue 29): a bad row — an unknown suggestion, a word other than confirm
 * or reject, a side another row already confirmed — is refused with its reason and row number, counted and told on
 * the console, and the good rows are still recorded, next to the finding sheets' decisions.
 */
import ExcelJS from 'exceljs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { importDecisions } from '../../../pipelines/decisions/findings.js';
import { listMatches } from '../../../pipelines/decisions/matches.js';
import { reconcile } from '../../../pipelines/reconcile/reconcile.js';
import {
  asOf,
  capturingOutput,
  fixtureForEachTest,
  insertLedger,
  insertSales,
  ledgerFor,
  period,
  sale,
} from '../../support/reconcile.js';

const f = fixtureForEachTest();

/** A workbook with a Missing sheet (finding decisions) and a Suggested matches sheet, rows as given. */
async function workbook(file: string, findings: string[][], matches: string[][]): Promise<string> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Missing').addRows([['Finding ID', 'Decision', 'Note'], ...findings]);
  book.addWorksheet('Suggested matches').addRows([['Suggestion ID', 'Decision', 'Note'], ...matches]);
  await book.xlsx.writeFile(file);
  return file;
}

test('a bad Suggested matches row is refused with its reason and row; the good rows are recorded', async () => {
  // two ledger spellings near one sale (two suggestions sharing it), and two more near misses of their own
  const shared = sale({ partner_reference: 'PO-2026-0009401', product_id: 11 });
  const other = sale({
    partner_reference: 'PO-2026-0009601',
    product_id: 12,
    transaction_at: '2024-03-15T12:00:00-03:00',
  });
  const third = sale({
    partner_reference: 'PO-2026-0009701',
    product_id: 13,
    transaction_at: '2024-03-20T12:00:00-03:00',
  });
  const alone = sale({ partner_reference: 'PO-2026-0009999', product_id: 14 });
  await insertSales(f.warehouse, [shared, other, third]);
  await insertLedger(f.warehouse, [
    ledgerFor(shared, { partner_reference: 'PO-2026-009401' }),
    ledgerFor(shared, { partner_reference: 'po-2026-0009401' }),
    ledgerFor(other, { partner_reference: 'PO 2026 0009601' }),
    ledgerFor(third, { partner_reference: 'PO-2026-O009701' }),
    ledgerFor(alone), // no sale: a missing_at_provider finding to decide next to the matches
  ]);
  await reconcile(f.warehouse, f.config, { period, asOf }, capturingOutput().output);
  const proposed = await listMatches(f.warehouse, { period });
  const id = (ledger: string) => proposed.find((r) => r.ledger_reference === ledger)!.suggestion_id;
  const [finding] = await f.warehouse.all<{ finding_id: string }>(
    `SELECT finding_id FROM recon_exceptions WHERE period = $1 AND partner_reference = 'PO-2026-0009999'`,
    [period],
  );
  const file = await workbook(
    path.join(f.dir, 'typed.xlsx'),
    [[finding!.finding_id, 'investigating', 'asked the shop']],
    [
      [id('PO-2026-009401'), 'confirm', ''], // row 2: recorded
      [id('po-2026-0009401'), 'confirm', ''], // row 3: its sale is row 2's
      ['not-a-suggestion', 'confirm', ''], // row 4: unknown
      [id('PO 2026 0009601'), 'maybe', ''], // row 5: not a decision
      [id('PO-2026-O009701'), 'reject', 'another customer'], // row 6: recorded
    ],
  );
  const console = capturingOutput();
  const result = await importDecisions(f.warehouse, file, { by: 'Ana Lima', timezone: 'UTC' }, console.output);

  expect(result.recorded.map((r) => [r.findingId, r.decision])).toEqual([[finding!.finding_id, 'investigating']]);
  expect(result.matches).toMatchObject({ confirmed: 1, rejected: 1 });
  expect(result.matches.refused.map((r) => [r.sheet, r.row, r.suggestionId])).toEqual([
    ['Suggested matches', 3, id('po-2026-0009401')],
    ['Suggested matches', 4, 'not-a-suggestion'],
    ['Suggested matches', 5, id('PO 2026 0009601')],
  ]);
  const [taken, unknown, word] = result.matches.refused.map((r) => r.reason);
  expect(taken).toBe(
    `the sale ${shared.transaction_id} is already part of the confirmed match ${id('PO-2026-009401')} ` +
      `(PO-2026-009401 ↔ sale ${shared.transaction_id}); reject that one first if it was wrong`,
  );
  expect(unknown).toBe('no suggested match not-a-suggestion (see pinrecon matches list)');
  expect(word).toBe('Decision must be confirm or reject, got "maybe"');
  expect(result.matches.rows.map((r) => [r.row, r.outcome])).toEqual([
    [2, 'confirmed'],
    [3, 'refused'],
    [4, 'refused'],
    [5, 'refused'],
    [6, 'rejected'],
  ]);
  const text = console.text();
  expect(text).toContain('recorded 2 match decision(s) by Ana Lima');
  expect(text).toContain('refused 3 Suggested matches row(s):');
  expect(text).toContain(`refused   Suggested matches row 4: not-a-suggestion: no suggested match not-a-suggestion`);

  const statuses = await listMatches(f.warehouse, { period });
  expect(statuses.map((r) => [r.ledger_reference, r.status]).sort()).toEqual([
    ['PO 2026 0009601', 'proposed'],
    ['PO-2026-009401', 'confirmed'],
    ['PO-2026-O009701', 'rejected'],
    ['po-2026-0009401', 'proposed'],
  ]);
});
