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
const KEY_NAME = Buffer.from('key');

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Rewrites the string value of every member named `key` of a JSON text, chunk by chunk (a member split
 * across chunks included). Only a key's own value is buffered; everything else passes through as received.
 * A value that is not a string (null, a number) is left as it is.
 */
export class KeyMasker {
  private inString = false;
  private escaped = false;
  /** The raw bytes of the string being read, while it may still be the name `key` (at most 3), and its length. */
  private nameBytes: number[] = [];
  private nameLength = 0;
  /** The last string closed was `key`, and only whitespace followed it. */
  private afterKeyName = false;
  /** A `"key":` was read: the next string is a PIN. */
  private expectingPin = false;
  /** The PIN being read (raw JSON string bytes, without quotes), in the pieces the chunks brought. */
  private pin: Buffer[] | undefined;
  private readonly strings = new StringScanner();
  /** Whole keys rewritten so far (keys already masked are not counted). */
  masked = 0;

  constructor(private readonly protection: KeyProtection) {
    if (protection.mode === 'hash' && !protection.secret) throw new Error('hash mode needs the secret of the HMAC');
  }

  /** Rewrites one chunk; what it returns goes out in place of the chunk. */
  push(chunk: Buffer): Buffer {
    if (this.protection.mode === 'store') return chunk;
    // Written into one buffer as it goes; a chunk without a PIN passes through untouched.
    let out: OutputBuffer | undefined;
    let passFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) {
        // String content: from quote to quote at native speed (core/json-string-scan.ts).
        const end = this.strings.end(chunk, i, this.escaped);
        this.escaped = end.escaped;
        const until = end.at === -1 ? chunk.length : end.at;
        if (this.pin) this.pin.push(chunk.subarray(i, until));
        else {
          // Only a name of 3 bytes can be `key`: its bytes are kept (a name may be split across chunks).
          if (this.nameLength + until - i <= KEY_NAME.length)
            for (let j = i; j < until; j++) this.nameBytes.push(chunk[j]!);
          this.nameLength += until - i;
        }
        if (end.at === -1) break;
        this.inString = false;
        i = end.at;
        if (this.pin) {
          // Inside a PIN: kept aside, not passed through; the protected form goes out instead.
          out ??= new OutputBuffer(chunk.length);
          out.text(this.protectedPin(this.pin.length === 1 ? this.pin[0]! : Buffer.concat(this.pin)));
          this.pin = undefined;
          passFrom = i + 1;
        } else {
          const name = this.nameBytes;
          this.afterKeyName =
            this.nameLength === 3 && name[0] === KEY_NAME[0] && name[1] === KEY_NAME[1] && name[2] === KEY_NAME[2];
        }
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
        this.nameBytes = [];
        this.nameLength = 0;
        continue;
      }
      if (isWhitespace(byte)) continue;
      if (byte === COLON && this.afterKeyName) {
        this.afterKeyName = false;
        this.expectingPin = true;
        continue;
      }
      this.afterKeyName = false;
      this.expectingPin = false;
    }
    // Nothing written: no PIN closed here (closing one writes), so the chunk is passed whole or held in a PIN.
    if (!out) return this.pin ? chunk.subarray(0, 0) : chunk;
    if (!this.pin) out.copy(chunk, passFrom, chunk.length);
    return out.result();
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
