/**
 * A finding's amount and exposure, as SQL over `recon_exceptions` (issue 30: one meaning of amount). `amount` is
 * always its effect on its currency's cost bridge — what the bridge, the roll-forward, the decisions table and
 * the sign-off's delta add up. `exposure` is the cost at stake of a type whose registry row says `cost_at_stake` (an
 * unredeemed key: paid for a key nobody redeemed, moving no cost yet); it is shown, totalled, sorted and filtered
 * apart (`--max-exposure`), never added to an amount.
 */
import { exposureTypes, findingTypeInSql } from '../core/finding-types.js';

/** SQL: the amount of the recon_exceptions row aliased `alias`: its cost bridge effect (DECIMAL, never NULL). */
export function findingAmountSql(alias: string): string {
  return `coalesce(${alias}.amount, 0)`;
}

/**
 * SQL: the exposure of the row aliased `alias` (DECIMAL; NULL for a type without one). Read from provider_value
 * rather than the stored column, so rows reconciled before the column existed have it too.
 */
export function findingExposureSql(alias: string): string {
  const e = alias;
  const atStake = findingTypeInSql(`${e}.exception_type`, exposureTypes);
  return `(CASE WHEN ${atStake} THEN coalesce(${e}.provider_value, 0) END)`;
}

/** What the rule says, for the Summary and the help of `findings list`. */
export const findingAmountRule =
  "Amount: a finding's effect on the cost bridge. Exposure: an unredeemed key's cost at stake (the provider's " +
  'partnerCostPrice), counted apart and never added to amounts.';
