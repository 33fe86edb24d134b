/**
 * Checks, byte by byte as it streams past, that a response body is one complete JSON array, and counts its
 * elements, so a connection dropped mid-body is retried instead of landed. Memory stays constant: it keeps
 * only the nesting stack, never the body. (Structural check only: strings, nesting and the closing `]`.)
 */
import { Transform, type TransformCallback } from 'node:stream';
import { StringScanner } from '../../core/json-string-scan.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A pass-through stream that fails with a reason when what passed is not one complete JSON array. */
export class JsonArrayCheck extends Transform {
  /** Bytes seen. */
  bytes = 0;
  private readonly stack: number[] = [];
  private started = false;
  private finished = false;
  private inString = false;
  private escaped = false;
  private commasAtTop = 0;
  private valueAtTop = false;
  private readonly strings = new StringScanner();

  /** Top-level elements of the array (valid once the stream has ended). */
  get elements(): number {
    return this.valueAtTop ? this.commasAtTop + 1 : 0;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const problem = this.scan(chunk);
    this.bytes += chunk.length;
    if (problem) callback(new Error(problem));
    else callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.finished) {
      callback(new Error(`the body ended after ${this.bytes} bytes before its JSON array was complete`));
    } else callback();
  }

  /** Scans one chunk; returns a reason when the body cannot be a JSON array. UTF-8 never hides ASCII bytes. */
  private scan(chunk: Buffer): string | undefined {
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) {
        const end = this.strings.end(chunk, i, this.escaped);
        this.escaped = end.escaped;
        if (end.at === -1) return undefined;
        this.inString = false;
        i = end.at;
        continue;
      }
      const byte = chunk[i]!;
      if (isWhitespace(byte)) continue;
      const at = this.bytes + i;
      if (this.finished) return `unexpected data after the closing ] at byte ${at}`;
      if (!this.started) {
        if (byte !== OPEN_ARRAY)
          return `the body is not a JSON array (byte ${at} is ${JSON.stringify(String.fromCharCode(byte))})`;
        this.started = true;
        this.stack.push(OPEN_ARRAY);
        continue;
      }
      const depth = this.stack.length;
      if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        const open = this.stack.pop();
        if (open !== (byte === CLOSE_ARRAY ? OPEN_ARRAY : OPEN_OBJECT))
          return `mismatched ${String.fromCharCode(byte)} at byte ${at}`;
        if (this.stack.length === 0) this.finished = true;
        continue;
      }
      if (depth === 1) {
        if (byte === COMMA) this.commasAtTop++;
        else this.valueAtTop = true;
      }
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) this.stack.push(byte);
    }
    return undefined;
  }
}
