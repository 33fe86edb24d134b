/**
 * What the report says about closing the period: the completeness verdict (with the reasons when it is
 * incomplete) and the one sign-off state — unsigned, signed by X at T, changed since the sign-off of X at T
 * (and what changed), or reopened by Y at T. The workbook's first lines, its page footer, the Summary, the
 * email's subject and body all come from `describeClose`, so they never disagree (issue 14: after reopen →
 * close the subject, body, footer and Summary said three different things).
 */
import { formatAmount, formatCount } from './formats.js';

export interface CloseFacts {
  /** incomplete | reconciled | reconciled_with_findings; null for a reconciliation made before verdicts existed. */
  verdict: string | null;
  /** Why the period is incomplete (empty when complete). */
  incompleteReasons: string[];
  /** The `pinrecon extract` commands that complete it. */
  fillCommands: string[];
  /** recon_summary.signoff_status's vocabulary; a reopened period is `unsigned` with `reopened` set. */
  status: 'unsigned' | 'signed' | 'changed_since_signoff';
  signoff?: {
    signoffId: string;
    signedBy: string;
    /** Local wall clock, 'YYYY-MM-DD HH:MM'. */
    signedAt: string;
    /** As shown to a person: with its offset and zone (core/zoned-time.ts). */
    signedAtZoned: string;
    note: string | null;
    /** Findings still `investigating` when signed (close --allow-open; issue 28). */
    openFindings?: string[];
  };
  /** The latest sign-off, when it was reopened and none is active since. */
  reopened?: {
    signedBy: string;
    signedAtZoned: string;
    reopenedBy: string;
    reopenedAtZoned: string;
    reason: string | null;
  };
  changes: { new: number; cleared: number; changed: number };
  /** Bridge amount now minus as signed, per currency (exact decimal strings). */
  deltas: { currencyCode: string | null; amountDelta: string }[];
  /** Actions executed or exported after the sign-off (actions execute --after-signoff; issue 28). */
  actionsAfterSignoff?: number;
  /**
   * The active sign-off's seal: sha256 of its statement, and the fingerprint of the key that signed it (null: none).
   */
  seal?: { sha256: string; signerKeySha256: string | null };
}

/** The state a person reads, one of four. */
export type SignoffDisplayState = 'unsigned' | 'signed' | 'changed_since_signoff' | 'reopened';

export interface CloseDescription {
  /** Put before the subject: `[INCOMPLETE] ` or ''. */
  subjectPrefix: string;
  /** Put after the subject: ` — <sign-off state>` unless unsigned. */
  subjectSuffix: string;
  /** The band at the top of the workbook and the email: red when incomplete or changed since sign-off. */
  alert: string | null;
  /** Lines after the band: reasons, fill commands, and the sign-off state unless the band already says it. */
  lines: string[];
  /** The verdict label ("reconciled_with_findings", "not computed"). */
  verdict: string;
  signoffState: SignoffDisplayState;
  /** The sign-off state in one phrase: "signed off by X at T", "changed since sign-off by X at T: …". */
  signoff: string;
  /** The sign-off state without what changed, for a page footer: "verdict … · changed since sign-off by X at T". */
  footer: string;
}

export function describeClose(close: CloseFacts): CloseDescription {
  const verdict = close.verdict ?? 'not computed';
  const incomplete = close.verdict === 'incomplete';
  const { state, phrase, short, band } = signoffPhrase(close);
  const lines: string[] = [];
  let alert: string | null = null;
  if (incomplete) {
    alert =
      'INCOMPLETE: the period is not completely extracted; these figures are not a reconciliation of the whole month';
    lines.push(
      ...close.incompleteReasons.map((r) => `Reason: ${r}`),
      ...close.fillCommands.map((c) => `To complete it: ${c}`),
    );
  }
  // Said once: in the band when it is the alert, else as the first line after it.
  if (band && !alert) alert = band;
  else if (state !== 'unsigned') lines.push(`${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}`);
  if (close.signoff?.note) lines.push(`Sign-off note: ${close.signoff.note}`);
  const open = close.signoff?.openFindings ?? [];
  if (open.length > 0) {
    // Issue 28: a sign-off over findings still investigating lists them wherever the sign-off is said.
    const shown = open.slice(0, 10).join(', ') + (open.length > 10 ? `, … (${open.length - 10} more)` : '');
    lines.push(`Signed with ${formatCount(open.length)} finding(s) still investigating (close --allow-open): ${shown}`);
  }
  return {
    subjectPrefix: incomplete ? '[INCOMPLETE] ' : '',
    subjectSuffix: state === 'unsigned' ? '' : ` — ${phrase}`,
    alert,
    lines,
    verdict,
    signoffState: state,
    signoff: phrase,
    footer: `verdict ${verdict} · ${short}`,
  };
}

interface SignoffPhrase {
  state: SignoffDisplayState;
  phrase: string;
  short: string;
  /** The red band's text, for a state that must not read as final. */
  band?: string;
}

function signoffPhrase(close: CloseFacts): SignoffPhrase {
  const s = close.signoff;
  if (s && close.status === 'changed_since_signoff') {
    const by = `by ${s.signedBy} at ${s.signedAtZoned}`;
    const what = changeSummary(close);
    const short = `changed since sign-off ${by}`;
    return {
      state: 'changed_since_signoff',
      phrase: `${short}: ${what}`,
      short,
      band: `CHANGED SINCE SIGN-OFF ${by}: ${what}`,
    };
  }
  if (s) {
    const phrase = `signed off by ${s.signedBy} at ${s.signedAtZoned}`;
    return { state: 'signed', phrase, short: phrase };
  }
  const r = close.reopened;
  if (r) {
    const short = `reopened by ${r.reopenedBy} at ${r.reopenedAtZoned}`;
    return {
      state: 'reopened',
      phrase: `${short} (signed off by ${r.signedBy} at ${r.signedAtZoned})${r.reason ? `: ${r.reason}` : ''}`,
      short,
    };
  }
  return { state: 'unsigned', phrase: 'unsigned', short: 'unsigned' };
}

/** "2 new, 1 cleared, 0 changed; amount delta BRL +R$ 12.50" */
export function changeSummary(close: CloseFacts): string {
  const counts =
    `${formatCount(close.changes.new)} new, ${formatCount(close.changes.cleared)} cleared, ` +
    `${formatCount(close.changes.changed)} changed`;
  const deltas = close.deltas.map(
    (d) =>
      `${d.currencyCode ?? '(no currency)'} ` +
      `${Number(d.amountDelta) > 0 ? '+' : ''}${formatAmount(d.amountDelta, d.currencyCode)}`,
  );
  const actions = close.actionsAfterSignoff
    ? `; ${formatCount(close.actionsAfterSignoff)} action(s) carried out after the sign-off (--after-signoff)`
    : '';
  return (deltas.length > 0 ? `${counts}; amount delta ${deltas.join(', ')}` : counts) + actions;
}
