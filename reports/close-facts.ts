/**
 * What the report says about closing the period: the completeness verdict (with the reasons when it is
 * incomplete) and the sign-off state (who signed, when, and what changed since). The workbook's first lines,
 * the email's subject and the top of its body all come from `describeClose`, so they never disagree.
 */
import { formatAmount, formatCount } from './formats.js';

export interface CloseFacts {
  /** incomplete | reconciled | reconciled_with_findings; null for a reconciliation made before verdicts existed. */
  verdict: string | null;
  /** Why the period is incomplete (empty when complete). */
  incompleteReasons: string[];
  /** The `pinrecon extract` commands that complete it. */
  fillCommands: string[];
  status: 'unsigned' | 'signed' | 'changed_since_signoff';
  signoff?: { signoffId: string; signedBy: string; signedAt: string; note: string | null };
  changes: { new: number; cleared: number; changed: number };
  /** Bridge amount now minus as signed, per currency (exact decimal strings). */
  deltas: { currencyCode: string | null; amountDelta: string }[];
}

export interface CloseDescription {
  /** Put before the subject: `[INCOMPLETE] ` or ''. */
  subjectPrefix: string;
  /** Put after the subject: the sign-off state when signed. */
  subjectSuffix: string;
  /** The band at the top of the workbook and the email: red when incomplete or changed since sign-off. */
  alert: string | null;
  /** Lines after the band: reasons, fill commands, sign-off. */
  lines: string[];
}

export function describeClose(close: CloseFacts | undefined, timezone: string): CloseDescription {
  if (!close) return { subjectPrefix: '', subjectSuffix: '', alert: null, lines: [] };
  const incomplete = close.verdict === 'incomplete';
  const lines: string[] = [];
  let alert: string | null = null;
  if (incomplete) {
    alert = 'INCOMPLETE: the period is not completely extracted; these figures are not a reconciliation of the whole month';
    lines.push(...close.incompleteReasons.map((r) => `Reason: ${r}`), ...close.fillCommands.map((c) => `To complete it: ${c}`));
  }
  let subjectSuffix = '';
  if (close.signoff) {
    const s = close.signoff;
    lines.push(`Signed off by ${s.signedBy} at ${s.signedAt} (${timezone})${s.note ? `: ${s.note}` : ''}`);
    if (close.status === 'changed_since_signoff') {
      const summary = changeSummary(close);
      alert ??= `CHANGED SINCE SIGN-OFF: ${summary}`;
      lines.push(`Changed since sign-off: ${summary}`);
      subjectSuffix = ` — changed since sign-off by ${s.signedBy}: ${summary}`;
    } else {
      subjectSuffix = ` — signed off by ${s.signedBy}`;
    }
  }
  return { subjectPrefix: incomplete ? '[INCOMPLETE] ' : '', subjectSuffix, alert, lines };
}

/** "2 new, 1 cleared, 0 changed; BRL +12.50" */
export function changeSummary(close: CloseFacts): string {
  const counts = `${formatCount(close.changes.new)} new, ${formatCount(close.changes.cleared)} cleared, ${formatCount(close.changes.changed)} changed`;
  const deltas = close.deltas.map((d) => `${d.currencyCode ?? '(no currency)'} ${Number(d.amountDelta) > 0 ? '+' : ''}${formatAmount(d.amountDelta, d.currencyCode)}`);
  return deltas.length > 0 ? `${counts}; amount delta ${deltas.join(', ')}` : counts;
}
