/**
 * The `ledger` section of the configuration: how `pinrecon ledger import` reads the partner's ledger file
 * (its encodings and delimiters, with the spellings people write them in).
 */
import { z } from 'zod';

export const ledgerEncodings = ['utf-8', 'latin1', 'windows-1252'] as const;
export type LedgerEncoding = (typeof ledgerEncodings)[number];

/** The usual spellings of the three encodings finance exports come in; undefined for anything else. */
export function normalizeEncoding(name: string): LedgerEncoding | undefined {
  const key = name.trim().toLowerCase().replace(/[\s_]/g, '-');
  if (['utf-8', 'utf8'].includes(key)) return 'utf-8';
  if (['latin1', 'latin-1', 'iso-8859-1', 'iso8859-1', 'l1'].includes(key)) return 'latin1';
  if (['windows-1252', 'cp1252', 'win-1252', 'win1252'].includes(key)) return 'windows-1252';
  return undefined;
}

export const ledgerDelimiters = [',', ';', '\t', '|'] as const;
export type LedgerDelimiter = (typeof ledgerDelimiters)[number];

/** A delimiter as written in a config or on a command line ("tab" and a literal backslash-t included). */
export function normalizeDelimiter(text: string): LedgerDelimiter | undefined {
  const value = ['tab', '\\t'].includes(text.toLowerCase()) ? '\t' : text;
  return (ledgerDelimiters as readonly string[]).includes(value) ? (value as LedgerDelimiter) : undefined;
}

/** `pinrecon ledger import`: the partner's own order ledger. */
export const ledgerSchema = z
  .strictObject({
    /**
     * The ledger file (CSV, XLSX, JSON, NDJSON or Parquet, by extension) the month-end job imports.
     * @default 'ledger.csv'
     */
    path: z.string().default('ledger.csv'),
    /**
     * Read a ledger path that is a symbolic link (issue 34: a planted link could make pinrecon read another
     * file of this account's); without it such a path is refused, naming it.
     * @default false
     */
    followSymlinks: z.boolean().default(false),
    /**
     * CSV field separator: `,`, `;`, `|` or tab (also written "tab" or "\\t").
     * @default ','
     */
    delimiter: z
      .string()
      .transform(
        (text, context) =>
          normalizeDelimiter(text) ??
          (context.addIssue({ code: 'custom', message: 'must be ",", ";", "|" or tab' }), z.NEVER),
      )
      .default(','),
    /**
     * CSV quote character.
     * @default '"'
     */
    quote: z.string().length(1).default('"'),
    /**
     * Decimal separator of money written as text.
     * @default '.'
     */
    decimalSeparator: z.enum(['.', ',']).default('.'),
    /**
     * Text encoding of a CSV file: utf-8, latin1 (ISO-8859-1) or windows-1252 (usual spellings accepted).
     * @default 'utf-8'
     */
    encoding: z
      .string()
      .transform(
        (text, context) =>
          normalizeEncoding(text) ??
          (context.addIssue({ code: 'custom', message: 'must be utf-8, latin1 (ISO-8859-1) or windows-1252' }),
          z.NEVER),
      )
      .default('utf-8'),
    /**
     * How dates written as text are read (date-fns tokens).
     * @default 'yyyy-MM-dd'
     */
    dateFormat: z.string().default('yyyy-MM-dd'),
    /**
     * Excel sheet to read.
     * @default undefined (the first sheet)
     */
    sheet: z.string().optional(),
    /**
     * Canonical column → header in the file, for headers that differ from the canonical names.
     * @default {} (the canonical names)
     */
    columns: z.record(z.string(), z.string()).default({}),
    /**
     * An import that would replace a path's accepted lines with fewer than this share of them (or with none)
     * is refused unless `--replace` (default 0.5: a truncated export must not wipe a good one).
     */
    minReplaceRatio: z.number().min(0).max(1).default(0.5),
  })
  .prefault({});

export type LedgerConfig = z.output<typeof ledgerSchema>;
