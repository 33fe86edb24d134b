/**
 * The `reports` section of the configuration: where workbooks and exports go and the paper they print on.
 */
import { z } from 'zod';

/** `pinrecon report` and `export`. */
export const reportsSchema = z
  .strictObject({
    /**
     * Where workbooks (pinrecon-<period>.xlsx), dry-run emails and exports are written.
     * Environment: PINRECON_REPORTS_DIR.
     * @default 'data/reports'
     */
    outDir: z.string().default('data/reports'),
    /**
     * The paper the workbook is laid out for when printed: `A4` (most of the world) or `letter` (US). The
     * Summary prints portrait on at most 2 pages, each finding sheet landscape with its key columns (finding
     * id, reference, type, amounts, decision, note) on every page; text is never scaled below 8 pt.
     * @default 'A4'
     */
    paperSize: z.enum(['A4', 'letter']).default('A4'),
  })
  .prefault({});

export type ReportsConfig = z.output<typeof reportsSchema>;
