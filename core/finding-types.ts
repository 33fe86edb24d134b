/**
 * The registry of finding types: the one list of the `exception_type` values (README "For finance"), each with every
 * rule that depends on its type — its family (its workbook sheet), its cost bridge step, the amount shown next to it,
 * when it is pending, what a `reverse` reverses, the rule that raises it, what it means and what to do. The SQL reads
 * it as the input `cfg_exception_types`; the report, `findings`, `actions plan`, the README and docs/DATA.md are
 * made from it (test/core/finding-registry.test.ts). A new type of a family is one row here, one rule in its family's
 * model (sql/intermediate/int_recon_findings__<family>.sql) and a test (test/architecture/finding-type-files.test.ts).
 */

/** The families, in sheet order: each is one sheet of the workbook. */
export const findingFamilies = [
  {
    family: 'missing',
    sheet: 'Missing',
    description: 'orders missing at the provider or in the ledger',
    layout: 'compared',
    // missing_at_provider carries its proof of absence: windows | lookup | unproven (README "Proof of absence")
    proofColumn: true,
    // a missing row's best suggested match (issue 29): check it before delivering a key or refunding
    suggestionColumn: true,
  },
  {
    family: 'amounts',
    sheet: 'Amounts',
    description: 'matched orders whose cost, price, currency or product differ',
    layout: 'compared',
    proofColumn: false,
    suggestionColumn: false,
  },
  {
    family: 'status',
    sheet: 'Status',
    description: 'canceled but booked, refunded not reversed, unknown status',
    layout: 'compared',
    proofColumn: false,
    suggestionColumn: false,
  },
  {
    family: 'duplicates',
    sheet: 'Duplicates',
    description: 'references with more than one sale or ledger line',
    layout: 'compared',
    proofColumn: false,
    suggestionColumn: false,
  },
  {
    family: 'cutoff',
    sheet: 'Cutoff',
    description: 'matched orders the two sides put in different periods',
    layout: 'compared',
    proofColumn: false,
    suggestionColumn: false,
  },
  // Its own layout (reports/report-sheets.ts): a key's age and cost at stake rather than two sides compared.
  {
    family: 'unredeemed',
    sheet: 'Unredeemed keys',
    description: 'keys booked or unsent, older than unredeemedAfterDays; amount: the cost at stake',
    layout: 'aging',
    proofColumn: false,
    suggestionColumn: false,
  },
] as const satisfies readonly FindingFamilyRow[];

export type FindingFamily = (typeof findingFamilies)[number]['family'];

/** The family names alone, in sheet order (`findings decide --family`). */
export const findingFamilyNames: readonly FindingFamily[] = findingFamilies.map((row) => row.family);

/**
 * The money of a finding (reports/finding-amount.ts, issue 30): every finding's amount is its effect on its
 * currency's cost bridge (`recon_exceptions.amount`); `cost_at_stake`: a finding that moves no cost yet also puts
 * its cost at stake (`provider_value`), counted apart as its `exposure`, never added to an amount.
 */
export type FindingAmountRule = 'bridge_effect' | 'cost_at_stake';

/**
 * When a finding counts as pending rather than as a break (reports/finding-state.ts): only by a `timing` decision
 * not yet due, or also while the other period does not hold the same finding for its pair (a cutoff is reported in
 * both months; until the other one is reconciled it is expected to clear).
 */
export type FindingPendingRule = 'by_decision' | 'until_paired';

/**
 * What a `reverse` decision on it reverses (pipelines/actions/plan.ts): its provider sale, or its sale and every
 * later sale of the same reference not canceled (a duplicate keeps its first sale), or nothing (not reversible:
 * no provider sale to reverse).
 */
export type FindingReversal = 'its_sale' | 'its_sale_and_later_duplicates' | null;

/** A family: one sheet of the workbook, in one of two layouts. */
export interface FindingFamilyRow {
  family: string;
  sheet: string;
  description: string;
  /** `compared`: the two sides side by side (reports/report-sheets.ts); `aging`: a key's age and cost at stake. */
  layout: 'compared' | 'aging';
  /** Whether its sheet shows the proof of absence column. */
  proofColumn: boolean;
  /** Whether its sheet shows each row's best suggested match (README "Suggested matches"). */
  suggestionColumn: boolean;
}

export interface FindingTypeRow {
  type: string;
  family: FindingFamily;
  /** Its step in recon_bridge (1–9), with the step's label; null when it moves no cost between the two sides. */
  bridge: { step: number; label: string } | null;
  amount: FindingAmountRule;
  pending: FindingPendingRule;
  reverses: FindingReversal;
  /** When the rule model raises it (docs/DATA.md). */
  rule: string;
  /** What it means and what to do (the README). */
  means: string;
  todo: string;
  /** Not a cost: its journal lines need `journal.accounts.<type>` of its own, never the cost accounts of `default`. */
  ownJournalAccounts?: true;
  /** A journal fix reverses the booking in the ledger's currency and books the sale in the provider's (issue 30). */
  rebooksCurrency?: true;
}

/** Every finding type, in the order every summary, report and email lists them. */
export const findingTypes = [
  {
    type: 'missing_at_provider',
    family: 'missing',
    bridge: { step: 1, label: 'Paid ledger orders missing at the provider' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule:
      'an active ledger order of the period has no provider sale, even after looking its reference up individually ' +
      '(`reconciliation.lookupMissing`, needs API credentials)',
    means:
      'a paid order in our ledger has no sale at the provider, even after pinrecon looked its reference up ' +
      'individually',
    todo:
      'check its suggested match first (Suggested matches sheet): a near-miss reference is the same purchase; ' +
      'else check whether the shop called pre-redeem for it; if the customer paid but got no key, deliver or refund',
  },
  {
    type: 'missing_in_ledger',
    family: 'missing',
    bridge: { step: 2, label: 'Provider sales missing in the ledger' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: 'its_sale',
    rule: 'a billable provider sale of the period has no ledger order',
    means: 'the provider sold (and will charge) a key we have no order for',
    todo: 'find the order in the shop; if there is none, dispute it with the provider',
  },
  {
    type: 'cost_mismatch',
    family: 'amounts',
    bridge: { step: 8, label: 'Cost differences beyond tolerance' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'a matched pair: abs(partner_cost_price − expected_cost) > `costTolerance`',
    means: "the provider's cost differs from our expected cost by more than the tolerance",
    todo: 'check the price list of the period; claim the difference or correct our cost table',
  },
  {
    type: 'price_mismatch',
    family: 'amounts',
    bridge: null,
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'a matched pair: the sales prices differ by more than `priceTolerance` (default: costTolerance)',
    means: 'the sales prices differ by more than the tolerance',
    todo: 'check for promotions or a stale catalog in the shop',
    ownJournalAccounts: true,
  },
  {
    type: 'currency_mismatch',
    family: 'amounts',
    bridge: { step: 7, label: 'Pairs in different currencies' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'a matched pair in different currencies',
    means: 'the two sides recorded different currencies',
    todo: 'usually a shop configuration error for a country; fix and re-book',
    rebooksCurrency: true,
  },
  {
    type: 'product_mismatch',
    family: 'amounts',
    bridge: null,
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'a matched pair with different product ids',
    means: 'the two sides recorded different products for the same order',
    todo: 'the shop sold one product and booked another: correct the ledger or reverse',
  },
  {
    type: 'unredeemed_key',
    family: 'unredeemed',
    bridge: null,
    amount: 'cost_at_stake',
    pending: 'by_decision',
    reverses: 'its_sale',
    rule:
      'a sale of the period that is not canceled and is in class booked or has `key_sent_to_customer = false`, older ' +
      'than ' +
      '`unredeemedAfterDays` at as_of (an unknown status counts as not canceled)',
    means:
      'a key booked at the provider (not redeemed, not canceled, or not sent to the customer) is older than ' +
      '`unredeemedAfterDays`',
    todo: 'contact the customer, or reverse the sale before it is charged',
  },
  {
    type: 'duplicate_reference',
    family: 'duplicates',
    bridge: { step: 3, label: 'Duplicate references' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: 'its_sale_and_later_duplicates',
    rule:
      'a reference with more than one provider transaction or more than one ledger line (one finding per ' +
      'reference)',
    means: 'one order number has more than one provider sale, or more than one ledger line',
    todo: 'reverse the extra provider sale; merge the duplicated ledger lines',
  },
  {
    type: 'canceled_but_booked',
    family: 'status',
    bridge: { step: 5, label: 'Canceled by the provider, paid in the ledger' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'the provider canceled the sale while the ledger order is paid',
    means: 'the provider canceled the sale while our ledger order is paid',
    todo: 'refund the customer or re-issue the key',
  },
  {
    type: 'refunded_not_reversed',
    family: 'status',
    bridge: { step: 6, label: 'Refunded in the ledger, not reversed at the provider' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: 'its_sale',
    rule:
      'the ledger order is refunded or canceled while the provider sale is not canceled (an unknown status ' +
      'included)',
    means: 'our order is refunded or canceled but the provider sale is not canceled',
    todo: 'reverse the sale at the provider, or we keep paying for it',
  },
  {
    type: 'cutoff_difference',
    family: 'cutoff',
    bridge: { step: 4, label: 'Pairs split across periods (cutoff)' },
    amount: 'bridge_effect',
    pending: 'until_paired',
    reverses: null,
    rule: 'a matched pair whose ledger paid_at and provider transaction_at fall in different local months',
    means: 'matched, but the two sides put it in different months',
    todo: "no money is lost; note it in the close so both months' totals are explained",
  },
  {
    type: 'unknown_status',
    family: 'status',
    bridge: { step: 9, label: 'Sales with an unknown provider status' },
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'the provider status is not in `statusMap`',
    means: 'the provider reported a status pinrecon does not know',
    todo: 'tell operations: add it to `reconciliation.statusMap`',
  },
  {
    type: 'reference_mismatch',
    family: 'missing',
    bridge: null,
    amount: 'bridge_effect',
    pending: 'by_decision',
    reverses: null,
    rule: 'a confirmed suggested match (`pinrecon matches confirm`): a pair whose two sides carry different references',
    means: 'a person confirmed that an order and a sale under two spellings of the reference are one purchase',
    todo:
      "correct the reference in the shop's ledger, or accept it; the pair's other differences are its " +
      'other findings',
  },
] as const satisfies readonly FindingTypeRow[];

export type FindingType = (typeof findingTypes)[number]['type'];

/** The type names alone, in registry order. */
export const findingTypeNames: readonly FindingType[] = findingTypes.map((row) => row.type);

/** The names of the types whose row passes `test`, in registry order: how code reads a per-type rule. */
export function findingTypesWhere(test: (row: FindingTypeRow) => boolean): string[] {
  return (findingTypes as readonly FindingTypeRow[]).filter(test).map((row) => row.type);
}

/** SQL: `<column> IN ('a', 'b')` for the type names given; `false` when there are none. */
export function findingTypeInSql(column: string, types: readonly string[]): string {
  if (types.length === 0) return 'false';
  return `${column} IN (${types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ')})`;
}

/** The registry as the rows of the SQL input `cfg_exception_types` (sql/inputs/cfg_exception_types.sql). */
export function findingTypeInputRows(): [string, string, number, number | null, string | null, string | null][] {
  return findingTypes.map((row: FindingTypeRow, index) => [
    row.type,
    row.family,
    index + 1,
    row.bridge?.step ?? null,
    row.bridge?.label ?? null,
    row.amount === 'cost_at_stake' ? 'provider_value' : null,
  ]);
}

/** The registry's row of a type (undefined for a name it does not know). */
export function findingTypeRow(type: string): FindingTypeRow | undefined {
  return (findingTypes as readonly FindingTypeRow[]).find((row) => row.type === type);
}

/** Types whose cost at stake is their `exposure`, apart from their amount (issue 30). */
export const exposureTypes: readonly string[] = findingTypesWhere((row) => row.amount === 'cost_at_stake');
