/**
 * The review page's period overview (issue 32): verdict and sign-off state with the seal's fingerprint, the bridge
 * per currency, the roll-forward, findings by decision and by state, what earlier periods carried forward, and what
 * changed since the last reconciliation — the report's own facts (report-facts.ts), so page and workbook agree.
 * Also the page that tells the outcome of an act (recorded, unchanged, refused with the reason).
 */
import type { CloseDescription } from '../close-facts.js';
import type { ReportFacts } from '../report-facts.js';
import { esc, facts, href, layout, table, type PageContext } from './html.js';

export interface OverviewView {
  period: string;
  periods: string[];
  close: CloseDescription;
  facts: ReportFacts;
}

const money = (value: unknown) => esc(value ?? '0');

export function overviewPage(context: PageContext, view: OverviewView): string {
  const f = view.facts;
  const seal = f.close.seal;
  const periods = view.periods
    .map((p) =>
      p === view.period
        ? `<strong>${esc(p)}</strong>`
        : `<a href="${esc(href('/overview', { period: p }))}">${esc(p)}</a>`,
    )
    .join(' · ');
  const head = [
    `<p>Periods: ${periods}</p>`,
    `<p class="verdict">Verdict: ${esc(view.close.verdict)}</p>`,
    view.close.alert ? `<p class="banner warn" role="alert">${esc(view.close.alert)}</p>` : '',
    facts([
      ['Sign-off', view.close.signoff],
      ['Seal sha256', seal?.sha256 ?? null],
      ['Seal key fingerprint', seal?.signerKeySha256 ?? null],
      ['As of', f.asOf],
      ['Reconciled at', f.reconciledAt],
      ['Findings', f.totalFindings],
      ['Suggested matches to review', f.suggestionsToReview ?? 0],
    ]),
    ...view.close.lines.map((line) => `<p>${esc(line)}</p>`),
  ].join('\n');
  const bridge = table(
    'Cost bridge per currency (ledger expected cost → provider cost)',
    ['Currency', 'Step', 'Line', 'Items', 'Amount'],
    f.bridge.map((b) => [esc(b.currency), esc(b.step), esc(b.label), esc(b.items), money(b.amount)]),
    { numeric: [1, 3, 4] },
  );
  const roll = table(
    'Roll-forward of open findings',
    ['Currency', 'Open at start', 'New', 'Cleared', 'Written off', 'Remeasured', 'Open at end', 'Check'],
    f.rollForward.map((r) => [
      esc(r.currency),
      `${esc(r.openAtStart)} · ${money(r.openAtStartAmount)}`,
      `${esc(r.new)} · ${money(r.newAmount)}`,
      `${esc(r.cleared)} · ${money(r.clearedAmount)}`,
      `${esc(r.writtenOff)} · ${money(r.writtenOffAmount)}`,
      money(r.remeasuredAmount),
      `${esc(r.openAtEnd)} · ${money(r.openAtEndAmount)}`,
      `${esc(r.checkCount)} · ${money(r.checkAmount)}`,
    ]),
    { numeric: [1, 2, 3, 4, 5, 6, 7] },
  );
  // A decision line links to the findings it counts; "undecided" is the list's decision=none.
  const link = (kind: 'decision' | 'state', label: string) => {
    const value = kind === 'decision' && label === 'undecided' ? 'none' : label;
    return `<a href="${esc(href('/findings', { period: view.period, [kind]: value }))}">${esc(label)}</a>`;
  };
  const byDecision = (kind: 'decision' | 'state', caption: string) =>
    table(
      caption,
      ['Currency', kind === 'decision' ? 'Decision' : 'State', 'Findings', 'Net amount', 'Exposure'],
      f.decisions.lines
        .filter((l) => l.kind === kind)
        .map((l) => [esc(l.currency), link(kind, l.label), esc(l.findings), money(l.net), money(l.exposure)]),
      { numeric: [2, 3, 4] },
    );
  const carried = table(
    'Carried forward from earlier periods (open, not cleared, written off or accepted)',
    ['Currency', 'Findings', 'Overdue', 'Undecided', 'Amount', 'Exposure', 'Oldest period'],
    f.carriedForward.map((c) => [
      esc(c.currency),
      esc(c.findings),
      esc(c.overdue),
      esc(c.undecided),
      money(c.amount),
      money(c.exposure),
      esc(c.oldestPeriod),
    ]),
    { numeric: [1, 2, 3, 4, 5] },
  );
  const changes = f.changes
    ? `<p>Since ${esc(f.changes.previousBuiltAt ?? 'the first reconciliation')}: ${esc(f.changes.new)} new, ` +
      `${esc(f.changes.stillOpen)} still open, ${esc(f.changes.cleared)} cleared.</p>` +
      table(
        'What changed since the last reconciliation, by type',
        ['Type', 'New', 'Still open', 'Cleared'],
        f.changes.byType.map((c) => [esc(c.findingType), esc(c.new), esc(c.stillOpen), esc(c.cleared)]),
        { numeric: [1, 2, 3] },
      )
    : '<p>No earlier reconciliation to compare with.</p>';
  const body = [
    head,
    '<h2>Bridge</h2>',
    bridge,
    '<h2>Roll-forward</h2>',
    roll,
    '<h2>Findings by decision and state</h2>',
    '<div class="two">',
    byDecision('decision', 'By decision'),
    byDecision('state', 'By state'),
    '</div>',
    '<h2>Carried forward</h2>',
    carried,
    '<h2>What changed</h2>',
    changes,
  ].join('\n');
  return layout(`Overview of ${view.period}`, context, body, href('/overview.json', { period: view.period }));
}

/** What an act did: its summary lines, or the refusal and what to do. */
export interface OutcomeView {
  title: string;
  ok: boolean;
  lines: string[];
  refusal?: string;
  hint?: string;
  back: string;
}

export function outcomePage(context: PageContext, view: OutcomeView): string {
  const box = view.refusal
    ? `<div class="refused" role="alert"><p><strong>Refused:</strong> ${esc(view.refusal)}</p>${
        view.hint ? `<p>What to do: ${esc(view.hint)}</p>` : ''
      }</div>`
    : `<div class="${view.ok ? 'ok' : 'refused'}" role="status"><pre>${esc(view.lines.join('\n'))}</pre></div>`;
  const body = `${box}\n<p><a href="${esc(view.back)}" id="back">Back</a></p>`;
  return layout(view.title, context, body);
}

/** A page for a bad request or a missing thing, with what to do. */
export function messagePage(context: PageContext, title: string, message: string): string {
  return layout(title, context, `<p class="refused" role="alert">${esc(message)}</p>`);
}
