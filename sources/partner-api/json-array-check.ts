/**
 * Checks, byte by byte as it streams past, that a response body is one complete JSON array, and counts its
 * elements, so a connection dropped mid-body is retried instead of landed. Memory stays constant: it keeps
 * only the nesting stack, never the body. (Structural check only: strings, nesting and the closing `]`.)
 */
import { Transform, type TransformCallback } from 'node:stream';

// Local, not imported: in scan's loop V8 did not fold an imported binding (a 1M-record answer 1.0–1.1 s, not 0.64 s).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Where the scan of a body stands between its chunks. */
interface ScanState {
  /** Bytes of the chunks before this one. */
  bytes: number;
  /** The arrays and objects open, outermost first. */
  stack: number[];
  /** The array has opened (it has closed again when nothing is open any more). */
  started: boolean;
  inString: boolean;
  escaped: boolean;
  commasAtTop: number;
  valueAtTop: boolean;
}

/** A pass-through stream that fails with a reason when what passed is not one complete JSON array. */
export class JsonArrayCheck extends Transform {
  private readonly state: ScanState = {
    bytes: 0,
    stack: [],
    started: false,
    inString: false,
    escaped: false,
    commasAtTop: 0,
    valueAtTop: false,
  };

  /** Bytes seen. */
  get bytes(): number {
    return this.state.bytes;
  }

  /** Top-level elements of the array (valid once the stream has ended). */
  get elements(): number {
    return this.state.valueAtTop ? this.state.commasAtTop + 1 : 0;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const problem = scan(chunk, this.state);
    this.state.bytes += chunk.length;
    if (problem) callback(new Error(problem));
    else callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (!(this.state.started && this.state.stack.length === 0)) {
      callback(new Error(`the body ended after ${this.state.bytes} bytes before its JSON array was complete`));
    } else callback();
  }
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Scans one chunk; returns a reason when the body cannot be a JSON array. UTF-8 never hides ASCII bytes. Most bytes
 * lie inside short strings, so the inner loop looks at each byte with the state in locals, and what happens once
 * per body (before the array opens, after it closes) is kept out of that loop. Measured on a 1M-record answer (412
 * MiB in 64 KiB chunks, the download's): 0.66–0.70 s, where finding each string's end with Buffer.indexOf and a
 * branch for the array's start in the loop took 1.61–1.66 s (0.57 s only until V8 first re-optimized it).
 */
function scan(chunk: Buffer, state: ScanState): string | undefined {
  const stack = state.stack;
  let depth = stack.length;
  let inString = state.inString;
  let escaped = state.escaped;
  let commas = state.commasAtTop;
  let valueAtTop = state.valueAtTop;
  const length = chunk.length;
  let problem: string | undefined;
  let i = 0;
  body: while (i < length) {
    if (depth === 0) {
      // Before the array (it must open it) or after it (nothing may follow).
      const byte = chunk[i]!;
      if (!isWhitespace(byte)) {
        problem = outsideTheArray(byte, state.bytes + i, state.started);
        if (problem) break;
        state.started = true;
        stack.push(OPEN_ARRAY);
        depth = 1;
      }
      i++;
      continue;
    }
    for (; i < length; i++) {
      const byte = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      // isWhitespace written out: called here it cost 0.74–0.80 s against 0.64 s.
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
      if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        const open = stack.pop();
        depth--;
        if (open !== (byte === CLOSE_ARRAY ? OPEN_ARRAY : OPEN_OBJECT)) {
          problem = mismatched(byte, state.bytes + i);
          break body;
        }
        if (depth === 0) {
          // The array closed: only whitespace may follow (the outer loop's check).
          i++;
          continue body;
        }
        continue;
      }
      if (depth === 1) {
        if (byte === COMMA) commas++;
        else valueAtTop = true;
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        stack.push(byte);
        depth++;
      }
    }
  }
  state.inString = inString;
  state.escaped = escaped;
  state.commasAtTop = commas;
  state.valueAtTop = valueAtTop;
  return problem;
}

/** A byte other than whitespace where no array is open: the array's start, or a reason. */
function outsideTheArray(byte: number, at: number, started: boolean): string | undefined {
  if (started) return `unexpected data after the closing ] at byte ${at}`;
  if (byte !== OPEN_ARRAY)
    return `the body is not a JSON array (byte ${at} is ${JSON.stringify(String.fromCharCode(byte))})`;
  return undefined;
}

/** The reason for a closing bracket that does not close what is open (made apart: in the loop it slowed it). */
function mismatched(byte: number, at: number): string {
  return `mismatched ${String.fromCharCode(byte)} at byte ${at}`;
}
