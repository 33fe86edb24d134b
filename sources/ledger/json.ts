/**
 * JSON ledgers, streamed: a JSON array of objects (the array is split without parsing it whole, so memory
 * stays flat), and NDJSON (one object per line; a line that is not a JSON object is a reject with its line
 * number, a blank line is a reject too). An array element is located by its ordinal (record 1, 2, …), not
 * by a line: exports often write the whole array on one line, where every element would be "line 1".
 */
import { JobError } from '../../core/errors.js';
import { readTextChunks } from './text-stream.js';
import type { CellValue, LedgerReadSettings, ProgressCallback, SourceEvent } from './types.js';

export async function* readNdjson(
  file: string,
  settings: Pick<LedgerReadSettings, 'encoding'>,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  let pending = '';
  let line = 0;
  for await (const text of readTextChunks(file, settings.encoding, onProgress)) {
    pending += text;
    let start = 0;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n', start)) {
      yield objectEvent(++line, pending.slice(start, newline).replace(/\r$/, ''));
      start = newline + 1;
    }
    pending = pending.slice(start);
  }
  if (pending !== '') yield objectEvent(++line, pending.replace(/\r$/, ''));
}

export async function* readJsonArray(
  file: string,
  settings: Pick<LedgerReadSettings, 'encoding'>,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  const splitter = new JsonArraySplitter(file);
  let record = 0;
  for await (const text of readTextChunks(file, settings.encoding, onProgress)) {
    for (const element of splitter.push(text)) yield objectEvent(++record, element);
  }
  for (const element of splitter.end()) yield objectEvent(++record, element);
}

/** `line` is the NDJSON line, or the array element's ordinal. */
function objectEvent(line: number, text: string): SourceEvent {
  const raw = text.trim();
  if (raw === '') return { kind: 'reject', line, reason: 'blank line', raw: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { kind: 'reject', line, reason: `not valid JSON: ${(error as Error).message}`, raw };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { kind: 'reject', line, reason: 'not a JSON object', raw };
  }
  const object: Record<string, CellValue> = {};
  for (const [key, value] of Object.entries(parsed)) {
    object[key] = value === null || typeof value !== 'object' ? (value as CellValue) : JSON.stringify(value);
  }
  return { kind: 'object', line, object, raw };
}

/**
 * Splits the text of a JSON array, pushed chunk by chunk, into the texts of its elements, in order. It counts
 * physical lines only to locate errors in the array itself (text after it, a missing "[").
 */
export class JsonArraySplitter {
  /** 0: before `[`; 1: inside the array; deeper: inside an element; -1: after `]`. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private line = 1;
  private element: string[] = [];
  private inElement = false;

  constructor(private readonly file: string) {}

  *push(text: string): Generator<string> {
    let start = this.inElement ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
        continue;
      }
      const whitespace = c === 32 || c === 10 || c === 13 || c === 9;
      if (this.depth === 0) {
        if (whitespace) continue;
        if (c !== 91 /* [ */) throw this.notAnArray(text[i]!);
        this.depth = 1;
        continue;
      }
      if (this.depth === -1) {
        if (!whitespace)
          throw new JobError(
            `${this.file}:${this.line}: unexpected text after the end of the JSON array.`,
            'Fix the file, or export one object per line (.ndjson).',
          );
        continue;
      }
      if (this.depth === 1 && !this.inElement) {
        if (whitespace || c === 44 /* , */) continue;
        if (c === 93 /* ] */) {
          this.depth = -1;
          continue;
        }
        this.inElement = true;
        start = i;
      }
      // Inside an element.
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 || c === 93) {
        if (this.depth === 1) {
          // `]` closing the array right after a primitive element.
          yield this.finish(text.slice(start, i));
          this.depth = -1;
          continue;
        }
        this.depth--;
        if (this.depth === 1) {
          yield this.finish(text.slice(start, i + 1));
          start = -1;
        }
      } else if (c === 44 && this.depth === 1) {
        yield this.finish(text.slice(start, i));
        start = -1;
      }
    }
    if (this.inElement && start >= 0) this.element.push(text.slice(start));
  }

  *end(): Generator<string> {
    if (this.depth === 0) throw this.notAnArray('the end of the file');
    if (this.inElement) {
      // An element never closed: kept whole as one reject.
      yield this.finish('');
    } else if (this.depth > 0) {
      throw new JobError(
        `${this.file}: the JSON array is never closed (no final "]").`,
        'The file looks truncated: export it again.',
      );
    }
  }

  private finish(tail: string): string {
    const text = this.element.join('') + tail;
    this.element = [];
    this.inElement = false;
    return text;
  }

  private notAnArray(found: string): JobError {
    return new JobError(
      `${this.file}:${this.line}: a .json ledger must be an array of objects, found ${found} instead of "[".`,
      'For one object per line, name the file .ndjson or pass --format ndjson.',
    );
  }
}
