/**
 * CSV as finance exports it (RFC 4180): configurable delimiter and quote, quoted delimiters, doubled quotes and
 * line breaks, CRLF, LF or lone CR. Streaming: memory holds one chunk and the record in progress. Every physical
 * line after the header is accounted for (blank lines and wrong field counts are rejects); an open quote is
 * reported on its line and reading resumes on the next; a record over 1 MiB is rejected without being read into
 * memory.
 */
import { HeaderSearch, type PlacedRow } from './columns.js';
import { readTextChunks } from './text-stream.js';
import type { LedgerReadSettings, ProgressCallback, SourceEvent } from './types.js';

export interface CsvRecord {
  /** Physical line (1-based) where the record starts. */
  line: number;
  fields: string[];
  /** The record as read, without its line break. */
  raw: string;
  /** Set when the record could not be split (unterminated quote, text after a closing quote). */
  error?: string;
}

const maxRecordChars = 1024 * 1024;
/** How much of an overlong line is kept for the reject (it is cut again to one Excel cell when stored). */
const overlongKeptChars = 32_767;
const overlongReason =
  `line longer than ${maxRecordChars.toLocaleString('en-US')} characters ` +
  `(no ledger line is that long: is this the ledger, is its line break or quoting broken?); ` +
  `the rest of the line is skipped`;

/** Splits decoded text, pushed chunk by chunk, into records. */
export class CsvSplitter {
  private buffer = '';
  private line = 1;
  /** Inside an overlong line already rejected: text is dropped up to its line break. */
  private skipping = false;

  constructor(
    private readonly delimiter: string,
    private readonly quote: string,
  ) {}

  *push(text: string): Generator<CsvRecord> {
    if (this.skipping) {
      const newline = text.indexOf('\n');
      if (newline < 0) return;
      this.skipping = false;
      text = text.slice(newline + 1);
    }
    this.buffer += text;
    yield* this.drain(false);
  }

  *end(): Generator<CsvRecord> {
    yield* this.drain(true);
  }

  private *drain(final: boolean): Generator<CsvRecord> {
    const buffer = this.buffer;
    let position = 0;
    // Where the next quote character is: lines before it take the fast path (a plain split).
    let nextQuote = buffer.indexOf(this.quote);
    while (position < buffer.length) {
      const newline = buffer.indexOf('\n', position);
      if (nextQuote >= 0 && nextQuote < position) nextQuote = buffer.indexOf(this.quote, position);
      if (newline >= 0 && (nextQuote < 0 || nextQuote > newline)) {
        const raw = buffer.slice(position, buffer[newline - 1] === '\r' ? newline - 1 : newline);
        if (raw.length > maxRecordChars)
          yield { line: this.line++, fields: [], raw: raw.slice(0, overlongKeptChars), error: overlongReason };
        else yield { line: this.line++, fields: raw.split(this.delimiter), raw };
        position = newline + 1;
        continue;
      }
      if (newline < 0 && !final && buffer.length - position > maxRecordChars) {
        // No line break within the limit: reject the line now, drop what is buffered, skip the rest of it.
        yield {
          line: this.line++,
          fields: [],
          raw: buffer.slice(position, position + overlongKeptChars),
          error: overlongReason,
        };
        this.skipping = true;
        position = buffer.length;
        break;
      }
      if (newline < 0 && nextQuote < 0) {
        if (!final) break;
        const raw = buffer.slice(position).replace(/\r$/, '');
        yield { line: this.line++, fields: raw.split(this.delimiter), raw };
        position = buffer.length;
        continue;
      }
      const record = this.splitQuoted(buffer, position, final);
      if (!record) {
        if (buffer.length - position <= maxRecordChars) break;
      }
      if (record && !record.error?.startsWith('unterminated')) {
        const raw = buffer.slice(position, record.end);
        yield { line: this.line, fields: record.fields, raw, error: record.error };
        this.line += countLineBreaks(raw) + 1;
        position = record.next;
        continue;
      }
      // An unterminated quote: reject its first physical line and read on from the next one.
      const lineEnd = buffer.indexOf('\n', position);
      const end = lineEnd < 0 ? buffer.length : lineEnd;
      const raw = buffer.slice(position, buffer[end - 1] === '\r' ? end - 1 : end);
      yield {
        line: this.line++,
        fields: [],
        raw,
        error:
          `unterminated quoted field (a ${this.quote} opened on this line is never closed); ` +
          `the following lines are read on their own`,
      };
      position = end + 1;
    }
    this.buffer = buffer.slice(Math.min(position, buffer.length));
  }

  /**
   * Splits one record that holds a quote, from `start`. Returns undefined when the buffer ends before the
   * record does (more text needed), or an `unterminated` error at the end of input.
   */
  private splitQuoted(
    buffer: string,
    start: number,
    final: boolean,
  ): { fields: string[]; end: number; next: number; error?: string } | undefined {
    const { delimiter, quote } = this;
    const fields: string[] = [];
    let i = start;
    for (;;) {
      if (buffer[i] === quote) {
        let value = '';
        let j = i + 1;
        for (;;) {
          const close = buffer.indexOf(quote, j);
          if (close < 0)
            return final ? { fields, end: buffer.length, next: buffer.length, error: 'unterminated' } : undefined;
          value += buffer.slice(j, close);
          if (close + 1 >= buffer.length && !final) return undefined;
          if (buffer[close + 1] === quote) {
            value += quote;
            j = close + 2;
            continue;
          }
          j = close + 1;
          break;
        }
        fields.push(value);
        const c = buffer[j];
        if (c === delimiter) {
          i = j + 1;
          continue;
        }
        if (c === undefined) return final ? { fields, end: j, next: j } : undefined;
        if (c === '\n') return { fields, end: j, next: j + 1 };
        if (c === '\r' && buffer[j + 1] === '\n') return { fields, end: j, next: j + 2 };
        if (c === '\r' && j + 1 >= buffer.length && !final) return undefined;
        // Text after a closing quote: the record cannot be split reliably; reject it up to the end of line.
        const lineEnd = buffer.indexOf('\n', j);
        if (lineEnd < 0 && !final) return undefined;
        const end = lineEnd < 0 ? buffer.length : lineEnd;
        return {
          fields,
          end: buffer[end - 1] === '\r' ? end - 1 : end,
          next: lineEnd < 0 ? end : end + 1,
          error: `unexpected text after a closing ${quote} in field ${fields.length}`,
        };
      }
      // An unquoted field runs to the next delimiter or line break; a quote inside it is a literal.
      let j = i;
      while (j < buffer.length) {
        const c = buffer[j];
        if (c === delimiter || c === '\n') break;
        j++;
      }
      if (j >= buffer.length && !final) return undefined;
      const end = buffer[j - 1] === '\r' && buffer[j] !== delimiter ? j - 1 : j;
      fields.push(buffer.slice(i, end));
      if (buffer[j] === delimiter) {
        i = j + 1;
        continue;
      }
      return { fields, end, next: j >= buffer.length ? j : j + 1 };
    }
  }
}

/** 'cr' when the text's first line break is a CR not followed by LF; 'unknown' while there is none. */
function firstLineBreak(text: string): 'unknown' | 'lf' | 'cr' {
  const cr = text.indexOf('\r');
  const lf = text.indexOf('\n');
  if (lf >= 0 && (cr < 0 || lf < cr || lf === cr + 1)) return 'lf';
  // A CR at the very end of a chunk may be the first half of a CRLF: decide on the next chunk.
  if (cr >= 0 && cr < text.length - 1) return 'cr';
  return 'unknown';
}

function countLineBreaks(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * One physical line (without its line break) split as the streaming reader splits it in a file, when the
 * record starting on it also ends on it; undefined when a quote opened on the line is not closed on it (in a
 * file the record would run on to later lines, or be rejected as unterminated). `line` is its line number.
 */
export function splitCsvLine(text: string, line: number, delimiter: string, quote: string): CsvRecord | undefined {
  if (text === '') return { line, fields: [''], raw: '' };
  const splitter = new CsvSplitter(delimiter, quote);
  const records = [...splitter.push(text), ...splitter.end()];
  const record = records[0];
  if (records.length !== 1 || !record || record.error?.startsWith('unterminated')) return undefined;
  return { ...record, line };
}

/**
 * What a record after the header is: a data line, or a reject (the splitter's error, a blank line, a line
 * of only separators, undecodable bytes, the wrong number of fields). `fieldCount` is the header's.
 */
export function csvRecordEvent(
  record: CsvRecord,
  fieldCount: number | undefined,
  settings: Pick<LedgerReadSettings, 'delimiter' | 'encoding'>,
): SourceEvent {
  if (record.error) return { kind: 'reject', line: record.line, reason: record.error, raw: record.raw };
  const loneCr = loneCarriageReturn(record.raw, settings.encoding);
  if (loneCr !== undefined) {
    return {
      kind: 'reject',
      line: record.line,
      reason:
        `lone carriage return at byte ${loneCr} of the line (a CR without LF: an old-Mac line break joined two ` +
        `lines, ` +
        'or a stray CR inside a value); fix or remove it and import again',
      raw: record.raw,
    };
  }
  if (record.raw.trim() === '') return { kind: 'reject', line: record.line, reason: 'blank line', raw: record.raw };
  // Excel saves the formatted empty rows below a table as `;;;;;;;`: still a line, but nothing in it.
  if (record.fields.every((f) => f.trim() === ''))
    return { kind: 'reject', line: record.line, reason: 'empty line (only separators)', raw: record.raw };
  if (record.raw.includes('\uFFFD') && settings.encoding === 'utf-8') {
    return {
      kind: 'reject',
      line: record.line,
      reason: 'bytes that are not UTF-8: is the file Latin-1 or Windows-1252? Set ledger.encoding or pass --encoding',
      raw: record.raw,
    };
  }
  if (record.fields.length !== fieldCount) {
    const shownDelimiter = settings.delimiter === '\t' ? 'tab' : `"${settings.delimiter}"`;
    const hint = record.fields.length === 1 ? ` — is the delimiter ${shownDelimiter} right (ledger.delimiter)?` : '';
    return {
      kind: 'reject',
      line: record.line,
      reason: `expected ${fieldCount} fields separated by ${shownDelimiter}, found ${record.fields.length}${hint}`,
      raw: record.raw,
    };
  }
  return { kind: 'values', line: record.line, values: record.fields, raw: record.raw };
}

/**
 * Where a CR not followed by LF sits in a record's text (1-based, in bytes of the file's encoding), or
 * undefined. The line break's own CR is not in the record; a file whose line breaks are lone CRs is read as
 * such (readCsv), so a lone CR left in a record of an LF file either joined two lines or sits inside a value.
 */
function loneCarriageReturn(raw: string, encoding: LedgerReadSettings['encoding']): number | undefined {
  for (let at = raw.indexOf('\r'); at >= 0; at = raw.indexOf('\r', at + 1)) {
    if (raw[at + 1] !== '\n') return (encoding === 'utf-8' ? Buffer.byteLength(raw.slice(0, at), 'utf8') : at) + 1;
  }
  return undefined;
}

/** Reads a delimited text file: the header (see HeaderSearch), then each later record as a data line. */
export async function* readCsv(
  file: string,
  settings: Pick<LedgerReadSettings, 'delimiter' | 'quote' | 'encoding' | 'columns'>,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  const splitter = new CsvSplitter(settings.delimiter, settings.quote);
  const search = new HeaderSearch<CsvRecord>(
    (record) => (record.raw.trim() === '' ? undefined : record.fields.map((f) => f.trim())),
    settings.columns,
  );
  let fieldCount: number | undefined;
  function* emit(placed: PlacedRow<CsvRecord>[]): Generator<SourceEvent> {
    for (const { role, row } of placed) {
      if (role === 'above-header') yield { kind: 'above-header', line: row.line, raw: row.raw };
      else if (role === 'header') {
        fieldCount = row.fields.length;
        yield { kind: 'header', names: row.fields.map((f) => f.trim()), lastLine: row.line + countLineBreaks(row.raw) };
      } else yield csvRecordEvent(row, fieldCount, settings);
    }
  }
  // Decided by the first line break: LF (or CRLF), or a lone CR (old Mac), then read as LF.
  let lineBreak: 'unknown' | 'lf' | 'cr' = 'unknown';
  for await (const chunk of readTextChunks(file, settings.encoding, onProgress)) {
    if (lineBreak === 'unknown') lineBreak = firstLineBreak(chunk);
    const text = lineBreak === 'cr' ? chunk.replaceAll('\r', '\n') : chunk;
    for (const record of splitter.push(text)) yield* emit(search.push(record));
  }
  for (const record of splitter.end()) yield* emit(search.push(record));
  yield* emit(search.end());
}
