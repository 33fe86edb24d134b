/**
 * The `reconciliation` section of the configuration: tolerances and status classes `pinrecon reconcile` uses.
 */
import { z } from 'zod';
import { money } from './common.js';

/** `pinrecon reconcile`: how the two sides are compared. */
export const reconciliationSchema = z
  .strictObject({
    /**
     * Largest difference between expected and charged cost that is not a cost_mismatch.
     * @default 0.01
     */
    costTolerance: money.default(0.01),
    /**
     * Largest difference between the two sales prices that is not a price_mismatch.
     * @default undefined (costTolerance)
     */
    priceTolerance: money.optional(),
    /**
     * A booked or unsent key older than this many days at as-of is an unredeemed_key.
     * @default 3
     */
    unredeemedAfterDays: z.number().int().nonnegative().default(3),
    /**
     * Provider status text → class (redeemed, canceled, booked); a status not listed is unknown_status.
     * @default { 'Redeemed by Client': 'redeemed', 'Canceled in stock': 'canceled', delivered: 'booked' }
     */
    statusMap: z
      .record(z.string(), z.enum(['redeemed', 'canceled', 'booked']))
      .default({ 'Redeemed by Client': 'redeemed', 'Canceled in stock': 'canceled', delivered: 'booked' }),
    /**
     * Look up every would-be missing_at_provider reference individually before concluding (needs credentials).
     * @default true
     */
    lookupMissing: z.boolean().default(true),
    /**
     * Suggested matches (issue 29): near-miss references proposed for a person to confirm or reject; pairs scoring
     * below minScore (0-100) are not stored; the two sides' dates at most maxDays apart.
     * @default { enabled: true, minScore: 60, maxDays: 3 }
     */
    suggest: z
      .strictObject({
        enabled: z.boolean().default(true),
        minScore: z.number().int().min(0).max(100).default(60),
        maxDays: z.number().int().min(0).max(31).default(3),
      })
      .prefault({}),
    /**
     * Per currency (ISO 4217 → threshold): an undecided finding whose money at issue (its difference, else its
     * cost bridge amount; never 0) is at most `absolute` and, when `percent` is set, at most that percent of its
     * agreed value (ledger_value), is decided `accepted` by the rule after each reconcile — recorded like any
     * decision, by `rule:materiality`, with the threshold in its note, and listed apart in the Summary (issue 30).
     * A currency not listed has no materiality; a finding with an exposure (a key's cost at stake) never falls under
     * it.
     * @default {}
     */
    materiality: z
      .record(
        z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as "BRL"'),
        z
          .strictObject({ absolute: money, percent: z.number().min(0).max(100).optional() })
          .describe('{ "absolute": 5, "percent": 1 }'),
      )
      .default({}),
  })
  .prefault({});

export type ReconciliationConfig = z.output<typeof reconciliationSchema>;
