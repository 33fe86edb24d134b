/**
 * The `analysts` section of the configuration: who besides pinrecon's own account may read the analysts'
 * snapshot and the exports (issue 31). Without a group they stay private to the account (0600).
 */
import { z } from 'zod';

/** Sharing the snapshot and exports with analysts on other Unix accounts. */
export const analystsSchema = z
  .strictObject({
    /**
     * A Unix group (name or numeric id) whose members may read the snapshot and the exports: they are
     * written 0640 with that group. The account running pinrecon must be a member of it.
     * @default undefined (0600: only the account running pinrecon)
     */
    group: z.string().min(1).optional(),
  })
  .prefault({});

export type AnalystsConfig = z.infer<typeof analystsSchema>;
