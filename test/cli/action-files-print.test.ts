/**
 * The claim and the journal as printed documents (issue 30: the claim printed on US Letter over 15 pages, three
 * columns a page): a real `soffice --headless` converts a many-page claim and journal to PDF, and the PDF is read
 * (test/support/pdf.ts): landscape on the configured paper, the heading (partner, period, claim reference, totals)
 * on page 1, the table's header row on every page, every printed column across each page, no text under 8 pt.
 * Skips, saying why, only where LibreOffice is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../config/schema.js';
import { claimLayout, journalLayout } from '../../pipelines/actions/export-files.js';
import { writeActionFile } from '../../reports/action-files.js';
import { minimumTextPt } from '../../reports/print-layout.js';
import { convertWithSoffice, hasSoffice } from '../support/decisions.js';
import { readPdfPages, type PdfPage } from '../support/pdf.js';

const soffice = hasSoffice();
if (!soffice) console.warn('skipping the claim printout checks: `soffice` is not installed');

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-claim-print-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const smallestText = (page: PdfPage) =>
  Math.min(...page.runs.filter((run) => run.text.trim() !== '').map((run) => run.size));
const size = (page: PdfPage) => [page.mediaBox[2]! - page.mediaBox[0]!, page.mediaBox[3]! - page.mediaBox[1]!];

/** 150 claim lines with long products and notes, and their totals. */
function claimRows() {
  return Array.from({ length: 150 }, (_, i) => ({
    line_id: `A-2026-10-${String(i + 1).padStart(4, '0')}`,
    action_id: `A-2026-10-${String(i + 1).padStart(4, '0')}`,
    finding_id: `f${String(i).padStart(31, '0')}`,
    transaction_id: String(10_000_000 + i),
    partner_reference: `PO-2026-${String(i).padStart(7, '0')}`,
    provider_date: '2026-10-15',
    product: `${1500 + i} Gift card of a long product name number ${i}`,
    charged_cost: '9.0000',
    expected_cost: '8.0000',
    difference: '1.0000',
    currency: 'BRL',
    key_last4: '****AB12',
    note: 'over the price list of the period, ticket 123',
    exception_type: 'cost_mismatch',
    exported_before: null,
  }));
}

describe.skipIf(!soffice)('claims and journal printed through LibreOffice', () => {
  for (const paper of ['A4', 'letter'] as const) {
    it(`a claim of 150 lines prints as a document on ${paper} landscape`, async () => {
      const config = configSchema.parse({ reports: { paperSize: paper, partnerName: 'acme-shop' } });
      const totals = [{ currency: 'BRL', lines: '150', difference: '150.0000' }];
      const content = claimLayout(config, '2026-10', 'claim', 'X-2026-10-claim-01', claimRows(), totals, false);
      const file = path.join(dir, `claim-${paper}.xlsx`);
      await writeActionFile(file, 'xlsx', content);
      const pages = readPdfPages(await convertWithSoffice(file, path.join(dir, `pdf-${paper}`), 'pdf'));
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.length).toBeLessThanOrEqual(15); // 150 lines of three wrapped text lines each
      const [width, height] = size(pages[0]!);
      expect(width).toBeGreaterThan(height);
      expect(Math.round(height)).toBe(paper === 'A4' ? 595 : 612);
      expect(pages[0]!.text).toContain('Claim reference');
      expect(pages[0]!.text).toContain('CLM-2026-10-01');
      expect(pages[0]!.text).toContain('acme-shop');
      expect(pages[0]!.text).toContain('Amount claimed per currency');
      // Long texts wrap in their cells, whole (the row is as tall as they need), never cut at the column's edge.
      const whole = (text: string) => new RegExp(text.split(' ').join('\\s+'));
      expect(pages[0]!.text).toMatch(whole('1500 Gift card of a long product name number 0'));
      expect(pages[0]!.text).toMatch(whole('over the price list of the period, ticket 123'));
      for (const [i, page] of pages.entries()) {
        // The header row on every page, every printed column across it (the last one included).
        // (a header wraps in its column: "Transaction" over "ID")
        for (const header of ['Line', 'Transaction', 'Partner', 'Product', 'Charged', 'Agreed', 'Difference', 'Note'])
          expect(page.text, `page ${i + 1}: ${header}`).toContain(header);
        expect(smallestText(page), `page ${i + 1}`).toBeGreaterThanOrEqual(minimumTextPt);
      }
    });
  }

  it('a journal prints its nine GL columns across each page, header repeated, ≥ 8 pt', async () => {
    const config = configSchema.parse({});
    const rows = claimRows().flatMap((c, i) =>
      [1, 2].map((n) => ({
        line_id: `${c.action_id}-${n}`,
        action_id: c.action_id,
        finding_id: c.finding_id,
        date: '2026-10-31',
        entry_id: c.action_id,
        account: n === 1 ? '6100' : '2100',
        debit: n === 1 ? `${i}.5000` : null,
        credit: n === 2 ? `${i}.5000` : null,
        currency: 'BRL',
        memo: `write_off · cost_mismatch · ${c.partner_reference} · tx ${c.transaction_id} · small`,
        reference: c.partner_reference,
      })),
    );
    const totals = [{ currency: 'BRL', entries: '150', debit: '11325.0000', credit: '11325.0000', balanced: 'yes' }];
    const file = path.join(dir, 'journal.xlsx');
    const layout = journalLayout(config, '2026-10', 'X-2026-10-journal-01', rows, totals, false);
    await writeActionFile(file, 'xlsx', layout);
    const pages = readPdfPages(await convertWithSoffice(file, path.join(dir, 'pdf-journal'), 'pdf'));
    expect(pages.length).toBeGreaterThan(2);
    // Issue 30: the journal as a document: its heading on page 1 (period, export, whether it balances, debit and
    // credit per currency), as the claim's.
    expect(pages[0]!.text).toContain('Journal entries from the reconciliation, 2026-10');
    expect(pages[0]!.text).toContain('X-2026-10-journal-01');
    expect(pages[0]!.text).toMatch(/Balanced\s+yes: in every entry the debits equal the credits/);
    expect(pages[0]!.text).toMatch(/Debit and credit per currency\s+currency\s+debit\s+credit\s+entries\s+balanced/);
    expect(pages[0]!.text).toMatch(/BRL\s+R\$ 11,325\.00\s+R\$ 11,325\.00\s+150\s+yes/);
    for (const [i, page] of pages.entries()) {
      // "currency" whole: in a column of 8 its bold header printed "currenc" over "y".
      for (const header of ['date', 'entry_id', 'line_id', 'account', 'debit', 'credit', 'currency', 'memo'])
        expect(
          page.runs.some((run) => run.text.trim() === header),
          `page ${i + 1}: ${header}`,
        ).toBe(true);
      expect(page.text, `page ${i + 1}: reference`).toContain('reference');
      expect(smallestText(page), `page ${i + 1}`).toBeGreaterThanOrEqual(minimumTextPt);
    }
  });
});
