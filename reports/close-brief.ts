/**
 * The controller's five-minute read at the top of the report email: verdict and sign-off state, what is new
 * since the previous reconciliation, per currency the undecided / pending / overdue findings with their
 * amounts (gross debit and credit beside the net), the cost bridge, and the three largest open findings
 * (a PIN as the workbook shows it: its last 4 behind the mask). Plain lines; the email shows them as text and as HTML.
 */
import { formatLocalTimeZoned } from '../core/zoned-time.js';
import { formatAmount, formatCount } from './formats.js';
import type { ReportFacts } from './report-facts.js';
import { describeClose } from './close-facts.js';

export function closeBriefLines(facts: ReportFacts): string[] {
  return [...closeBriefStatusLines(facts), ...closeBriefDetailLines(facts)];
}

/** Verdict and sign-off, and what is new: the two lines the email says above its first table (issue 30 item 7). */
export function closeBriefStatusLines(facts: ReportFacts): string[] {
  const lines: string[] = [];
  // The sign-off state is said once, by describeClose, above this brief; only "unsigned" is left to say here.
  const close = describeClose(facts.close);
  lines.push(`Verdict: ${close.verdict}${close.signoffState === 'unsigned' ? ' · Sign-off: unsigned' : ''}`);
  const changes = facts.changes;
  lines.push(
    changes?.previousBuiltAt
      ? `New since the previous reconciliation (${formatLocalTimeZoned(changes.previousBuiltAt, facts.timezone)}): ` +
          `${formatCount(changes.new)} new, ${formatCount(changes.cleared)} cleared, ` +
          `${formatCount(changes.stillOpen)} still open`
      : `First reconciliation of ${facts.period}: all ${formatCount(facts.totalFindings)} findings are new`,
  );
  return lines;
}

/** Per currency the undecided / pending / overdue findings, the bridge, carried forward, the largest open ones. */
export function closeBriefDetailLines(facts: ReportFacts): string[] {
  const d = facts.decisions;
  const lines: string[] = [];
  const currencies = [...new Set([...facts.totals.map((t) => t.currency), ...d.lines.map((l) => l.currency)])];
  for (const currency of currencies) {
    const name = currency ?? '(no currency)';
    const states = ['undecided', 'pending', 'overdue'].map((state) => {
      const line = d.lines.find((l) => l.kind === 'state' && l.label === state && l.currency === currency);
      if (!line) return `${state} 0`;
      const gross =
        `debit ${formatAmount(line.grossDebit, currency)}, ` + `credit ${formatAmount(line.grossCredit, currency)}`;
      // An unredeemed key's cost at stake is said apart, never added to the amounts (issue 30).
      const exposure = Number(line.exposure ?? 0) !== 0 ? `; exposure ${formatAmount(line.exposure, currency)}` : '';
      return `${state} ${formatCount(line.findings)} (net ${formatAmount(line.net, currency)}; ${gross}${exposure})`;
    });
    lines.push(`${name}: ${states.join(' · ')}`);
    for (const step of facts.bridge.filter((b) => b.currency === currency)) {
      const gross = step.findingType
        ? d.bridgeGross.find((g) => g.currency === currency && g.findingType === step.findingType)
        : undefined;
      const grossText = gross
        ? ` (debit ${formatAmount(gross.grossDebit, currency)}, credit ${formatAmount(gross.grossCredit, currency)})`
        : '';
      lines.push(
        `  bridge ${String(step.step).padStart(2)} ${step.label}: ${formatAmount(step.amount, currency)}${grossText}`,
      );
    }
  }
  // Issue 30: what earlier periods left open follows into this month's email.
  for (const c of facts.carriedForward ?? []) {
    const exposure = Number(c.exposure ?? 0) !== 0 ? `; exposure ${formatAmount(c.exposure, c.currency)}` : '';
    lines.push(
      `Carried forward (${c.currency ?? 'no currency'}): ${formatCount(c.findings)} open from earlier periods since ` +
        `${c.oldestPeriod}, ${formatCount(c.overdue)} overdue, ${formatCount(c.undecided)} undecided ` +
        `(amount ${formatAmount(c.amount, c.currency)}${exposure}): see the Carried forward sheet`,
    );
  }
  if (d.largestOpen.length > 0) {
    lines.push('Largest open findings by amount (cost bridge effect):');
    d.largestOpen.forEach((finding, i) => {
      const pin = finding.keyLast4 ? ` · PIN ${finding.keyLast4}` : '';
      lines.push(
        `  ${i + 1}. ${finding.findingType} ${finding.partnerReference ?? '(no reference)'} ` +
          `${formatAmount(finding.amount, finding.currency)} · ` +
          `${finding.decision ?? 'undecided'}${finding.state === 'overdue' ? ' (overdue)' : ''}${pin}`,
      );
    });
  }
  return lines;
}
