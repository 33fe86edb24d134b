/**
 * `ledger import`: loads one partner ledger file into `ledger` (accepted lines) and `ledger_rejects` (every
 * other line, with reason and text), recorded in `ledger_files`. A re-import of a path, or of the same content,
 * replaces its rows; a replacement with too few lines is refused unless `replace`; removed rows go to
 * `ledger_history`. Rows are staged, then moved into place in one transaction (docs/ARCHITECTURE.md, "Design
 * notes by module": the replace rules and the staging).
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { JobError, UsageError } from '../core/errors.js';
import type { Config } from '../config/schema.js';
import type { Output } from '../core/output.js';
import { CsvByteScan, type ByteFacts } from '../sources/ledger/csv-bulk.js';
import { chooseSheet } from '../sources/ledger/xlsx.js';
import {
  formatFromExtension,
  locationUnit,
  type LedgerFormat,
  type LedgerReadSettings,
  type LedgerReject,
} from '../sources/ledger/types.js';
import { describeOverlap, overlapRefused, overlapWithOtherFile, type LedgerOverlap } from './ledger-overlap.js';
import { dropStaging, stage, type LedgerReader } from './ledger-staging.js';
import { recordRun } from './run-trace.js';
import type { Warehouse } from '../core/warehouse.js';

export interface LedgerImportOptions {
  parentRunId?: string;
  /** Default: from the file's extension. */
  format?: LedgerFormat;
  /** Overrides of the config's `ledger` settings for this file (the CLI's --delimiter, --encoding...). */
  overrides?: Partial<Omit<LedgerReadSettings, 'format' | 'columns'>>;
  /** Replace the path's lines even when the file holds far fewer accepted lines (`ledger.minReplaceRatio`). */
  replace?: boolean;
  /**
   * How a CSV is read: `auto` (default) in bulk by DuckDB where that reads it exactly, else line by line;
   * `streaming` line by line always (the tests and the bench compare the two).
   */
  reader?: 'auto' | 'streaming';
  /**
   * Import although most of this file's references are already loaded from another file (a copy or another
   * export of the same ledger would double its orders).
   */
  allowOverlap?: boolean;
  /** Another imported path this file replaces: what was loaded from it is superseded as this path's own is. */
  insteadOf?: string;
}

export interface LedgerImportSummary {
  runId: string;
  file: string;
  format: LedgerFormat;
  fileHash: string;
  /** XLSX: the sheet read (`ledger.sheet`, else the first tab). */
  sheet?: string;
  /** Data lines read: every record after the header (accepted + rejected). */
  lines: number;
  /**
   * CSV and XLSX: rows above the header (a title line, an export date), skipped: not data, so neither
   * accepted nor rejected and not counted in `lines`.
   */
  skippedAboveHeader: number;
  accepted: number;
  rejected: number;
  /** The first 5 rejects, in file order. */
  firstRejects: LedgerReject[];
  reader: LedgerReader;
  /** Bulk reader: the lines its SQL rules accepted (every other line went through the streaming reader's rules). */
  acceptedInBulk?: number;
  /**
   * The same content was imported before: its rows were replaced, and stay under `sourceFile`, the path it
   * was first loaded from (which may differ from `file`: a content is loaded once).
   */
  replaced?: { sourceFile: string; importedAt: string };
  /** Another content was loaded from this path (or from `--instead-of`): its rows were removed. */
  superseded?: { fileHash: string; importedAt: string; lines: number };
  /** Most of this file's references were already loaded from `otherFile`, and --allow-overlap imported it anyway. */
  overlap?: LedgerOverlap;
  seconds: number;
}

export async function importLedger(
  warehouse: Warehouse,
  config: Config,
  file: string,
  options: LedgerImportOptions,
  output: Output,
): Promise<LedgerImportSummary> {
  const started = process.hrtime.bigint();
  const sourceFile = path.resolve(file);
  if (!existsSync(sourceFile)) {
    throw new UsageError(`The ledger file ${sourceFile} does not exist. Pass the path of the exported ledger.`);
  }
  if (statSync(sourceFile).isDirectory()) {
    throw new UsageError(
      `${sourceFile} is a directory, not a ledger file. Pass the path of the exported ledger file${ledgerFilesIn(sourceFile)}.`,
    );
  }
  const insteadOf = options.insteadOf === undefined ? undefined : path.resolve(options.insteadOf);
  const format = options.format ?? formatFromExtension(sourceFile);
  const settings: LedgerReadSettings = { ...config.ledger, ...defined(options.overrides ?? {}), format };
  // A .tsv file is tab-separated unless a delimiter was asked for on the command line.
  if (path.extname(sourceFile).toLowerCase() === '.tsv' && options.overrides?.delimiter === undefined)
    settings.delimiter = '\t';
  const { fileHash, csvBytes } = await readFileOnce(sourceFile, settings);
  const args = { file: sourceFile, format, fileHash };

  return recordRun(
    warehouse,
    'ledger import',
    args,
    async (run) => {
      output.info(`reading ${sourceFile} (${format}, sha256 ${fileHash.slice(0, 12)}…)`);
      const sheet = format === 'xlsx' ? chosenSheet(sourceFile, settings.sheet, output) : undefined;
      const counts = await stage(warehouse, sourceFile, settings, { ...options, csvBytes }, output);
      if (counts.aboveHeader.length > 0) {
        const rows = counts.aboveHeader;
        const where =
          rows.length === 1 ? `${locationUnit(format)} ${rows[0]}` : `${locationUnit(format)}s ${rows.join(', ')}`;
        output.info(
          `skipped ${rows.length} ${rows.length === 1 ? 'row' : 'rows'} above the header (${where}): a title or notes, not data, not counted in the lines`,
        );
      }
      const summary = await replaceLedgerRows(warehouse, config, {
        sourceFile,
        fileHash,
        format,
        sheet,
        counts,
        runId: run.runId,
        replace: Boolean(options.replace),
        allowOverlap: Boolean(options.allowOverlap),
        insteadOf,
      });
      tellImportOutcome(summary, fileHash, output);
      summary.seconds = Number(process.hrtime.bigint() - started) / 1e9;
      run.counters.rowsLoaded = summary.accepted;
      run.details = {
        file: sourceFile,
        format,
        ...(sheet !== undefined && { sheet }),
        fileHash,
        lines: summary.lines,
        accepted: summary.accepted,
        rejected: summary.rejected,
        reader: summary.reader,
        acceptedInBulk: summary.acceptedInBulk ?? null,
        replaced: Boolean(summary.replaced),
        superseded: summary.superseded?.fileHash ?? null,
      };
      return summary;
    },
    options.parentRunId,
    // The staging tables go whatever happened (they are temporary: a crash drops them too).
  ).finally(() => dropStaging(warehouse).catch(() => undefined));
}

/**
 * Guards the accepted lines this import is about to remove (those of its path and of its content): refuses
 * (JobError, exit 1; the transaction rolls back) to replace them with none or with fewer than
 * `ledger.minReplaceRatio` of them unless `replace`, and copies them to `ledger_history` otherwise. A
 * re-import of the same content that yields as many lines replaces identical rows: nothing to keep then.
 */
const historyColumns =
  'partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost, currency_code, country_code, order_status, source_file, source_line, file_hash, run_id';

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
      `Refused to replace the ${lines} accepted ledger lines loaded from ${replacedPaths(incoming.sourceFile, incoming.insteadOf)} ` +
        `with the ${incoming.accepted} accepted lines of this file ` +
        `(fewer than ${Math.round(ratio * 100)}% of them: a truncated or wrong export?). Nothing was changed.`,
      `Check the file (its size, its last line, the delimiter and encoding). If it is right, import it again with --replace; ` +
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

/**
 * In one transaction: guards and keeps the lines it replaces (keepReplacedLines), removes the rows of this
 * content and of whatever was loaded from this path before, loads the staged rows and rejects, and records the file.
 */
async function replaceLedgerRows(
  warehouse: Warehouse,
  config: Config,
  incoming: {
    sourceFile: string;
    fileHash: string;
    format: LedgerFormat;
    sheet: string | undefined;
    counts: Awaited<ReturnType<typeof stage>>;
    runId: string;
    replace: boolean;
    allowOverlap: boolean;
    insteadOf: string | undefined;
  },
): Promise<LedgerImportSummary> {
  const { sourceFile, fileHash, format, sheet, counts, runId, replace } = incoming;
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
    await keepReplacedLines(warehouse, config, {
      sourceFile,
      fileHash,
      accepted: counts.accepted,
      replace,
      runId,
      insteadOf,
    });
    // Supersede by the rows' own source_file (whatever is loaded from this path, or the one it replaces), and replace this content.
    for (const table of ['ledger', 'ledger_rejects', 'ledger_files']) {
      await warehouse.run(`DELETE FROM ${table} WHERE source_file IN ($1, $3) OR file_hash = $2`, [
        sourceFile,
        fileHash,
        insteadOf,
      ]);
    }
    await warehouse.run(
      `INSERT INTO ledger (partner_reference, product_id, paid_at, paid_at_raw, sales_price, expected_cost, currency_code,
                           country_code, order_status, source_file, source_line, file_hash, run_id)
       SELECT partner_reference, product_id, coalesce(paid_instant, timezone($tz, paid_local)), paid_at_raw, sales_price,
              expected_cost, currency_code, country_code, order_status, $file, source_line, $hash, $run
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
      [fileHash, loadedFrom, format, counts.accepted + counts.rejected, counts.accepted, counts.rejected, runId],
    );
    const result: LedgerImportSummary = {
      runId,
      file: sourceFile,
      format,
      fileHash,
      ...(sheet !== undefined && { sheet }),
      lines: counts.accepted + counts.rejected,
      skippedAboveHeader: counts.aboveHeader.length,
      accepted: counts.accepted,
      rejected: counts.rejected,
      firstRejects: counts.firstRejects,
      reader: counts.reader,
      ...(counts.reader === 'bulk' && { acceptedInBulk: counts.acceptedInBulk }),
      seconds: 0,
    };
    if (same) result.replaced = { sourceFile: same.source_file, importedAt: same.imported_at };
    if (older)
      result.superseded = { fileHash: older.file_hash, importedAt: older.imported_at, lines: Number(older.lines) };
    if (overlap) result.overlap = overlap;
    return result;
  });
}

/** Says on the console what the import replaced or superseded, and how many lines were rejected. */
function tellImportOutcome(summary: LedgerImportSummary, fileHash: string, output: Output): void {
  if (summary.replaced?.sourceFile === summary.file) {
    output.info(
      `the same content was imported from ${summary.file} at ${summary.replaced.importedAt}: its rows were replaced, not duplicated`,
    );
  } else if (summary.replaced) {
    output.info(
      `${summary.file} has the same content (sha256 ${fileHash.slice(0, 12)}…) as ${summary.replaced.sourceFile}, imported at ${summary.replaced.importedAt}: ` +
        `a content is loaded once, so its rows were replaced, not duplicated, and stay under ${summary.replaced.sourceFile} ` +
        `(a later import of ${summary.replaced.sourceFile} supersedes them; one of ${summary.file} does not)`,
    );
  }
  if (summary.superseded) {
    output.info(
      `this import supersedes the earlier import of ${summary.file} (different content, sha256 ${summary.superseded.fileHash.slice(0, 12)}…, imported at ${summary.superseded.importedAt}, ${summary.superseded.lines} lines): its rows were removed`,
    );
  }
  if (summary.overlap) {
    const overlap = describeOverlap(summary.file, summary.overlap);
    output.warn(
      `${overlap}: imported anyway (--allow-overlap); those orders are counted twice unless the files are separate ledgers`,
    );
  }
  if (summary.rejected > 0)
    output.warn(
      `${summary.rejected} of ${summary.lines} ledger lines of ${summary.file} were rejected (kept in ledger_rejects)`,
    );
}

/**
 * The sheet an XLSX import reads. Without `ledger.sheet` it is the first tab; when there are others, the
 * console says which was read and names the rest, so a ledger on another tab is not missed silently.
 */
function chosenSheet(file: string, wanted: string | undefined, output: Output): string {
  const { sheet, sheets } = chooseSheet(file, wanted);
  if (wanted === undefined && sheets.length > 1) {
    const others = sheets
      .filter((name) => name !== sheet)
      .map((name) => `"${name}"`)
      .join(', ');
    output.info(
      `read the first sheet "${sheet}" of ${sheets.length} (the others: ${others}); to read another, set ledger.sheet or pass --sheet`,
    );
  }
  return sheet;
}

/** For the "is a directory" message: the ledger-like files in it, if any (at most 5). */
function ledgerFilesIn(directory: string): string {
  const files = readdirSync(directory)
    .filter((name) => /\.(csv|tsv|txt|xlsx|json|ndjson|jsonl|parquet)$/i.test(name))
    .sort();
  if (files.length === 0) return '';
  return `, e.g. ${files
    .slice(0, 5)
    .map((name) => path.join(directory, name))
    .join(', ')}${files.length > 5 ? ` (${files.length} such files there)` : ''}`;
}

/** The file's sha256, read once; a CSV's bytes are scanned on the way for the bulk reader (CsvByteScan). */
async function readFileOnce(
  file: string,
  settings: LedgerReadSettings,
): Promise<{ fileHash: string; csvBytes?: ByteFacts }> {
  const hash = createHash('sha256');
  const scan = settings.format === 'csv' ? new CsvByteScan(settings.encoding !== 'utf-8') : undefined;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    scan?.push(chunk);
  }
  return { fileHash: hash.digest('hex'), csvBytes: scan?.end() };
}

function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The console summary: counts, what was replaced or superseded, and the first rejects. */
export function describeLedgerImport(summary: LedgerImportSummary): string {
  const skipped = summary.skippedAboveHeader > 0 ? ` (${summary.skippedAboveHeader} above the header skipped)` : '';
  const lines = [
    `${summary.file} (${summary.format}${summary.sheet !== undefined ? `, sheet "${summary.sheet}"` : ''}): ${summary.lines} lines${skipped}, ${summary.accepted} accepted, ${summary.rejected} rejected (${summary.seconds.toFixed(1)} s)`,
  ];
  if (summary.firstRejects.length > 0) {
    lines.push(
      summary.rejected > summary.firstRejects.length ? `first ${summary.firstRejects.length} rejects:` : 'rejects:',
    );
    for (const reject of summary.firstRejects) {
      lines.push(`  ${locationUnit(summary.format)} ${reject.source_line}: ${reject.reason}`);
      lines.push(`    ${truncate(reject.raw.replace(/\r?\n/g, '⏎'), 100)}`);
    }
    lines.push(
      `all rejects: pinrecon query "SELECT source_line, reason, raw FROM ledger_rejects WHERE file_hash = '${summary.fileHash}' ORDER BY source_line"`,
    );
  }
  return lines.join('\n');
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
