/**
 * Keys (PINs) at rest, under `security.keys`: `store` keeps the key as received; `hash` keeps its masked
 * form (`****` + last 4, by the masking rule) and an HMAC-SHA256 of it under a secret, so the same key can
 * still be recognised (duplicates, lookups) without being kept; `drop` keeps only the masked form.
 * `KeyMasker` rewrites JSON as it streams past — every `"key": "<pin>"` member becomes the masked key, followed
 * in hash mode by `"keyHmac": "<hex>"` — so a landing file is masked before its bytes reach the disk.
 */
import { createHmac } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { maskPin, textMask } from './masking.js';
import { StringScanner } from './json-string-scan.js';

export const keyModes = ['store', 'hash', 'drop'] as const;
export type KeyMode = (typeof keyModes)[number];

/** What the writers of keys need: the mode, and in hash mode the secret of the HMAC. */
export interface KeyProtection {
  mode: KeyMode;
  secret?: Buffer;
}

/**
 * HMAC-SHA256 of a key, hex. The key is trimmed first: the same PIN with stray spaces is the same PIN.
 * A fresh HMAC each time: measured at a million keys, copying two hash states prepared from the secret cost twice
 * as much (5.6 against 3.1 s).
 */
export function keyHmac(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key.trim(), 'utf8').digest('hex');
}

/** A key already in its kept form (masked): left as it is, so protecting twice changes nothing. */
export function isMaskedKey(value: string): boolean {
  return value.startsWith(textMask);
}

const QUOTE = 0x22;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const LOWER_N = 0x6e;
/** The longest spelling of the name `key` in JSON: each letter escaped, `\u006B\u0065\u0079`. */
const LONGEST_KEY_NAME = 18;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** `key` in any case spelling, for the 3 raw bytes of a member name (the common case: no escape). */
function isKeyName3(bytes: Buffer, at: number): boolean {
  return (bytes[at]! | 0x20) === 0x6b && (bytes[at + 1]! | 0x20) === 0x65 && (bytes[at + 2]! | 0x20) === 0x79;
}

/**
 * Whether the raw bytes of a member name (quotes excluded) name the key: `key` in any case, escapes decoded
 * (`"k\u0065y"`, issue 34: DuckDB and every JSON reader decode them, so the masker must too).
 */
function isKeyName(raw: Buffer, sawEscape: boolean): boolean {
  if (raw.length === 3) return isKeyName3(raw, 0);
  if (!sawEscape || raw.length > LONGEST_KEY_NAME) return false;
  try {
    return (JSON.parse(`"${raw.toString('utf8')}"`) as string).toLowerCase() === 'key';
  } catch {
    return false;
  }
}

/**
 * A value of `key` that is not a string (a number, an array, an object, true or false), read past while it is
 * replaced (issue 34: a PIN sent as a number or an array was landed and quarantined whole). A number is kept as
 * its text (it is the PIN), anything else is only walked: strings inside it are skipped with their escapes.
 */
class OtherValue {
  depth = 0;
  inString = false;
  escaped = false;
  /** A number's characters (bounded: a number has no business being long). */
  text = '';
  readonly isNumber: boolean;

  constructor(first: number) {
    this.isNumber = first === 0x2d || (first >= 0x30 && first <= 0x39);
  }

  /** Reads from `i`; returns where the value ends (the index after it), or -1 when it goes on past the chunk. */
  read(chunk: Buffer, i: number, strings: StringScanner): number {
    for (; i < chunk.length; i++) {
      if (this.inString) {
        const end = strings.end(chunk, i, this.escaped);
        this.escaped = end.escaped;
        if (end.at === -1) return -1;
        this.inString = false;
        i = end.at;
        if (this.depth === 0) return i + 1;
        continue;
      }
      const byte = chunk[i]!;
      if (byte === QUOTE) this.inString = true;
      else if (byte === 0x5b || byte === 0x7b) this.depth++;
      else if (byte === 0x5d || byte === 0x7d) {
        // A closing bracket at depth 0 belongs to the enclosing record: a scalar ends before it.
        if (this.depth === 0) return i;
        if (--this.depth === 0) return i + 1;
      } else if (this.depth === 0 && (byte === 0x2c || isWhitespace(byte))) return i;
      else if (this.depth === 0 && this.text.length < 64) this.text += String.fromCharCode(byte);
    }
    return -1;
  }
}

/**
 * Rewrites the value of every member named `key` (any case, escapes decoded) of a JSON text, chunk by chunk (a
 * member split across chunks included). Only a key's own value is buffered; everything else passes through as
 * received. A string becomes its kept form; a number is taken as the PIN's text and kept the same way; any other
 * value (an array, an object, a boolean) is dropped as `null`; null stays null.
 */
export class KeyMasker {
  private inString = false;
  private escaped = false;
  /** The string being read: where it began in this chunk (-1: in an earlier one), its length, and its bytes
   * from earlier chunks while it may still be a spelling of `key` (at most LONGEST_KEY_NAME). */
  private nameStart = -1;
  private nameLength = 0;
  private nameCarry: Buffer | undefined;
  private nameSawEscape = false;
  /** The last string closed was `key`, and only whitespace followed it. */
  private afterKeyName = false;
  /** A `"key":` was read: the next value is a PIN. */
  private expectingPin = false;
  /** The PIN being read (raw JSON string bytes, without quotes), in the pieces the chunks brought. */
  private pin: Buffer[] | undefined;
  /** A key's value that is not a string, being read past. */
  private other: OtherValue | undefined;
  private readonly strings = new StringScanner();
  /** Whole keys rewritten so far (keys already masked are not counted). */
  masked = 0;
  /** Keys that were not strings (masked as text when a number, else dropped). */
  notStrings = 0;

  constructor(private readonly protection: KeyProtection) {
    if (protection.mode === 'hash' && !protection.secret) throw new Error('hash mode needs the secret of the HMAC');
  }

  /** Rewrites one chunk; what it returns goes out in place of the chunk. */
  push(chunk: Buffer): Buffer {
    if (this.protection.mode === 'store') return chunk;
    // Written into one buffer as it goes; a chunk without a PIN passes through untouched.
    let out: OutputBuffer | undefined;
    let passFrom = 0;
    let i = 0;
    // A string begun in an earlier chunk starts at 0 in this one.
    this.nameStart = -1;
    if (this.other) {
      i = this.finishOther(chunk, 0);
      if (i === -1) return chunk.subarray(0, 0);
      out = new OutputBuffer(chunk.length);
      out.text(this.replacement());
      passFrom = i;
    }
    for (; i < chunk.length; i++) {
      if (this.inString) {
        // String content: from quote to quote at native speed (core/json-string-scan.ts).
        const end = this.strings.end(chunk, i, this.escaped);
        this.escaped = end.escaped;
        const until = end.at === -1 ? chunk.length : end.at;
        if (this.pin) this.pin.push(chunk.subarray(i, until));
        else {
          this.nameLength += until - i;
          if (end.sawEscape) this.nameSawEscape = true;
        }
        if (end.at === -1) {
          // A name going on into the next chunk: its bytes so far kept while it may still be `key`.
          if (!this.pin && this.nameLength <= LONGEST_KEY_NAME) {
            const piece = chunk.subarray(this.nameStart === -1 ? 0 : this.nameStart, chunk.length);
            this.nameCarry = Buffer.concat(this.nameCarry ? [this.nameCarry, piece] : [piece]);
          }
          this.nameStart = -1;
          break;
        }
        this.inString = false;
        i = end.at;
        if (this.pin) {
          // Inside a PIN: kept aside, not passed through; the protected form goes out instead.
          out ??= new OutputBuffer(chunk.length);
          out.text(this.protectedPin(this.pin.length === 1 ? this.pin[0]! : Buffer.concat(this.pin)));
          this.pin = undefined;
          passFrom = i + 1;
        } else this.afterKeyName = this.closedName(chunk, end.at);
        continue;
      }
      const byte = chunk[i]!;
      if (byte === QUOTE) {
        this.inString = true;
        this.escaped = false;
        if (this.expectingPin) {
          this.expectingPin = false;
          // The PIN's bytes are held back from here (the opening quote included) until it closes.
          out ??= new OutputBuffer(chunk.length);
          out.copy(chunk, passFrom, i);
          this.pin = [];
          continue;
        }
        this.nameStart = i + 1;
        this.nameLength = 0;
        this.nameCarry = undefined;
        this.nameSawEscape = false;
        continue;
      }
      if (isWhitespace(byte)) continue;
      if (byte === COLON && this.afterKeyName) {
        this.afterKeyName = false;
        this.expectingPin = true;
        continue;
      }
      this.afterKeyName = false;
      if (this.expectingPin && byte !== LOWER_N) {
        // A key that is not a string (nor null): held back from here and replaced (issue 34).
        this.expectingPin = false;
        out ??= new OutputBuffer(chunk.length);
        out.copy(chunk, passFrom, i);
        this.other = new OtherValue(byte);
        const after = this.finishOther(chunk, i);
        if (after === -1) return out.result();
        out.text(this.replacement());
        passFrom = after;
        i = after - 1;
        continue;
      }
      this.expectingPin = false;
    }
    // Nothing written: no PIN closed here (closing one writes), so the chunk is passed whole or held in a PIN.
    if (!out) return this.pin ? chunk.subarray(0, 0) : chunk;
    if (!this.pin) out.copy(chunk, passFrom, chunk.length);
    return out.result();
  }

  /** Whether the string that just closed at `at` is a spelling of `key` (then it is a member name if `:` follows). */
  private closedName(chunk: Buffer, at: number): boolean {
    const length = this.nameLength;
    if (length !== 3 && !(this.nameSawEscape && length <= LONGEST_KEY_NAME)) return false;
    if (!this.nameCarry) {
      if (length === 3) return isKeyName3(chunk, at - 3);
      return isKeyName(chunk.subarray(at - length, at), true);
    }
    const raw = Buffer.concat([this.nameCarry, chunk.subarray(0, at)]);
    this.nameCarry = undefined;
    return isKeyName(raw, this.nameSawEscape);
  }

  /** Reads the non-string key on; returns where it ends in `chunk`, or -1 (then it is held: nothing goes out). */
  private finishOther(chunk: Buffer, from: number): number {
    return this.other!.read(chunk, from, this.strings);
  }

  /** What goes out in place of a non-string key: a number as a PIN's text, anything else as null. */
  private replacement(): string {
    const other = this.other!;
    this.other = undefined;
    this.notStrings++;
    return other.isNumber ? this.protectedPin(Buffer.from(other.text, 'latin1')) : 'null';
  }

  /** `"****1234"` (plus `, "keyHmac": "…"` in hash mode) for the raw JSON string bytes of a PIN. */
  private protectedPin(raw: Buffer): string {
    let pin = raw.toString('utf8');
    // Only a string with an escape needs JSON's reading (a PIN has none, as a rule).
    if (raw.includes(BACKSLASH)) {
      try {
        pin = JSON.parse(`"${pin}"`) as string;
      } catch {
        // Not valid JSON text: taken as it is.
      }
    }
    if (isMaskedKey(pin)) return JSON.stringify(pin);
    this.masked++;
    const masked = JSON.stringify(maskPin(pin.trim()));
    const hmac = this.protection.mode === 'hash' ? `,"keyHmac":"${keyHmac(this.protection.secret!, pin)}"` : '';
    return `${masked}${hmac}`;
  }
}

/**
 * A rewritten chunk, written into one buffer: the pieces passed through and the PINs' protected forms copied in
 * as they come. Measured at a million keys, a list of pieces joined with Buffer.concat cost ≈ 2 CPU-s in copies
 * and small allocations.
 */
class OutputBuffer {
  private buffer: Buffer;
  private length = 0;

  constructor(chunkLength: number) {
    // Room for the chunk and a few hundred protected PINs; grown if a chunk holds more.
    this.buffer = Buffer.allocUnsafe(chunkLength + 16_384);
  }

  copy(source: Buffer, start: number, end: number): void {
    this.reserve(end - start);
    this.length += source.copy(this.buffer, this.length, start, end);
  }

  text(text: string): void {
    // UTF-8 takes at most 3 bytes for each UTF-16 unit.
    this.reserve(text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  result(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** `KeyMasker` as a stream stage (landing files are masked between the network and the gzip). */
export function keyMaskingStream(protection: KeyProtection, masker = new KeyMasker(protection)): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      callback(null, masker.push(chunk));
    },
  });
}

/** A whole JSON text (a landed record, a quarantined raw record) with its keys protected. */
export function protectKeysInText(text: string, protection: KeyProtection): string {
  if (protection.mode === 'store') return text;
  return new KeyMasker(protection).push(Buffer.from(text, 'utf8')).toString('utf8');
}
