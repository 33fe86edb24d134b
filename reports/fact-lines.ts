/** The one-line sentences the Summary and the email both say about a period's facts, so the two always agree. */
import { formatCount } from './formats.js';
import type { LedgerFacts, MissingProof, ReportFacts } from './report-facts.js';

/**
 * The warning the Summary and the email lead with when the period has no ledger order at all: then every
 * provider sale is a missing_in_ledger finding, which almost always means the ledger import failed.
 */
export function noLedgerOrdersWarning(facts: ReportFacts): string | null {
  if (facts.ledger.orders > 0) return null;
  const rejected = facts.ledger.rejects;
  return (
    `No ledger orders for ${facts.period}: every provider sale shows as missing_in_ledger — ` +
    'check the ledger import ' +
    `(${formatCount(rejected)} line${rejected === 1 ? '' : 's'} rejected)`
  );
}

/**
 * The Summary's and the email's one line on the missing_at_provider findings: how many are proven absent, and
 * how many are not (a controller must not refund or re-deliver on an unproven one). Null when there are none.
 */
export function describeMissingProof(proof: MissingProof): string | null {
  const total = proof.windows + proof.lookup + proof.unproven;
  if (total === 0) return null;
  return (
    `missing_at_provider: ${formatCount(proof.unproven)} of ${formatCount(total)} UNPROVEN ` +
    `(proven absent: ${formatCount(proof.windows)} by the extract windows, ${formatCount(proof.lookup)} by an ` +
    `individual look-up)`
  );
}

/** "Ledger rejects: N", saying how many come from files with no accepted line. */
export function describeLedgerRejects(ledger: LedgerFacts): string {
  const unplaced =
    ledger.unplacedRejects > 0
      ? ` (${formatCount(ledger.unplacedRejects)} from ${formatCount(ledger.unplacedFiles)} ` +
        `file${ledger.unplacedFiles === 1 ? '' : 's'} with no accepted line at all)`
      : '';
  return `Ledger rejects: ${formatCount(ledger.rejects)}${unplaced}`;
}
