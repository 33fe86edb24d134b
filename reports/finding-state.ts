/**
 * Where a finding stands, as SQL over `recon_exceptions` (the workbook, the email and `findings list`
 * all use this one definition):
 * - `pending`: expected to clear by itself — decided `timing` with `expected_clear_by` on or after the
 *   as-of, or a `cutoff_difference` whose pair the other period's reconciliation does not hold yet;
 * - `overdue`: decided `timing`, but `expected_clear_by` is before the as-of (or missing);
 * - `undecided`: no decision yet;
 * - `decided`: any other decision.
 * Everything but `pending` is a break the controller has to account for.
 */

export const findingStates = ['undecided', 'pending', 'overdue', 'decided'] as const;
export type FindingState = (typeof findingStates)[number];

/** SQL: the state of the recon_exceptions row aliased `alias`. */
export function findingStateSql(alias: string): string {
  const e = alias;
  return `CASE
    WHEN ${e}.exception_type = 'cutoff_difference' AND NOT EXISTS (
      SELECT 1 FROM recon_exceptions pair
      WHERE pair.period <> ${e}.period AND pair.exception_type = 'cutoff_difference'
        AND pair.partner_reference IS NOT DISTINCT FROM ${e}.partner_reference
        AND pair.transaction_id IS NOT DISTINCT FROM ${e}.transaction_id) THEN 'pending'
    WHEN ${e}.decision IS NULL THEN 'undecided'
    WHEN ${e}.decision = 'timing' AND ${e}.expected_clear_by >= ${e}.as_of THEN 'pending'
    WHEN ${e}.decision = 'timing' THEN 'overdue'
    ELSE 'decided'
  END`;
}
