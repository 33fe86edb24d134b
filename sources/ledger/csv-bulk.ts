/**
 * CSV ledgers in bulk: DuckDB reads the data lines and checks them by the ledger's rules written in SQL
 * (sql/load/ledger_csv_lines.sql, ledger_csv_rows.sql), so a million lines are not parsed one by one in JavaScript.
 * The result must be the streaming reader's (readLedger) to the byte: SQL accepts only what it reads exactly and
 * never rejects; every other line goes through the streaming reader's rules (docs/ARCHITECTURE.md, "Design notes
 * by module"). Leaves the temporary table ledger_csv_lines and view ledger_csv_rows, dropped by dropBulkTables.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { resolveHeaders } from './columns.js';
import { maxLineBytes, type ByteFacts } from './csv-byte-scan.js';
import { linesSql, rowsSql, type BulkCsvShape, type BulkCsvSource } from './csv-bulk-sql.js';
import { csvRecordEvent, readCsv, splitCsvLine } from './csv.js';
import { dateFormatPattern } from './dates.js';
import { lineItem } from './read-ledger.js';
import { decodeText, readTextChunks } from './text-stream.js';
import type { LedgerItem, LedgerReadSettings, ProgressCallback, SourceEvent } from './types.js';
import { createRowValidator } from './validate.js';

/** What the bulk reader staged and what is left to stage. */
export interface BulkCsvRead {
  /** Lines accepted by the SQL rules, in temp.ledger_csv_lines (`accepted`). */
  accepted: number;
  /** Rows above the header (a title, an export date): not data, not counted. */
  aboveHeader: { line: number; raw: string }[];
  /** Every other data line as the streaming reader makes it (accepted row or reject), in file order. */
  items: AsyncGenerator<LedgerItem>;
}

export type BulkCsvOutcome = { read: BulkCsvRead; notRead?: undefined } | { notRead: string; read?: undefined };

/**
 * A file most of whose lines (and more than this many) SQL leaves to the streaming reader's rules is read by
 * the streaming reader whole: faster than handing each line over, and the result is the same.
 */
const mostlyLeftLines = 50_000;
/** Rows of ledger_csv_lines read at a time for the streaming reader's rules (memory stays flat whatever the file). */
const pageLines = 50_000;

/**
 * Reads a CSV ledger in bulk into temp.ledger_csv_lines, or says why it cannot read it exactly (nothing is
 * left staged then). `bytes`: the file's CsvByteScan; `onProgress`: bytes read so far, while DuckDB reads.
 * Throws what the streaming reader throws for a header without the required columns.
 */
export async function readCsvInBulk(
  connection: DuckDBConnection,
  file: string,
  settings: LedgerReadSettings,
  bytes: ByteFacts,
  onProgress?: ProgressCallback,
): Promise<BulkCsvOutcome> {
  const datePattern = dateFormatPattern(settings.dateFormat);
  if (!datePattern)
    return { notRead: `ledger.dateFormat "${settings.dateFormat}" has tokens only the streaming reader reads` };
  const unfit = bytesUnfit(bytes, settings);
  if (unfit) return { notRead: unfit };
  const head = await readHead(file, settings);
  if (!head) return { notRead: 'the file has no header line' };
  const shape: BulkCsvShape = {
    settings,
    skip: head.lastLine,
    fieldCount: head.names.length,
    indexes: resolveHeaders(head.names, settings.columns, file),
    datePattern,
  };
  const unread = await readLines(connection, file, shape, settings, bytes, onProgress);
  if (unread) return notRead(connection, unread);
  try {
    const [lines, accepted] = (
      await connection.runAndReadAll('SELECT count(*), count(*) FILTER (WHERE accepted) FROM temp.ledger_csv_lines')
    )
      .getRowsJS()[0]!
      .map(Number);
    if (lines !== bytes.lines - shape.skip)
      return notRead(connection, `DuckDB read ${lines} data lines where the file has ${bytes.lines - shape.skip}`);
    const left = lines! - accepted!;
    if (left > mostlyLeftLines && left > lines! / 2) {
      return notRead(
        connection,
        `${left} of its ${lines} lines need the streaming ` +
          `reader's rules (spellings the SQL rules do not know), so it reads them all`,
      );
    }
    const differing = await firstDifferingSample(connection, bytes, settings, shape.skip);
    if (differing !== undefined) return notRead(connection, `DuckDB read line ${differing} differently`);
    if (!(await quotedLinesEndOnTheirLine(connection, settings, shape.skip)))
      return notRead(connection, 'a quoted field runs on to the next line');
    await connection.run(`CREATE OR REPLACE TEMP VIEW ledger_csv_rows AS ${rowsSql(shape)}`);
    return {
      read: {
        accepted: accepted!,
        aboveHeader: head.aboveHeader,
        items: otherLines(connection, settings, head, shape),
      },
    };
  } catch (error) {
    await dropBulkTables(connection);
    throw error;
  }
}

/**
 * Materializes temp.ledger_csv_lines; says why when DuckDB cannot read the file. The lines must be decoded
 * as the streaming reader decodes them (text-stream.ts: a BOM means UTF-8; "latin1" is read as Windows-1252):
 * DuckDB refuses the bytes 0x80-0x9F as Latin-1, so a file holding them (€, curly quotes) is read from a
 * UTF-8 copy in the temporary directory, removed right after.
 */
async function readLines(
  connection: DuckDBConnection,
  file: string,
  shape: BulkCsvShape,
  settings: LedgerReadSettings,
  bytes: ByteFacts,
  onProgress?: ProgressCallback,
): Promise<string | undefined> {
  const decodedAs = bytes.utf8Bom ? 'utf-8' : settings.encoding;
  const copy = decodedAs !== 'utf-8' && bytes.windows1252Bytes ? await utf8Copy(file, decodedAs) : undefined;
  const source: BulkCsvSource = copy
    ? { file: copy.file, encoding: 'utf-8' }
    : { file, encoding: decodedAs === 'utf-8' ? 'utf-8' : 'latin-1' };
  const report = onProgress && ((fraction: number) => onProgress(Math.round(fraction * bytes.size), bytes.size));
  try {
    await runWithProgress(
      connection,
      `CREATE OR REPLACE TEMP TABLE ledger_csv_lines AS ${linesSql(shape, source)}`,
      report,
    );
    return undefined;
  } catch (error) {
    return `DuckDB could not read its lines (${(error as Error).message.split('\n')[0]})`;
  } finally {
    copy?.remove();
  }
}

/**
 * The file decoded by the streaming reader's own decoding (readTextChunks), written as UTF-8 to a temporary directory.
 */
async function utf8Copy(
  file: string,
  encoding: LedgerReadSettings['encoding'],
): Promise<{ file: string; remove(): void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-ledger-utf8-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const copy = path.join(dir, 'ledger-utf8.csv');
  try {
    await pipeline(
      Readable.from(readTextChunks(file, encoding)),
      new Transform({
        transform: (text: string, _encoding, done) => done(null, Buffer.from(text, 'utf8')),
        writableObjectMode: true,
      }),
      createWriteStream(copy),
    );
  } catch (error) {
    remove();
    throw error;
  }
  return { file: copy, remove };
}

/**
 * Runs `sql`, telling `report` every half second how far DuckDB is (0-1): its progress is tracked (not
 * printed) for this statement only.
 */
async function runWithProgress(
  connection: DuckDBConnection,
  sql: string,
  report?: (fraction: number) => void,
): Promise<void> {
  if (!report) return void (await connection.run(sql));
  await connection.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
  const timer = setInterval(() => {
    const { percentage } = connection.progress;
    if (percentage >= 0) report(percentage / 100);
  }, 500);
  try {
    await connection.run(sql);
    report(1);
  } finally {
    clearInterval(timer);
    await connection.run('RESET enable_progress_bar; RESET enable_progress_bar_print');
  }
}

/** Drops what the bulk reader staged (the view of its rows and the table of the file's lines). */
export async function dropBulkTables(connection: DuckDBConnection): Promise<void> {
  await connection.run('DROP VIEW IF EXISTS temp.ledger_csv_rows; DROP TABLE IF EXISTS temp.ledger_csv_lines');
}

async function notRead(connection: DuckDBConnection, why: string): Promise<BulkCsvOutcome> {
  await dropBulkTables(connection);
  return { notRead: why };
}

function bytesUnfit(bytes: ByteFacts, settings: LedgerReadSettings): string | undefined {
  if (bytes.loneCarriageReturn) return 'a line break is a lone CR (an old-Mac file, or a CR inside a line)';
  if (bytes.controlBytes) return 'the file holds NUL or \\x01 bytes';
  if (bytes.longestLineBytes > maxLineBytes) return 'a line is longer than 1 MiB';
  if (settings.quote === settings.delimiter) return 'the quote character is the delimiter';
  return undefined;
}

interface Head {
  names: string[];
  /** The header's last physical line: data starts on the next one. */
  lastLine: number;
  aboveHeader: { line: number; raw: string }[];
  /** Data lines before the header (blank lines above it): the streaming reader's events. */
  events: Extract<SourceEvent, { kind: 'values' | 'reject' }>[];
}

/** The streaming reader's own header search, on the top of the file; undefined when the file has no header. */
async function readHead(file: string, settings: LedgerReadSettings): Promise<Head | undefined> {
  const aboveHeader: Head['aboveHeader'] = [];
  const events: Head['events'] = [];
  for await (const event of readCsv(file, settings)) {
    if (event.kind === 'header') return { names: event.names, lastLine: event.lastLine!, aboveHeader, events };
    if (event.kind === 'above-header') aboveHeader.push({ line: event.line, raw: event.raw });
    else if (event.kind === 'values' || event.kind === 'reject') events.push(event);
  }
  return undefined;
}

/**
 * The first sampled line DuckDB's row does not hold as the streaming reader decodes it (rows out of order,
 * or decoded otherwise), or undefined when all agree.
 */
async function firstDifferingSample(
  connection: DuckDBConnection,
  bytes: ByteFacts,
  settings: LedgerReadSettings,
  skip: number,
): Promise<number | undefined> {
  const wanted = [...bytes.samples.keys()].filter((line) => line > skip);
  if (wanted.length === 0) return undefined;
  const rows = (
    await connection.runAndReadAll(
      `SELECT rowid + ${skip + 1} AS line_number, ${lineText} FROM temp.ledger_csv_lines
        WHERE rowid IN (${wanted.map((line) => line - skip - 1).join(', ')})`,
    )
  ).getRowsJS() as [bigint, string, boolean][];
  const read = new Map(rows.map(([line, text, bom]) => [Number(line), withBom(text, bom)]));
  // As the streaming reader decodes the file (text-stream.ts: a BOM means UTF-8).
  const encoding = bytes.utf8Bom ? 'utf-8' : settings.encoding;
  return wanted.find((line) => read.get(line) !== decodeText(bytes.samples.get(line)!, encoding));
}

/** Whether every line holding the quote character holds its whole record (read in pages: flat memory). */
async function quotedLinesEndOnTheirLine(
  connection: DuckDBConnection,
  settings: LedgerReadSettings,
  skip: number,
): Promise<boolean> {
  for await (const page of linePages(connection, skip, `NOT accepted AND contains(line, $quote)`, {
    quote: settings.quote,
  })) {
    for (const [lineNumber, line] of page) {
      if (!splitCsvLine(line, lineNumber, settings.delimiter, settings.quote)) return false;
    }
  }
  return true;
}

/** The lines SQL did not accept, through the streaming reader's record and value rules, after the head's. */
async function* otherLines(
  connection: DuckDBConnection,
  settings: LedgerReadSettings,
  head: Head,
  shape: BulkCsvShape,
): AsyncGenerator<LedgerItem> {
  const validate = createRowValidator(settings, { sheetNumbers: false });
  for (const event of head.events) yield lineItem(event, validate, shape.indexes);
  for await (const page of linePages(connection, shape.skip, 'NOT accepted', {})) {
    for (const [lineNumber, line] of page) {
      const record = splitCsvLine(line, lineNumber, settings.delimiter, settings.quote);
      // Checked before anything was staged (quotedLinesEndOnTheirLine): a bug if it happens.
      if (!record)
        throw new Error(`line ${lineNumber}: its record does not end on it, yet the bulk reader read the file`);
      const event = csvRecordEvent(record, head.names.length, settings);
      if (event.kind === 'values' || event.kind === 'reject') yield lineItem(event, validate, shape.indexes);
    }
  }
}

/**
 * A line's text and whether it starts with a byte order mark: DuckDB's node API decodes a VARCHAR with a
 * TextDecoder that drops a leading U+FEFF, so a line of two joined exports would lose it (and be accepted).
 */
const lineText = `coalesce(line, ''), coalesce(starts_with(line, chr(65279)), false)`;

function withBom(text: string, bom: boolean): string {
  return bom && !text.startsWith('\uFEFF') ? `\uFEFF${text}` : text;
}

/**
 * Lines of ledger_csv_lines matching `where`, with their line numbers, in file order: at most pageLines at a
 * time (flat memory), all at once when that few match (a million-line file with a thousand bad lines is one
 * query, not one per range), else a range of rows at a time (each query reads only its range: linear time).
 */
async function* linePages(
  connection: DuckDBConnection,
  skip: number,
  where: string,
  params: Record<string, string>,
): AsyncGenerator<[number, string][]> {
  const [matching, first, last] = (
    await connection.runAndReadAll(
      `SELECT count(*), coalesce(min(rowid), 0), coalesce(max(rowid), -1) FROM temp.ledger_csv_lines WHERE ${where}`,
      params,
    )
  )
    .getRowsJS()[0]!
    .map(Number) as [number, number, number];
  if (matching === 0) return;
  const step = matching <= pageLines ? last - first + 1 : pageLines;
  for (let from = first; from <= last; from += step) {
    const page = (
      await connection.runAndReadAll(
        `SELECT rowid, ${lineText} FROM temp.ledger_csv_lines
          WHERE rowid >= $from::BIGINT AND rowid < $to::BIGINT AND ${where} ORDER BY rowid`,
        { ...params, from, to: from + step },
      )
    ).getRowsJS() as [bigint, string, boolean][];
    if (page.length > 0) yield page.map(([rowid, line, bom]) => [Number(rowid) + skip + 1, withBom(line, bom)]);
  }
}
