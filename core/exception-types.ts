/** interface.md's `exception_type` values, in the order every summary, report and email lists them. */
export const exceptionTypes = [
  'missing_at_provider',
  'missing_in_ledger',
  'cost_mismatch',
  'price_mismatch',
  'currency_mismatch',
  'product_mismatch',
  'unredeemed_key',
  'duplicate_reference',
  'canceled_but_booked',
  'refunded_not_reversed',
  'cutoff_difference',
  'unknown_status',
] as const;

export type ExceptionType = (typeof exceptionTypes)[number];
