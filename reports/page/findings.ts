/**
 * The review page's findings (issue 32): the list with its filters, sort, paging and the decide form (one or many
 * findings, or every finding the filters choose), and one finding with both sides — the ledger line with its file
 * and line, the provider's sale with its landing file — its differences, proof of absence, suggestions and history.
 */
import { csrfField, esc, facts, href, input, layout, select, table, type PageContext } from './html.js';

type Row = Record<string, unknown>;

export interface FindingListView {
  query: { period: string; page: number; pageSize: number; sort: string; dir: string } & {
    [K in
      | 'type'
      | 'family'
      | 'decision'
      | 'state'
      | 'owner'
      | 'q'
      | 'minAmount'
      | 'maxAmount'
      | 'maxExposure']?: string;
  };
  total: number;
  rows: Row[];
  choices: { types: readonly string[]; families: readonly string[]; states: readonly string[]; decisions: string[] };
  decisions: readonly string[];
  sortable: readonly string[];
}

/** The query string of the list as it is, with some keys changed. */
function listHref(query: FindingListView['query'], change: Record<string, string | number | null>): string {
  const keys = ['period', 'type', 'family', 'decision', 'state', 'owner', 'q', 'sort', 'dir', 'page'];
  const current: Record<string, string | number | undefined> = Object.fromEntries(
    keys.map((k) => [k, (query as Record<string, string | number | undefined>)[k]]),
  );
  current.min_amount = query.minAmount;
  current.max_amount = query.maxAmount;
  current.max_exposure = query.maxExposure;
  return href('/findings', { ...current, ...change });
}

/** The fields of a decision, shared by the one-finding form and the bulk form. */
export function decisionFields(decisions: readonly string[]): string {
  const options = decisions.map((d) => `<option value="${esc(d)}">${esc(d)}</option>`).join('');
  const field = (label: string, control: string) =>
    `<span class="field"><label>${esc(label)} ${control}</label></span>`;
  return [
    field('Decision', `<select name="decision" required><option value="">choose…</option>${options}</select>`),
    field('Note', '<input type="text" name="note">'),
    field('Owner', '<input type="text" name="owner">'),
    field('Expected clear by', '<input type="date" name="expected_clear_by">'),
  ].join('\n');
}

export function findingListPage(context: PageContext, view: FindingListView): string {
  const q = view.query;
  const filters = `<form class="filters" method="get" action="/findings" aria-label="Filter findings">
<input type="hidden" name="period" value="${esc(q.period)}">
${select('type', 'Type', view.choices.types, q.type as string)}
${select('family', 'Family', view.choices.families, q.family as string)}
${select('decision', 'Decision', view.choices.decisions, q.decision as string)}
${select('state', 'State', view.choices.states, q.state as string)}
${input('owner', 'Owner', q.owner as string)}
${input('min_amount', 'Min amount', q.minAmount as string)}
${input('max_amount', 'Max amount', q.maxAmount as string)}
${input('max_exposure', 'Max exposure', q.maxExposure as string)}
${input('q', 'Reference or transaction', q.q as string, 'search')}
${select('sort', 'Sort by', view.sortable, q.sort)}
${select('dir', 'Order', ['asc', 'desc'], q.dir)}
<button type="submit" id="apply-filters">Apply</button>
<a href="${esc(href('/findings', { period: q.period }))}">Clear</a>
</form>`;
  const pages = Math.max(1, Math.ceil(view.total / q.pageSize));
  const first = view.total === 0 ? 0 : (q.page - 1) * q.pageSize + 1;
  const last = Math.min(view.total, q.page * q.pageSize);
  const pager = `<p class="pager" aria-label="Pages">${esc(first)}–${esc(last)} of ${esc(view.total)} finding(s)
${q.page > 1 ? `<a rel="prev" href="${esc(listHref(q, { page: q.page - 1 }))}">Previous page</a>` : ''}
${q.page < pages ? `<a rel="next" href="${esc(listHref(q, { page: q.page + 1 }))}">Next page</a>` : ''}</p>`;
  const sortLink = (label: string, key: string) => {
    const dir = q.sort === key && q.dir === 'asc' ? 'desc' : 'asc';
    return `<a href="${esc(listHref(q, { sort: key, dir, page: 1 }))}">${esc(label)}</a>`;
  };
  const rows = view.rows.map((r) => {
    const id = String(r.finding_id);
    return `<tr><td><input type="checkbox" name="id" value="${esc(id)}" form="decide" aria-label="Select ${esc(
      r.partner_reference ?? id,
    )}"></td><td><a href="${esc(href(`/findings/${id}`))}">${esc(r.exception_type)}</a></td><td>${esc(
      r.partner_reference,
    )}</td><td>${esc(r.transaction_id)}</td><td>${esc(r.currency_code)}</td><td class="num">${esc(
      r.amount,
    )}</td><td class="num">${esc(r.exposure)}</td><td>${esc(r.state)}</td><td>${esc(r.decision)}</td><td>${esc(
      r.owner,
    )}</td></tr>`;
  });
  const all = '<input type="checkbox" data-select-all="id" aria-label="Select all on this page">';
  const head = `<tr><th scope="col">${all}</th>
<th scope="col">${sortLink('Type', 'type')}</th><th scope="col">${sortLink('Reference', 'reference')}</th>
<th scope="col">Transaction</th><th scope="col">Currency</th>
<th scope="col" class="num">${sortLink('Amount', 'amount')}</th>
<th scope="col" class="num">${sortLink('Exposure', 'exposure')}</th><th scope="col">${sortLink('State', 'state')}</th>
<th scope="col">${sortLink('Decision', 'decision')}</th><th scope="col">${sortLink('Owner', 'owner')}</th></tr>`;
  const list = `<table id="findings"><caption>Findings of ${esc(q.period)}</caption><thead>${head}</thead><tbody>
${rows.join('\n')}
</tbody></table>`;
  const disabled = context.readOnly ? ' disabled' : '';
  const decide = `<form id="decide" method="post" action="/findings/decide" aria-label="Decide findings">
${csrfField(context)}<input type="hidden" name="back" value="${esc(listHref(q, {}))}">
<fieldset${disabled}><legend>Decide the selected findings, or every finding the filters choose</legend>
${decisionFields(view.decisions)}
<label>Which <select name="scope"><option value="selected">the selected findings</option>
<option value="filtered">all ${esc(view.total)} finding(s) the filters choose</option></select></label>
<button type="submit" id="decide-submit">Record decision</button>
</fieldset></form>`;
  const body = `${filters}\n${pager}\n${list}\n${pager}\n${decide}`;
  return layout(`Findings of ${q.period}`, context, body, listHref(q, {}).replace('/findings', '/findings.json'));
}

export interface FindingDetailView {
  finding: Row;
  ledger: Row[];
  sale: Row[];
  landing: Row[];
  lookups: Row[];
  suggestions: Row[];
  history: Row[];
  decisions: readonly string[];
}

const rowsOf = (rows: Row[], columns: string[]) => rows.map((r) => columns.map((c) => esc(r[c])));

export function findingPage(context: PageContext, view: FindingDetailView): string {
  const f = view.finding;
  const id = String(f.finding_id);
  const summary = facts([
    ['Finding', id],
    ['Period', f.period],
    ['Type', `${f.exception_type} (${f.family})`],
    ['Details', f.details],
    ['Partner reference', f.partner_reference],
    ['Transaction', f.transaction_id],
    // a reference_mismatch's values are its two references, text beside the money columns (issue 29)
    ['Ledger value', f.ledger_value ?? f.ledger_value_text ?? null],
    ['Provider value', f.provider_value ?? f.provider_value_text ?? null],
    ['Difference', f.difference],
    ['Differences', f.differences ?? null],
    ['Amount (cost bridge effect)', f.amount],
    ['Exposure (cost at stake)', f.exposure ?? null],
    ['Currency', f.currency_code],
    ['PIN', f.key_last4],
    ['State', f.state],
    ['Decision', f.decision ?? 'undecided'],
    ['Owner', f.owner ?? null],
    ['Expected clear by', f.expected_clear_by ?? null],
    ['First detected', f.first_detected_at],
  ]);
  const ledger = table(
    'Ledger side: the line(s) in the partner’s file',
    ['File', 'Line', 'Reference', 'Paid at', 'Sales price', 'Expected cost', 'Currency', 'Status'],
    rowsOf(view.ledger, [
      'source_file',
      'source_line',
      'partner_reference',
      'paid_at',
      'sales_price',
      'expected_cost',
      'currency_code',
      'order_status',
    ]),
    { numeric: [1, 4, 5] },
  );
  const sale = table(
    'Provider side: the sale(s) in the API',
    ['Transaction', 'Reference', 'Product', 'At', 'Sales price', 'Cost', 'Status', 'Currency', 'PIN'],
    rowsOf(view.sale, [
      'transaction_id',
      'partner_reference',
      'product_name',
      'transaction_at',
      'sales_price',
      'partner_cost_price',
      'status',
      'sales_currency_code',
      'key',
    ]),
    { numeric: [4, 5] },
  );
  const landing = table(
    'Landing files the sale was read from',
    ['File', 'Endpoint', 'Window', 'By', 'Fetched', 'Records'],
    view.landing.map((l) => [
      esc(l.path),
      esc(l.endpoint),
      `${esc(l.window_start)} – ${esc(l.window_end)}`,
      esc(l.by_flag),
      esc(l.fetched_at),
      esc(l.records),
    ]),
  );
  const proof = `<p>Proof of absence: ${esc(f.proof ?? 'not a missing-at-provider finding')}</p>${table(
    'Individual look-ups of the reference',
    ['Run', 'Asked at', 'Found', 'Records'],
    rowsOf(view.lookups, ['run_id', 'asked_at', 'found', 'records']),
  )}`;
  const suggestions = table(
    'Suggested matches',
    ['Suggestion', 'Ledger reference', 'Transaction', 'Score', 'Status', 'Reasons'],
    view.suggestions.map((s) => [
      `<a href="${esc(href('/matches', { period: String(f.period) }))}">${esc(s.suggestion_id)}</a>`,
      esc(s.ledger_reference),
      esc(s.transaction_id),
      esc(s.score),
      esc(s.status),
      esc(s.reasons),
    ]),
  );
  const history = table(
    'History: who decided what, when, from where',
    ['Decided at', 'By', 'Decision', 'Note', 'Owner', 'Source', 'Superseded', 'Row sha256', 'Signed by key'],
    rowsOf(view.history, [
      'decided_at',
      'decided_by',
      'decision',
      'note',
      'owner',
      'source',
      'superseded_at',
      'row_sha256',
      'signer_key_sha256',
    ]),
  );
  const disabled = context.readOnly ? ' disabled' : '';
  const decide = `<form method="post" action="/findings/decide" aria-label="Decide this finding">
${csrfField(context)}<input type="hidden" name="id" value="${esc(id)}">
<input type="hidden" name="scope" value="selected">
<input type="hidden" name="back" value="${esc(href(`/findings/${id}`))}">
<fieldset${disabled}><legend>Decide this finding</legend>${decisionFields(view.decisions)}
<button type="submit" id="decide-one">Record decision</button></fieldset></form>`;
  const body = [
    summary,
    decide,
    '<div class="two"><section><h2>Ledger</h2>',
    ledger,
    '</section><section><h2>Provider</h2>',
    sale,
    landing,
    '</section></div><h2>Proof of absence</h2>',
    proof,
    '<h2>Suggestions</h2>',
    suggestions,
    '<h2>History</h2>',
    history,
  ].join('\n');
  return layout(`Finding ${f.partner_reference ?? id}`, context, body, href(`/findings/${id}.json`));
}
