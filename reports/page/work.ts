/**
 * The review page's suggested matches (confirm or reject, one or many) and actions (approve, as the identity the
 * page was started with: maker-checker refuses the one who decided or planned it, and the page says why).
 */
import { csrfField, esc, href, layout, table, type PageContext } from './html.js';

type Row = Record<string, unknown>;

function checkbox(name: string, id: string, label: string, form: string, enabled: boolean): string {
  if (!enabled) return '';
  return `<input type="checkbox" name="${name}" value="${esc(id)}" form="${form}" aria-label="Select ${esc(label)}">`;
}

export function matchesPage(context: PageContext, period: string, rows: Row[]): string {
  const list = table(
    `Suggested matches of ${period}, best first`,
    [
      'Select',
      'Suggestion',
      'Ledger reference',
      'Transaction',
      'Provider reference',
      'Score',
      'Status',
      'Reasons',
      'Decided by',
    ],
    rows.map((m) => [
      checkbox('id', String(m.suggestion_id), String(m.ledger_reference), 'decide-matches', m.status === 'proposed'),
      esc(m.suggestion_id),
      esc(m.ledger_reference),
      esc(m.transaction_id),
      esc(m.provider_reference),
      esc(m.score),
      esc(m.status),
      esc(m.reasons),
      esc(m.decided_by),
    ]),
    { numeric: [5] },
  );
  const disabled = context.readOnly ? ' disabled' : '';
  const form = `<form id="decide-matches" method="post" action="/matches/decide" aria-label="Decide suggested matches">
${csrfField(context)}<input type="hidden" name="period" value="${esc(period)}">
<input type="hidden" name="back" value="${esc(href('/matches', { period }))}">
<fieldset${disabled}><legend>The selected suggestions</legend>
<label>Note (needed to reject) <input type="text" name="note"></label>
<button type="submit" name="verb" value="confirm" id="confirm-matches">Confirm match</button>
<button type="submit" name="verb" value="reject" id="reject-matches">Reject</button>
</fieldset></form>`;
  return layout(`Suggested matches of ${period}`, context, `${list}\n${form}`, href('/matches.json', { period }));
}

export function actionsPage(context: PageContext, period: string, rows: Row[]): string {
  const list = table(
    `Actions of ${period}`,
    [
      'Select',
      'Action',
      'Kind',
      'Status',
      'Finding',
      'Reference',
      'Amount',
      'Currency',
      'Decided by',
      'Planned by',
      'Approved by',
    ],
    rows.map((a) => [
      checkbox('id', String(a.action_id), String(a.action_id), 'approve-actions', a.status === 'proposed'),
      esc(a.action_id),
      esc(a.kind),
      esc(a.status),
      `<a href="${esc(href(`/findings/${String(a.finding_id)}`))}">${esc(a.exception_type)}</a>`,
      esc(a.partner_reference),
      esc(a.amount),
      esc(a.currency_code),
      esc(a.decided_by),
      esc(a.proposed_by),
      esc(a.approved_by),
    ]),
    { numeric: [6] },
  );
  const form = `<form id="approve-actions" method="post" action="/actions/approve" aria-label="Approve actions">
${csrfField(context)}<input type="hidden" name="period" value="${esc(period)}">
<input type="hidden" name="back" value="${esc(href('/actions', { period }))}">
<p>Approving as <strong>${esc(context.actor)}</strong>: a second person approves, never the one who decided the
finding or planned the action.</p>
<button type="submit" id="approve-submit">Approve the selected actions</button></form>`;
  return layout(`Actions of ${period}`, context, `${list}\n${form}`, href('/actions.json', { period }));
}
