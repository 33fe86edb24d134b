/**
 * Near-miss references the ledger generator plants (issue 29): a ledger order typed with its sale's reference
 * misspelled in one of the ways people do — case, separators, a leading zero, a transposition, a substitution, a
 * dropped digit, the letter O for a zero — each of which `reconcile` must propose as a suggested match, and decoys it
 * must not: a near reference with another product, cost and date, and a near reference to a sale already matched.
 */

/** The kinds of misspelling, each proposed at rank 1. */
export const nearMissKinds = [
  'near_miss_case',
  'near_miss_separator',
  'near_miss_leading_zero',
  'near_miss_transposition',
  'near_miss_substitution',
  'near_miss_dropped_digit',
  'near_miss_letter_o',
] as const;

export type NearMissKind = (typeof nearMissKinds)[number];

/** Decoys: near references that must not be proposed. */
export const decoyKinds = ['decoy_other_product_and_date', 'decoy_matched_sale'] as const;

export type DecoyKind = (typeof decoyKinds)[number];

/**
 * The reference as the ledger's keeper mistyped it. References look like `PO-2026-0001234`; each variant is built
 * so that it can never be another sale's exact reference (no real one is lower case, has 6 digits, or a letter
 * where a digit belongs), so the order stays unmatched by its reference.
 */
export function nearMissReference(kind: NearMissKind | DecoyKind, reference: string): string {
  const ref = reference.trim();
  switch (kind) {
    case 'near_miss_case':
      return ref.toLowerCase();
    case 'near_miss_separator':
      return ref.replaceAll('-', ' ');
    case 'near_miss_leading_zero': {
      // one zero fewer (or more) in front of the number: equal once leading zeros are set aside
      const match = /^(.*-)(0*)(\d+)$/.exec(ref);
      if (!match) return `${ref}0`;
      const [, head, zeros, digits] = match as unknown as [string, string, string, string];
      return zeros.length > 0 ? `${head}${zeros.slice(1)}${digits}` : `${head}0${zeros}${digits}`;
    }
    case 'near_miss_transposition':
      // the first two characters swapped: one Damerau-Levenshtein edit
      return `${ref[1] ?? ''}${ref[0] ?? ''}${ref.slice(2)}`;
    case 'near_miss_substitution':
      return `${ref[0] ?? ''}${ref[1] === 'Q' ? 'R' : 'Q'}${ref.slice(2)}`;
    case 'near_miss_dropped_digit': {
      // the year's last digit dropped: PO-202-0001234
      const at = ref.indexOf('-', 3);
      return at > 1 ? `${ref.slice(0, at - 1)}${ref.slice(at)}` : ref.slice(0, -1);
    }
    case 'near_miss_letter_o': {
      const at = ref.indexOf('0');
      return at >= 0 ? `${ref.slice(0, at)}O${ref.slice(at + 1)}` : `${ref}O`;
    }
    case 'decoy_other_product_and_date':
    case 'decoy_matched_sale':
      return `${ref[0] ?? ''}${ref[1] === 'Q' ? 'R' : 'Q'}${ref.slice(2)}`;
  }
}

/** A suggestion reconcile must propose: the misspelled order's reference and its sale. */
export interface PlantedSuggestion {
  kind: NearMissKind;
  ledgerReference: string;
  transactionId: number;
}

/**
 * The sales regrouped as if the planted suggestions were confirmed: each confirmed sale carries its order's
 * reference (what reconcile does with a confirmed pair), and the pairs that become one pair are reference_mismatch.
 */
export function confirmedSales<S extends { transactionId: number; partnerReference: string }>(
  sales: S[],
  confirmed: PlantedSuggestion[],
): S[] {
  const referenceOf = new Map(confirmed.map((c) => [c.transactionId, c.ledgerReference]));
  return sales.map((s) => {
    const reference = referenceOf.get(s.transactionId);
    return reference === undefined ? s : { ...s, partnerReference: reference };
  });
}

/** What a near-miss or decoy break makes of a sale's ledger line (undefined: not such a break). */
export function nearMissLines<L extends { reference: string; productId: number; cost: number; paidAtMs: number }>(
  kind: string,
  normal: L,
): L[] | undefined {
  if ((nearMissKinds as readonly string[]).includes(kind))
    return [{ ...normal, reference: nearMissReference(kind as NearMissKind, normal.reference) }];
  const decoy = nearMissReference('decoy_matched_sale', normal.reference);
  // the sale keeps its order; another order, one letter off, has no sale of its own
  if (kind === 'decoy_matched_sale') return [normal, { ...normal, reference: decoy }];
  if (kind !== 'decoy_other_product_and_date') return undefined;
  // the sale has no order; an order one letter off is of another product and cost, ten days away (in its month)
  const tenDays = 10 * 86_400_000;
  const day = new Date(normal.paidAtMs).getUTCDate();
  const paidAtMs = normal.paidAtMs + (day > 15 ? -tenDays : tenDays);
  return [
    { ...normal, reference: decoy, productId: normal.productId + 9_000, cost: normal.cost * 2 + 10_000, paidAtMs },
  ];
}
