/**
 * `pinrecon query "SQL" [--format table|csv|json|arrow] [--live]`: ad hoc, read-only SQL against the
 * database, printed as a table, CSV or JSON, or streamed as an Arrow IPC stream (pipelines/analysts/arrow.ts). What it
 * opens, what it refuses and how PINs are masked is the read-only session's (pipelines/analysts/query.ts).
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { formatTable, type Output } from '../../core/output.js';
import { printableJson } from '../../core/text-safety.js';
import { csvField, printText } from '../print.js';
import { openForReading, queryMasked, wholeKeysWarning, type MaskedResult } from '../../pipelines/analysts/query.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { parseChoice } from '../options.js';

export interface QueryOptions extends GlobalOptions {
  format: string;
  maxRows: string;
  live?: boolean;
}

const formats = ['table', 'csv', 'json', 'arrow'] as const;

export interface QueryRequest {
  sql: string;
  format: (typeof formats)[number];
  maxRows: number;
  live?: boolean;
}

/**
 * The command line of `query`, checked (issue 27: pure, tested in-process); `stdoutIsTTY` says whether the
 * binary Arrow stream would land on a terminal.
 */
export function parseQuery(options: QueryOptions, sql: string, stdoutIsTTY: boolean): QueryRequest {
  const format = parseChoice(options.json ? 'json' : options.format, formats, '--format');
  const maxRows = Number(options.maxRows);
  if (!Number.isInteger(maxRows) || maxRows <= 0)
    throw new UsageError(`--max-rows must be a positive whole number, got "${options.maxRows}".`);
  if (format === 'arrow' && stdoutIsTTY) {
    throw new UsageError(
      '--format arrow writes a binary Arrow IPC stream: redirect it to a file (> result.arrows) or pipe it to a ' +
        'reader.',
    );
  }
  return { sql, format, maxRows, live: options.live };
}

export function registerQuery(program: Command): void {
  withGlobalOptions(
    program
      .command('query <sql>')
      .description(
        'ad hoc, read-only SQL against the snapshot published after each job (the main file with --live); PINs show ' +
          'their last 4 characters',
      )
      .option('--format <format>', `output: ${formats.join(', ')} (--json means json)`, 'table')
      .option('--max-rows <n>', 'rows shown in table format (csv, json and arrow stream every row)', '1000')
      .option(
        '--live',
        'read the main database file itself (newer than the snapshot while a job runs, but it blocks jobs while open)',
      ),
  ).action(
    action<QueryOptions, [string]>(async ({ config, output }, options, sql) => {
      const { format, maxRows, live } = parseQuery(options, sql, Boolean(process.stdout.isTTY));
      const warehouse = await openForReading(config, output, { live });
      try {
        const exposure = await wholeKeysWarning(warehouse);
        if (exposure) output.warn(exposure);
        if (format === 'arrow') {
          // apache-arrow is loaded only by the query that writes Arrow, not by every command at start-up.
          const { queryArrow, writeArrowStream } = await import('../../pipelines/analysts/arrow.js');
          const { schema, batches } = await queryArrow(warehouse, sql, config.timezone);
          return await writeArrowStream(schema, batches, process.stdout);
        }
        await printResult(await queryMasked(warehouse, sql), format, maxRows, output);
      } finally {
        warehouse.close();
      }
    }),
  );
}

async function printResult(
  { columns, chunks }: MaskedResult,
  format: Exclude<(typeof formats)[number], 'arrow'>,
  maxRows: number,
  output: Output,
): Promise<void> {
  if (format === 'table') {
    const shown: Record<string, unknown>[] = [];
    let more = false;
    for await (const chunk of chunks) {
      for (const row of chunk) {
        if (shown.length >= maxRows) {
          more = true;
          break;
        }
        shown.push(Object.fromEntries(columns.map((c, i) => [c, row[i]])));
      }
      if (more) break;
    }
    await printText(shown.length === 0 ? `${columns.join('  ')}\n(no rows)\n` : `${formatTable(shown, columns)}\n`);
    if (more) output.warn(`showing the first ${maxRows} rows: use --max-rows, or --format csv or json for every row`);
    return;
  }
  if (format === 'csv') {
    await printText(`${columns.map(csvField).join(',')}\n`);
    for await (const chunk of chunks) await printText(chunk.map((row) => `${row.map(csvField).join(',')}\n`).join(''));
    return;
  }
  let first = true;
  await printText('[');
  for await (const chunk of chunks) {
    const text = chunk.map((row) => printableJson(Object.fromEntries(columns.map((c, i) => [c, row[i]])))).join(',\n');
    if (text) await printText(`${first ? '\n' : ',\n'}${text}`);
    first = false;
  }
  await printText(first ? ']\n' : '\n]\n');
}
