/**
 * A finding's amount, as SQL over `recon_exceptions` — the one rule behind every amount a person reads next to
 * a finding (`findings list`, the Summary's decisions table, the finding sheets, the email's largest findings):
 * - an `unredeemed_key` puts its cost at stake: the provider's `partnerCostPrice` (provider_value), paid for a
 *   key nobody has redeemed. It moves nothing between the ledger and the provider, so its cost bridge effect
 *   (`amount`) is 0 — which is why the decisions table once showed these keys at 0 (issue 14);
 * - every other finding: its effect on the cost bridge of its currency (`amount`, 0 when it moves no cost).
 * `amount` itself stays the bridge effect: the bridge and the sign-off's amount delta add it up.
 */

/** SQL: the amount of the recon_exceptions row aliased `alias` (DECIMAL, never NULL). */
export function findingAmountSql(alias: string): string {
  const e = alias;
  return `(CASE WHEN ${e}.exception_type = 'unredeemed_key' THEN coalesce(${e}.provider_value, 0) ELSE coalesce(${e}.amount, 0) END)`;
}

/** What the rule says, for the Summary and the help of `findings list`. */
export const findingAmountRule =
  "Amount: a finding's effect on the cost bridge; for an unredeemed key, its cost at stake (the provider's partnerCostPrice).";
