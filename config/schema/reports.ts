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
    /**
     * Who claims, as the heading of a claim (`actions export --kind claim`) names the partner to the provider.
     * @default undefined (api.identifier)
     */
    partnerName: z.string().min(1).optional(),
    /**
     * Who is claimed from, as the heading of a claim names the provider.
     * @default undefined (the host of api.baseUrl)
     */
    providerName: z.string().min(1).optional(),
  })
  .prefault({});

export type ReportsConfig = z.output<typeof reportsSchema>;
