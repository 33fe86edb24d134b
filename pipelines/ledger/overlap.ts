/**
 * Whether a ledger file being imported overlaps another file already loaded (a copy, a truncated copy or another
 * export of the same ledger): importing both would double its orders, so the import is refused (issue 18).
 */

import { JobError } from '../../core/errors.js';
import type { Warehouse } from '../../core/warehouse.js';

/** Another imported file that holds most of this file's references. */
export interface LedgerOverlap {
  otherFile: string;
  importedAt: string;
  /** Distinct references of this file also loaded from otherFile. */
  shared: number;
  /** Distinct references of this file. */
  references: number;
}

/**
 * More than this share of a new file's references already loaded from one other file means a copy, a
 * truncated copy or another export of the same ledger: importing both doubles its orders (issue 18). Issue 34: at
 * a half, a ledger sharing 45 % with the imported one went in without a word (4,212 orders doubled); two
 * consecutive months sharing the orders paid across their boundary (a quarter of the smaller one) still go in.
 */
export const overlapRatio = 0.4;

/**
 * The other imported file (not this path, not this content, not the one it replaces) that holds the most of
 * this file's distinct references, when that is more than `overlapRatio` of them; else undefined.
 */
export async function overlapWithOtherFile(
  warehouse: Warehouse,
  incoming: { sourceFile: string; fileHash: string; insteadOf: string },
): Promise<LedgerOverlap | undefined> {
  // No line of another file loaded (a first import): nothing to share, and the staged references need no reading.
  const other = await warehouse.one(
    'SELECT 1 FROM ledger WHERE source_file NOT IN ($1, $3) AND file_hash <> $2 LIMIT 1',
    [incoming.sourceFile, incoming.fileHash, incoming.insteadOf],
  );
  if (!other) return undefined;
  const row = await warehouse.one<{ other_file: string; imported_at: string; shared: string; references: string }>(
    `WITH incoming AS (SELECT DISTINCT trim(partner_reference) AS reference FROM temp.ledger_import_staged),
          others AS (SELECT DISTINCT source_file, trim(partner_reference) AS reference FROM ledger
                      WHERE source_file NOT IN ($1, $3) AND file_hash <> $2),
          shared AS (SELECT source_file, count(*) AS shared FROM others JOIN incoming USING (reference)
                     GROUP BY source_file)
     SELECT s.source_file AS other_file, strftime(f.imported_at, '%Y-%m-%d %H:%M:%S %Z') AS imported_at, s.shared,
            (SELECT count(*) FROM incoming) AS "references"
       FROM shared s LEFT JOIN ledger_files f ON f.source_file = s.source_file
      ORDER BY s.shared DESC, s.source_file LIMIT 1`,
    [incoming.sourceFile, incoming.fileHash, incoming.insteadOf],
  );
  if (!row || Number(row.shared) <= Number(row.references) * overlapRatio) return undefined;
  return {
    otherFile: row.other_file,
    importedAt: row.imported_at ?? 'an earlier import',
    shared: Number(row.shared),
    references: Number(row.references),
  };
}

export function describeOverlap(file: string, overlap: LedgerOverlap): string {
  const share = Math.round((overlap.shared / overlap.references) * 100);
  const where = `${overlap.otherFile} (imported at ${overlap.importedAt})`;
  return (
    `${overlap.shared} of the ${overlap.references} references of ${file} (${share}%) ` +
    `are already loaded from ${where}`
  );
}

export function overlapRefused(file: string, overlap: LedgerOverlap): JobError {
  return new JobError(
    `Refused to import ${file}: ${describeOverlap(file, overlap)}. A copy, a truncated copy or another export of the ` +
      `same ledger ` +
      `would count those orders twice (duplicate_reference findings). Nothing was changed.`,
    `If ${file} replaces ${overlap.otherFile}, import it instead of it: ` +
      `pinrecon ledger import ${quoteArgument(file)} --instead-of ${quoteArgument(overlap.otherFile)} ` +
      `(the lines it replaces are kept in ledger_history). ` +
      `If both are genuine ledgers that share references, import it with --allow-overlap.`,
  );
}

/** A path as a shell argument (quoted when it holds anything but plain characters). */
function quoteArgument(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
