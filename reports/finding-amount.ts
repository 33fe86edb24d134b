/**
 * A finding's amount, as SQL over `recon_exceptions`: the one rule behind every amount a person reads next to a
 * finding. Its registry row says which (core/finding-types.ts `amount`): a finding that moves no cost (an
 * `unredeemed_key`) puts its cost at stake (provider_value: paid for a key nobody redeemed; its bridge effect
 * `amount` is 0); every other finding shows its effect on its currency's cost bridge (`amount`). `amount` itself stays
 * the bridge effect, which the bridge and the sign-off's delta add up.
 */
import { findingTypeInSql, findingTypesWhere } from '../core/finding-types.js';

/** The types whose amount is their cost at stake (issue 27: the registry owns the rule). */
const costAtStakeTypes = findingTypesWhere((row) => row.amount === 'cost_at_stake');

/** SQL: the amount of the recon_exceptions row aliased `alias` (DECIMAL, never NULL). */
export function findingAmountSql(alias: string): string {
  const e = alias;
  const atStake = findingTypeInSql(`${e}.exception_type`, costAtStakeTypes);
  return `(CASE WHEN ${atStake} THEN coalesce(${e}.provider_value, 0) ELSE coalesce(${e}.amount, 0) END)`;
}

/** What the rule says, for the Summary and the help of `findings list`. */
export const findingAmountRule =
  "Amount: a finding's effect on the cost bridge; for an unredeemed key, its cost at stake (the provider's partnerCostPrice).";
