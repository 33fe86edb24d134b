/**
 * The words a person reads for the database's tokens (issue 30 item 7: the email said `reconciled_with_findings`
 * and snake_case finding types): every finding type of the registry, decision, verdict and sign-off state has
 * a plain name here, and `plainWords` puts them into a line written with the tokens.
 */
import { findingTypeNames } from '../core/finding-types.js';

/** A finding type as a person says it; a type the registry does not know yet reads with spaces for underscores. */
const typeWords: Record<string, string> = {
  missing_at_provider: 'missing at the provider',
  missing_in_ledger: 'missing in the ledger',
  cost_mismatch: 'cost differs',
  price_mismatch: 'price differs',
  currency_mismatch: 'currency differs',
  product_mismatch: 'product differs',
  unredeemed_key: 'unredeemed key',
  duplicate_reference: 'duplicate reference',
  canceled_but_booked: 'canceled but booked',
  refunded_not_reversed: 'refunded, not reversed',
  cutoff_difference: 'booked in another period',
  unknown_status: 'unknown status',
  reference_mismatch: 'reference differs',
};

/** Decisions, verdicts and sign-off states written with an underscore. */
const otherWords: Record<string, string> = {
  reconciled_with_findings: 'reconciled, with findings',
  changed_since_signoff: 'changed since sign-off',
  fix_ledger: 'fix the ledger',
  write_off: 'write off',
};

export function findingTypeWords(type: string): string {
  return typeWords[type] ?? type.replaceAll('_', ' ');
}

const tokens = [...new Set([...findingTypeNames, ...Object.keys(typeWords), ...Object.keys(otherWords)])];
const tokenPattern = new RegExp(`\\b(${tokens.join('|')})\\b`, 'g');

/** The line with every known token replaced by its words (paths and other text left as they are). */
export function plainWords(line: string): string {
  return line.replace(tokenPattern, (token) => otherWords[token] ?? findingTypeWords(token));
}
