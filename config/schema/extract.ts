/**
 * The `extract` section of the configuration: how `pinrecon extract` windows and keeps the provider's sales.
 */
import { z } from 'zod';
import { calendarDate, memorySize } from './common.js';

/** `pinrecon extract`: the provider's sales, by calendar windows. */
export const extractSchema = z
  .strictObject({
    /**
     * Windows within this many days of today are always fetched again (statuses change).
     * @default 35
     */
    lookbackDays: z.number().int().nonnegative().default(35),
    /**
     * Where raw responses are kept, compressed.
     * @default undefined (`landing/` beside the database)
     */
    landingDir: z.string().optional(),
    /**
     * Longest window in days (the API allows 31).
     * @default 31
     */
    maxWindowDays: z.number().int().min(1).max(31).default(31),
    /**
     * DuckDB's memory while loading windows, if it should differ from `memoryLimit` (the job's setting is
     * restored after the windows).
     * @default memoryLimit
     */
    memoryLimit: memorySize.optional(),
    /**
     * YYYY-MM-DD: the provider holds no sale of ours created before this date (the partner's first sale, or
     * the start of the contract). With it, `extract` and `run` first back-fill the by-creation windows from
     * it, and the stored windows then prove a paid order without a provider sale absent (proof `windows`)
     * with no individual look-up; without it, only a look-up proves absence (README "Proof of
     * absence"). Environment: PINRECON_HISTORY_START.
     * @default undefined (no back-fill: absence is proven by look-ups)
     */
    historyStart: calendarDate.optional(),
  })
  .prefault({});

export type ExtractConfig = z.output<typeof extractSchema>;
