/**
 * A claim line prints on one line of the page (issue 30 item 6's look at the claims as PNGs): LibreOffice put a
 * number or date cell at the bottom of a row made tall by a wrapped product name, a line or two below the text
 * cells beside it. A real `soffice --headless` converts a claim to PDF, read with the text positions of
 * test/support/pdf.ts. Skips, saying why, only where LibreOffice is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../config/schema.js';
import { claimLayout } from '../../pipelines/actions/export-files.js';
import { writeActionFile } from '../../reports/action-files.js';
import { convertWithSoffice, hasSoffice } from '../support/decisions.js';
import { readPdfPages } from '../support/pdf.js';

const soffice = hasSoffice();
if (!soffice) console.warn('skipping the claim line check: `soffice` is not installed');

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-claim-align-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!soffice)('a claim printed through LibreOffice', () => {
  it('prints each line’s cells at the top of its row, its numbers beside its wrapped texts', async () => {
    const config = configSchema.parse({ reports: { paperSize: 'A4', partnerName: 'acme-shop' } });
    const rows = Array.from({ length: 5 }, (_, i) => ({
      line_id: `A-2026-10-000${i + 1}`,
      action_id: `A-2026-10-000${i + 1}`,
      finding_id: `f${String(i).padStart(31, '0')}`,
      transaction_id: String(10_000_000 + i),
      partner_reference: `PO-2026-${String(i).padStart(7, '0')}`,
      provider_date: '2026-10-15',
      // Wraps over three lines of its column: the row is three lines tall.
      product: `${1500 + i} Gift card of a long product name that wraps in its column number ${i}`,
      charged_cost: '9.0000',
      expected_cost: '8.0000',
      difference: '1.0000',
      currency: 'BRL',
      key_last4: '****AB12',
      note: 'over the price list',
      exception_type: 'cost_mismatch',
      exported_before: null,
    }));
    const totals = [{ currency: 'BRL', lines: '5', difference: '5.0000' }];
    const content = claimLayout(config, '2026-10', 'claim', 'X-2026-10-claim-01', rows, totals, false);
    const file = path.join(dir, 'claim.xlsx');
    await writeActionFile(file, 'xlsx', content);
    const [page] = readPdfPages(await convertWithSoffice(file, path.join(dir, 'pdf'), 'pdf'));
    for (const row of rows) {
      const line = page!.runs.find((run) => run.text === row.line_id);
      const transaction = page!.runs.find((run) => run.text === row.transaction_id);
      expect(line, row.line_id).toBeDefined();
      expect(transaction, row.transaction_id).toBeDefined();
      // On the same baseline, within a point.
      expect(Math.abs(line!.y - transaction!.y), `${row.line_id} and its transaction id`).toBeLessThan(1);
      // Issue 30, the claim looked at as a PNG: the transaction id (right-aligned) ran into the reference after
      // it, the date into the product, the money into the currency; each now stands a few points apart.
      const reference = page!.runs.find((run) => run.text === row.partner_reference)!;
      const date = page!.runs.find((run) => run.text === row.provider_date && Math.abs(run.y - line!.y) < 1)!;
      const product = page!.runs.find((run) => run.text.startsWith(`${row.product.split(' ')[0]} `))!;
      const difference = page!.runs.find((run) => run.text === 'R$ 1.00' && run.x > date.x + 100)!;
      const currency = page!.runs.find((run) => run.text === 'BRL' && Math.abs(run.y - line!.y) < 1)!;
      for (const [left, right] of [
        [transaction!, reference],
        [date, product],
        [difference, currency],
      ] as const)
        expect(right.x - (left.x + left.width), `"${left.text}" then "${right.text}"`).toBeGreaterThanOrEqual(3);
    }
    // The heading's labels stand clear of their values ("Claim reference" ran into "CLM-2026-10-01").
    const label = page!.runs.find((run) => run.text === 'Claim reference')!;
    const value = page!.runs.find((run) => run.text === 'CLM-2026-10-01')!;
    expect(value.x - (label.x + label.width)).toBeGreaterThanOrEqual(3);
  });
});
