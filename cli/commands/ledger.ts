/** `pinrecon ledger import FILE`: loads the partner ledger; bad lines are kept as rejects, never dropped. */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { ledgerEncodings, normalizeDelimiter, normalizeEncoding } from '../../config/schema.js';
import { describeLedgerImport, importLedger, type LedgerImportOptions } from '../../pipelines/ledger/import.js';
import { ledgerFormats, type LedgerFormat } from '../../sources/ledger/types.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';

export interface ImportOptions extends GlobalOptions {
  format?: string;
  delimiter?: string;
  encoding?: string;
  decimalSeparator?: string;
  dateFormat?: string;
  sheet?: string;
  replace?: boolean;
  allowOverlap?: boolean;
  insteadOf?: string;
}

export function registerLedger(program: Command): void {
  const ledger = program.command('ledger').description('the partner ledger');
  withGlobalOptions(
    ledger
      .command('import <file>')
      .description(
        'load a ledger file (CSV, XLSX, JSON, NDJSON or Parquet) into the database; ' +
          'an import of a path supersedes what was loaded from that path, and a content is loaded once ' +
          '(a copy of an imported file replaces its rows, which stay under the first path)',
      )
      .option('--format <format>', `file format (default: from the extension): ${ledgerFormats.join(', ')}`)
      .option('--delimiter <char>', 'CSV field delimiter: "," ";" "|" or tab (default: ledger.delimiter)')
      .option('--encoding <name>', `text encoding: ${ledgerEncodings.join(', ')} (default: ledger.encoding)`)
      .option(
        '--decimal-separator <char>',
        'decimal separator of numbers written as text: "." or "," (default: ledger.decimalSeparator)',
      )
      .option(
        '--date-format <pattern>',
        'date-fns pattern of paid_at, e.g. dd/MM/yyyy HH:mm:ss (default: ledger.dateFormat; ISO 8601 always accepted)',
      )
      .option('--sheet <name>', 'Excel sheet to read (default: ledger.sheet, else the first)')
      .option(
        '--replace',
        "replace the path's lines even when this file has far fewer accepted lines (ledger.minReplaceRatio); " +
          'the old lines stay in ledger_history',
      )
      .option(
        '--instead-of <file>',
        'this file replaces the one imported from that other path (its lines kept in ledger_history)',
      )
      .option(
        '--allow-overlap',
        'import although most of its references are loaded from another file (ledgers sharing references)',
      ),
  ).action(
    action<ImportOptions, [string]>(async ({ config, output }, options, file) => {
      const request = parseLedgerImport(options, file);
      const summary = await withJobWarehouse(config, (warehouse) =>
        importLedger(warehouse, config, request.file, request.options, output),
      );
      output.result(describeLedgerImport(summary));
      output.document({ ok: true, ...summary });
    }),
  );
}

export interface LedgerImportRequest {
  file: string;
  options: LedgerImportOptions;
}

/** The command line of `ledger import`, checked (issue 27: pure, tested in-process). */
export function parseLedgerImport(options: ImportOptions, file: string): LedgerImportRequest {
  return { file, options: parseOverrides(options) };
}

function parseOverrides(options: ImportOptions): LedgerImportOptions {
  const result: LedgerImportOptions = { overrides: {} };
  if (options.format !== undefined) {
    if (!(ledgerFormats as readonly string[]).includes(options.format)) {
      throw new UsageError(`--format must be one of ${ledgerFormats.join(', ')}, got "${options.format}".`);
    }
    result.format = options.format as LedgerFormat;
  }
  if (options.delimiter !== undefined) {
    const delimiter = normalizeDelimiter(options.delimiter);
    if (!delimiter) throw new UsageError(`--delimiter must be "," ";" "|" or tab, got "${options.delimiter}".`);
    result.overrides!.delimiter = delimiter;
  }
  if (options.encoding !== undefined) {
    const encoding = normalizeEncoding(options.encoding);
    if (!encoding)
      throw new UsageError(`--encoding must be one of ${ledgerEncodings.join(', ')}, got "${options.encoding}".`);
    result.overrides!.encoding = encoding;
  }
  if (options.decimalSeparator !== undefined) {
    if (options.decimalSeparator !== '.' && options.decimalSeparator !== ',') {
      throw new UsageError(`--decimal-separator must be "." or ",", got "${options.decimalSeparator}".`);
    }
    result.overrides!.decimalSeparator = options.decimalSeparator;
  }
  if (options.dateFormat !== undefined) result.overrides!.dateFormat = options.dateFormat;
  if (options.sheet !== undefined) result.overrides!.sheet = options.sheet;
  if (options.replace) result.replace = true;
  if (options.allowOverlap) result.allowOverlap = true;
  if (options.insteadOf !== undefined) result.insteadOf = options.insteadOf;
  return result;
}
