/**
 * The review page's finding detail (issue 29): a reference_mismatch's two values are its references (text, in
 * ledger_value_text / provider_value_text beside the DECIMAL money columns), shown as its ledger and provider value;
 * a money finding's values stay its amounts.
 */
import { expect, test } from 'vitest';
import { findingPage } from '../../reports/page/findings.js';

const context = { period: '2024-03', csrf: 'token', actor: 'Ana', jobRunning: false, source: 'db', readOnly: null };
const view = (finding: Record<string, unknown>) =>
  findingPage(context, {
    finding: { finding_id: 'f1', period: '2024-03', family: 'missing', ...finding },
    ledger: [],
    sale: [],
    landing: [],
    lookups: [],
    suggestions: [],
    history: [],
    decisions: [],
  });
/** The text of the row named `label` of the page's facts. */
const fact = (html: string, label: string) => new RegExp(`<dt>${label}</dt><dd>([^<]*)</dd>`).exec(html)?.[1];

test('a reference_mismatch shows the two references as its values; a money finding its amounts', () => {
  const reference = view({
    exception_type: 'reference_mismatch',
    ledger_value: null,
    provider_value: null,
    ledger_value_text: 'PO-2026-009401',
    provider_value_text: 'PO-2026-0009401',
  });
  expect(fact(reference, 'Ledger value')).toBe('PO-2026-009401');
  expect(fact(reference, 'Provider value')).toBe('PO-2026-0009401');
  const cost = view({ exception_type: 'cost_mismatch', ledger_value: '10.0000', provider_value: '10.5000' });
  expect(fact(cost, 'Ledger value')).toBe('10.0000');
  expect(fact(cost, 'Provider value')).toBe('10.5000');
});
