/**
 * The top of the report email (issue 30 item 7): what a person has to do and by when — decide the findings, sheet
 * by sheet; review the suggested matches; approve the actions; then load the workbook back with `findings import` —
 * in plain words, with the counts the workbook shows. The status dump follows it, below the first table.
 */
import { addDays, periodEnd } from '../core/calendar.js';
import { findingFamilies, findingTypes } from '../core/finding-types.js';
import { formatCount } from './formats.js';
import type { ReportFacts } from './report-facts.js';

export interface LeadOptions {
  /** Days after the period's last day by which the decisions are asked for (email.decideWithinDays). */
  decideWithinDays: number;
  /** The workbook to type the decisions into, as its file name. */
  workbook: string;
}

/** The period's last day plus `days`, as YYYY-MM-DD (a period is a calendar month, YYYY-MM). */
export function decideBy(period: string, days: number): string {
  return addDays(periodEnd(period), days);
}

const sheetOfType = new Map<string, string>(
  findingTypes.map((t) => [t.type, findingFamilies.find((f) => f.family === t.family)!.sheet]),
);

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** "A, B and C" */
function listed(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The numbered steps, with the line that says by when; one line when nothing waits for a person. */
export function emailLeadLines(facts: ReportFacts, options: LeadOptions): string[] {
  const bySheet = new Map<string, { undecided: number; overdue: number }>();
  for (const t of facts.decisions.toDecide ?? []) {
    const sheet = sheetOfType.get(t.findingType) ?? 'Summary';
    const counts = bySheet.get(sheet) ?? { undecided: 0, overdue: 0 };
    counts.undecided += t.undecided;
    counts.overdue += t.overdue;
    bySheet.set(sheet, counts);
  }
  // In the workbook's sheet order.
  const sheets = findingFamilies.map((f) => f.sheet as string).filter((s) => bySheet.has(s));
  const total = (key: 'undecided' | 'overdue') => [...bySheet.values()].reduce((sum, c) => sum + c[key], 0);
  const carried = (facts.carriedForward ?? []).reduce((sum, c) => sum + c.findings, 0);
  const carriedOverdue = (facts.carriedForward ?? []).reduce((sum, c) => sum + c.overdue, 0);
  const suggestions = facts.suggestionsToReview ?? 0;
  const approve = facts.actions.waitingForApproval.length;
  const failed = facts.actions.failed.length;

  const steps: string[] = [];
  const toDecide = total('undecided') + total('overdue');
  if (toDecide > 0) {
    const where = listed(
      sheets.map((s) => `${s} (${formatCount(bySheet.get(s)!.undecided + bySheet.get(s)!.overdue)})`),
    );
    const overdue = total('overdue');
    const timing = overdue === 1 ? 'is a timing difference' : 'are timing differences';
    steps.push(
      `Decide ${plural(toDecide, 'finding')} in the sheet${sheets.length === 1 ? '' : 's'} ${where}: ` +
        'choose a Decision on each row, with a note and an owner' +
        (overdue > 0
          ? `; ${formatCount(overdue)} of them ${timing} past the expected clear-by date: decide again.`
          : '.'),
    );
  }
  if (suggestions > 0)
    steps.push(
      `Review ${plural(suggestions, 'suggested match', 'suggested matches')} in the sheet Suggested matches: ` +
        'confirm or reject each.',
    );
  if (toDecide + suggestions > 0)
    steps.push(`Then save the workbook and load it back: pinrecon findings import ${options.workbook} --by YOUR NAME`);
  if (approve > 0)
    steps.push(
      `Approve ${plural(approve, 'action')} listed in the sheet Actions (someone other than who decided them): ` +
        `pinrecon actions approve --period ${facts.period} --all --by YOUR NAME`,
    );
  if (carried > 0)
    // Decided in their own period's workbook (carried-forward-sheet.ts), not through this one.
    steps.push(
      `Follow up ${plural(carried, 'finding')} left open by earlier periods` +
        `${carriedOverdue > 0 ? ` (${formatCount(carriedOverdue)} overdue)` : ''}: sheet Carried forward; ` +
        'decide them in their own period.',
    );
  if (failed > 0) steps.push(`Look at ${plural(failed, 'action')} the provider refused (sheet Actions), below.`);
  if (steps.length === 0)
    return [`Nothing waits for a decision: every finding of ${facts.period} is decided or pending.`];
  const due = decideBy(facts.period, options.decideWithinDays);
  // A report made after the date (a late run, a re-send) says the date has passed rather than ask for the past.
  return [
    facts.asOf.slice(0, 10) > due ? `What to do now (it was due by ${due}):` : `What to do by ${due}:`,
    ...steps.map((step, i) => `  ${i + 1}. ${step}`),
  ];
}
