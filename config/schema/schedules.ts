/**
 * The `schedules` section of the configuration: the jobs `pinrecon schedule` runs on a cron expression.
 */
import { z } from 'zod';

/**
 * `pinrecon schedule`: jobs run on a cron expression, each with its job, the period it works on
 * (`previous`, `current` or YYYY-MM, default previous), whether it emails (default false) and an optional ledger file.
 * @default []
 */
export const schedulesSchema = z
  .array(
    z.strictObject({
      name: z.string().min(1),
      cron: z.string().min(1),
      job: z.enum(['run', 'extract', 'reconcile', 'report', 'catalog']),
      period: z
        .union([z.literal('previous'), z.literal('current'), z.string().regex(/^\d{4}-\d{2}$/)])
        .default('previous'),
      email: z.boolean().default(false),
      ledger: z.string().optional(),
    }),
  )
  .default([]);

export type SchedulesConfig = z.output<typeof schedulesSchema>;
