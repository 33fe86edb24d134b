/**
 * Where a finding stands, as SQL over `recon_exceptions` (workbook, email and `findings list` share it):
 * `pending` (decided `timing` and not yet due, or of a type pending `until_paired` in the registry — a
 * `cutoff_difference` — whose pair the other period does not hold yet), `overdue` (`timing` past its
 * `expected_clear_by`, or without one), `undecided`, or `decided`. Everything but `pending` is a break the
 * controller has to account for.
 */
import { findingTypeInSql, findingTypesWhere } from '../core/finding-types.js';

export const findingStates = ['undecided', 'pending', 'overdue', 'decided'] as const;
export type FindingState = (typeof findingStates)[number];

/** The types pending until the other period holds their pair (issue 27: the registry owns the rule). */
const untilPairedTypes = findingTypesWhere((row) => row.pending === 'until_paired');

/** SQL: the state of the recon_exceptions row aliased `alias`. */
export function findingStateSql(alias: string): string {
  const e = alias;
  return `CASE
    WHEN ${findingTypeInSql(`${e}.exception_type`, untilPairedTypes)} AND NOT EXISTS (
      SELECT 1 FROM recon_exceptions pair
      WHERE pair.period <> ${e}.period AND pair.exception_type = ${e}.exception_type
        AND pair.partner_reference IS NOT DISTINCT FROM ${e}.partner_reference
        AND pair.transaction_id IS NOT DISTINCT FROM ${e}.transaction_id) THEN 'pending'
    WHEN ${e}.decision IS NULL THEN 'undecided'
    WHEN ${e}.decision = 'timing' AND ${e}.expected_clear_by >= ${e}.as_of THEN 'pending'
    WHEN ${e}.decision = 'timing' THEN 'overdue'
    ELSE 'decided'
  END`;
}
