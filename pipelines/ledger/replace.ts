/**
 * Moving one ledger file's staged rows into place in one transaction (docs/ARCHITECTURE.md, "Ledger import: what
 * replaces what"): the rows of its content and of whatever was loaded from its path before are removed (kept in
 * `ledger_history`, or refused when far fewer lines replace them), the staged rows and rejects are inserted and
 * the file is recorded in `ledger_files`.
 */
import { JobError, UsageError } from '../../core/errors.js';
import type { Config } from '../../config/schema.js';
import type { LedgerFormat } from '../../sources/ledger/types.js';
import { overlapRefused, overlapWithOtherFile, type LedgerOverlap } from './overlap.js';
import type { Warehouse } from '../../core/warehouse.js';

/**
 * What a file's import replaced: the same content imported before, another content of its path, an overlap let through.
 */
export interface LedgerReplaceOutcome {
  /** The same content was imported before: its rows stay under `sourceFile`, the path it was first loaded from. */
  replaced?: { sourceFile: string; importedAt: string };
  /** Another content was loaded from this path (or from `--instead-of`): its rows were removed. */
  superseded?: { fileHash: string; importedAt: string; lines: number };
  /** Most of this file's references were already loaded from another file, and --allow-overlap imported it anyway. */
  overlap?: LedgerOverlap;
}

/** The file being imported and its staged counts. */
export interface IncomingLedgerFile {
  sourceFile: string;
  fileHash: string;
  format: LedgerFormat;
  accepted: number;
  rejected: number;
  runId: string;
  replace: boolean;
  allowOverlap: boolean;
  /** Another imported path this file replaces (`--instead-of`). */
  insteadOf: string | undefined;
}

/**
 * In one transaction: guards and keeps the lines it replaces (keepReplacedLines), removes the rows of this
 * content and of whatever was loaded from this path before, loads the staged rows (temp.ledger_import_staged)
 * and rejects (temp.ledger_import_rejects), and records the file.
 */
export async function replaceLedgerRows(
  warehouse: Warehouse,
  config: Config,
  incoming: IncomingLedgerFile,
): Promise<LedgerReplaceOutcome> {
  const { sourceFile, fileHash, format, accepted, rejected, runId, replace } = incoming;
  const insteadOf = incoming.insteadOf ?? sourceFile;
  return warehouse.transaction(async () => {
    const previous = await warehouse.all<{
      file_hash: string;
      source_file: string;
      imported_at: string;
      lines: string;
    }>(
      `SELECT file_hash, source_file, strftime(imported_at, '%Y-%m-%d %H:%M:%S %Z') AS imported_at, lines
         FROM ledger_files WHERE file_hash = $1 OR source_file IN ($2, $3)`,
      [fileHash, sourceFile, insteadOf],
    );
    if (insteadOf !== sourceFile && !previous.some((p) => p.source_file === insteadOf)) {
      throw new UsageError(
        `--instead-of ${insteadOf}: nothing is loaded from that path. The imported files are listed by ` +
          `pinrecon query "SELECT source_file, imported_at, lines FROM ledger_files".`,
      );
    }
    const overlap = await overlapWithOtherFile(warehouse, { sourceFile, fileHash, insteadOf });
    if (overlap && !incoming.allowOverlap) throw overlapRefused(sourceFile, overlap);
    const same = previous.find((p) => p.file_hash === fileHash);
    const older = previous.find((p) => p.file_hash !== fileHash);
    // Loaded once: the rows of a content stay under the path it was first loaded from.
    const loadedFrom = same?.source_file ?? sourceFile;
    await keepReplacedLines(warehouse, config, { sourceFile, fileHash, accepted, replace, runId, insteadOf });
    // Supersede by the rows' own source_file (whatever is loaded from this path, or the one it replaces), and replace
    // this content.
    for (const table of ['ledger', 'ledger_rejects', 'ledger_files']) {
      await warehouse.run(`DELETE FROM ${table} WHERE source_file IN ($1, $3) OR file_hash = $2`, [
        sourceFile,
        fileHash,
        insteadOf,
      ]);
    }
    await warehouse.run(
      `INSERT INTO ledger (partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost,
                           currency_code, country_code, order_status, source_file, source_line, file_hash, run_id)
       SELECT partner_reference, product_id, coalesce(paid_instant, timezone($tz, paid_local)), paid_at_raw,
              sales_price, expected_cost, currency_code, country_code, order_status, $file, source_line, $hash, $run
         FROM temp.ledger_import_staged`,
      { tz: config.timezone, file: loadedFrom, hash: fileHash, run: runId },
    );
    await warehouse.run(
      `INSERT INTO ledger_rejects (source_file, source_line, reason, raw, file_hash, run_id)
       SELECT $file, source_line, reason, raw, $hash, $run FROM temp.ledger_import_rejects`,
      { file: loadedFrom, hash: fileHash, run: runId },
    );
    await warehouse.run(
      `INSERT INTO ledger_files (file_hash, source_file, format, lines, accepted, rejected, imported_at, run_id)
       VALUES ($1, $2, $3, $4, $5, $6, now(), $7)`,
      [fileHash, loadedFrom, format, accepted + rejected, accepted, rejected, runId],
    );
    const outcome: LedgerReplaceOutcome = {};
    if (same) outcome.replaced = { sourceFile: same.source_file, importedAt: same.imported_at };
    if (older)
      outcome.superseded = { fileHash: older.file_hash, importedAt: older.imported_at, lines: Number(older.lines) };
    if (overlap) outcome.overlap = overlap;
    return outcome;
  });
}

/**
 * Guards the accepted lines this import is about to remove (those of its path and of its content): refuses
 * (JobError, exit 1; the transaction rolls back) to replace them with none or with fewer than
 * `ledger.minReplaceRatio` of them unless `replace`, and copies them to `ledger_history` otherwise. A
 * re-import of the same content that yields as many lines replaces identical rows: nothing to keep then.
 */
const historyColumns =
  'partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost, currency_code, country_code, ' +
  'order_status, source_file, source_line, file_hash, run_id';

function replacedPaths(sourceFile: string, insteadOf: string): string {
  return insteadOf === sourceFile ? sourceFile : `${sourceFile} and ${insteadOf}`;
}

async function keepReplacedLines(
  warehouse: Warehouse,
  config: Config,
  incoming: {
    sourceFile: string;
    fileHash: string;
    accepted: number;
    replace: boolean;
    runId: string;
    insteadOf: string;
  },
): Promise<void> {
  const current = (await warehouse.one<{ lines: string; other_content: string }>(
    `SELECT count(*) AS lines, count(*) FILTER (WHERE file_hash <> $2) AS other_content
       FROM ledger WHERE source_file IN ($1, $3) OR file_hash = $2`,
    [incoming.sourceFile, incoming.fileHash, incoming.insteadOf],
  ))!;
  const lines = Number(current.lines);
  if (lines === 0) return;
  const ratio = config.ledger.minReplaceRatio;
  if (!incoming.replace && (incoming.accepted === 0 || incoming.accepted < lines * ratio)) {
    throw new JobError(
      `Refused to replace the ${lines} accepted ledger lines loaded from ` +
        `${replacedPaths(incoming.sourceFile, incoming.insteadOf)} ` +
        `with the ${incoming.accepted} accepted lines of this file ` +
        `(fewer than ${Math.round(ratio * 100)}% of them: a truncated or wrong export?). Nothing was changed.`,
      `Check the file (its size, its last line, the delimiter and encoding). If it is right, import it again with ` +
        `--replace; ` +
        `the lines it replaces are kept in ledger_history. The threshold is ledger.minReplaceRatio (now ${ratio}).`,
    );
  }
  if (Number(current.other_content) === 0 && incoming.accepted === lines) return;
  await warehouse.run(
    `INSERT INTO ledger_history (${historyColumns}, superseded_at, superseded_by_run)
     SELECT ${historyColumns}, now(), $3 FROM ledger WHERE source_file IN ($1, $4) OR file_hash = $2`,
    [incoming.sourceFile, incoming.fileHash, incoming.runId, incoming.insteadOf],
  );
}
