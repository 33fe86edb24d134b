/**
 * `ledger import`: loads one partner ledger file into `ledger` (accepted lines) and `ledger_rejects` (every
 * other line, with reason and text), recorded in `ledger_files`. A re-import of a path, or of the same content,
 * replaces its rows; a replacement with too few lines is refused unless `replace`; removed rows go to
 * `ledger_history`. Rows are staged, then moved into place in one transaction (docs/ARCHITECTURE.md, "Design
 * notes by module": the replace rules and the staging).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { Config } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { CsvByteScan, type ByteFacts } from '../../sources/ledger/csv-byte-scan.js';
import { chooseSheet } from '../../sources/ledger/xlsx.js';
import {
  formatFromExtension,
  locationUnit,
  type LedgerFormat,
  type LedgerReadSettings,
  type LedgerReject,
} from '../../sources/ledger/types.js';
import { describeOverlap } from './overlap.js';
import { replaceLedgerRows, type LedgerReplaceOutcome } from './replace.js';
import { dropStaging, stage, type LedgerReader } from './staging.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';

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

export interface LedgerImportSummary extends LedgerReplaceOutcome {
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
  // Issue 34: a link planted at the ledger's path would make pinrecon read (and quote) another file of this account.
  if (lstatSync(sourceFile).isSymbolicLink() && !config.ledger.followSymlinks) {
    throw new UsageError(
      `The ledger file ${sourceFile} is a symbolic link: pinrecon reads a linked ledger only when the config says ` +
        `so. Pass the file itself, or set ledger.followSymlinks to true.`,
    );
  }
  if (statSync(sourceFile).isDirectory()) {
    throw new UsageError(
      `${sourceFile} is a directory, not a ledger file. Pass the path of the exported ledger ` +
        `file${ledgerFilesIn(sourceFile)}.`,
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
          `skipped ${rows.length} ${rows.length === 1 ? 'row' : 'rows'} above the header (${where}): a title or ` +
            `notes, not data, not counted in the lines`,
        );
      }
      const outcome = await replaceLedgerRows(warehouse, config, {
        sourceFile,
        fileHash,
        format,
        accepted: counts.accepted,
        rejected: counts.rejected,
        runId: run.runId,
        replace: Boolean(options.replace),
        allowOverlap: Boolean(options.allowOverlap),
        insteadOf,
      });
      const summary: LedgerImportSummary = {
        runId: run.runId,
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
        ...outcome,
        seconds: 0,
      };
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

/** Says on the console what the import replaced or superseded, and how many lines were rejected. */
function tellImportOutcome(summary: LedgerImportSummary, fileHash: string, output: Output): void {
  if (summary.replaced?.sourceFile === summary.file) {
    output.info(
      `the same content was imported from ${summary.file} at ${summary.replaced.importedAt}: its rows were replaced, ` +
        `not duplicated`,
    );
  } else if (summary.replaced) {
    output.info(
      `${summary.file} has the same content (sha256 ${fileHash.slice(0, 12)}…) as ${summary.replaced.sourceFile}, ` +
        `imported at ${summary.replaced.importedAt}: ` +
        `a content is loaded once, so its rows were replaced, not duplicated, and stay under ` +
        `${summary.replaced.sourceFile} ` +
        `(a later import of ${summary.replaced.sourceFile} supersedes them; one of ${summary.file} does not)`,
    );
  }
  if (summary.superseded) {
    output.info(
      `this import supersedes the earlier import of ${summary.file} ` +
        `(different content, sha256 ${summary.superseded.fileHash.slice(0, 12)}…, ` +
        `imported at ${summary.superseded.importedAt}, ${summary.superseded.lines} lines): its rows were removed`,
    );
  }
  if (summary.overlap) {
    const overlap = describeOverlap(summary.file, summary.overlap);
    output.warn(
      `${overlap}: imported anyway (--allow-overlap); those orders are counted twice unless the files are separate ` +
        `ledgers`,
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
      `read the first sheet "${sheet}" of ${sheets.length} (the others: ${others}); to read another, set ` +
        `ledger.sheet or pass --sheet`,
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

/**
 * The file's sha256, read once; a CSV's bytes are scanned on the way for the bulk reader (CsvByteScan). One
 * buffer is read into again and again: a fresh 1 MiB buffer per chunk (a read stream's) cost more than the hash.
 */
async function readFileOnce(
  file: string,
  settings: LedgerReadSettings,
): Promise<{ fileHash: string; csvBytes?: ByteFacts }> {
  const hash = createHash('sha256');
  const scan = settings.format === 'csv' ? new CsvByteScan(settings.encoding !== 'utf-8') : undefined;
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      scan?.push(chunk);
    }
  } finally {
    await handle.close();
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
    `${summary.file} (${summary.format}${summary.sheet !== undefined ? `, sheet "${summary.sheet}"` : ''}): ` +
      `${summary.lines} lines${skipped}, ${summary.accepted} accepted, ${summary.rejected} rejected ` +
      `(${summary.seconds.toFixed(1)} s)`,
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
      `all rejects: pinrecon query "SELECT source_line, reason, raw FROM ledger_rejects WHERE file_hash = ` +
        `'${summary.fileHash}' ORDER BY source_line"`,
    );
  }
  return lines.join('\n');
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
