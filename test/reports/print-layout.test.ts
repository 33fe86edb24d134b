/**
 * How many lines a wrapped text takes (reports/print-layout.ts wrappedLines), the measure that sets a row's height
 * in the Summary and the claim and journal files (issue 30): too few lines and LibreOffice prints the text cut, too
 * many and the files run over more pages. The cases are what LibreOffice printed (test/cli/workbook-print.test.ts
 * and test/cli/action-files-print.test.ts check the PDFs themselves).
 */
import { expect, test } from 'vitest';
import { wrappedLines } from '../../reports/print-layout.js';

test('a header wraps by words: "Ledger expected cost (paid)" takes 3 lines of a bold column of 14, not 2', () => {
  expect(wrappedLines('Ledger expected cost (paid)', 14, true)).toBe(3);
  expect(wrappedLines('Ledger sales (paid)', 14, true)).toBe(2);
  expect(wrappedLines('Matched', 14, true)).toBe(1);
});

test('digits print wider than lowercase: a run id overflows a column of 23, a sentence of 129 fits 102', () => {
  expect(wrappedLines('20261126T234615Z-1f47ee49', 23)).toBe(2);
  expect(wrappedLines('2026-10-01 – 2026-10-31', 23)).toBe(1);
  const sentence =
    'Open = not decided write_off. From the previous reconciliation of the period to this one (on the first, ' +
    'nothing was open before).';
  expect(sentence).toHaveLength(129);
  expect(wrappedLines(sentence, 102)).toBe(1);
});

test('a line breaks after a hyphen too, so a journal memo takes 2 lines of its 40, not 3', () => {
  const memo = 'write_off · canceled_but_booked · PO-2026-0005754 · tx 10005754 · canceled at the provider';
  expect(wrappedLines(memo, 40)).toBe(2);
  // A word longer than a line breaks inside it.
  expect(wrappedLines('x'.repeat(30), 11)).toBe(3);
  expect(wrappedLines('', 10)).toBe(1);
});
