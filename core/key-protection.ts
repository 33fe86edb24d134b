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

export const keyModes = ['store', 'hash', 'drop'] as const;
export type KeyMode = (typeof keyModes)[number];

/** What the writers of keys need: the mode, and in hash mode the secret of the HMAC. */
export interface KeyProtection {
  mode: KeyMode;
  secret?: Buffer;
}

/** HMAC-SHA256 of a key, hex. The key is trimmed first: the same PIN with stray spaces is the same PIN. */
export function keyHmac(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key.trim(), 'utf8').digest('hex');
}

/** A key already in its kept form (masked): left as it is, so protecting twice changes nothing. */
export function isMaskedKey(value: string): boolean {
  return value.startsWith(textMask);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
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
  /** The bytes of the string being read, while it may still be the name `key` (at most 4). */
  private nameBytes: number[] = [];
  /** The last string closed was `key`, and only whitespace followed it. */
  private afterKeyName = false;
  /** A `"key":` was read: the next string is a PIN. */
  private expectingPin = false;
  /** The PIN being read (raw JSON string bytes, without quotes). */
  private pin: number[] | undefined;
  /** Whole keys rewritten so far (keys already masked are not counted). */
  masked = 0;

  constructor(private readonly protection: KeyProtection) {
    if (protection.mode === 'hash' && !protection.secret) throw new Error('hash mode needs the secret of the HMAC');
  }

  /** Rewrites one chunk; what it returns goes out in place of the chunk. */
  push(chunk: Buffer): Buffer {
    if (this.protection.mode === 'store') return chunk;
    const out: Buffer[] = [];
    let passFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.pin) {
          // Inside a PIN: kept aside, not passed through.
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.inString = false;
            out.push(this.protectedPin(Buffer.from(this.pin)));
            this.pin = undefined;
            passFrom = i + 1;
            continue;
          }
          this.pin.push(byte);
          continue;
        }
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          this.afterKeyName = this.nameBytes.length === KEY_NAME.length && Buffer.from(this.nameBytes).equals(KEY_NAME);
          continue;
        }
        if (this.nameBytes.length <= KEY_NAME.length) this.nameBytes.push(byte);
        continue;
      }
      if (byte === QUOTE) {
        this.inString = true;
        this.escaped = false;
        if (this.expectingPin) {
          this.expectingPin = false;
          // The PIN's bytes are held back from here (the opening quote included) until it closes.
          out.push(chunk.subarray(passFrom, i));
          this.pin = [];
          continue;
        }
        this.nameBytes = [];
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
    if (!this.pin) out.push(chunk.subarray(passFrom));
    return Buffer.concat(out);
  }

  /** `"****1234"` (plus `, "keyHmac": "…"` in hash mode) for the raw JSON string bytes of a PIN. */
  private protectedPin(raw: Buffer): Buffer {
    let pin: string;
    try {
      pin = JSON.parse(`"${raw.toString('utf8')}"`) as string;
    } catch {
      pin = raw.toString('utf8');
    }
    if (isMaskedKey(pin)) return Buffer.from(`"${pin}"`);
    this.masked++;
    const masked = JSON.stringify(maskPin(pin.trim()));
    const hmac = this.protection.mode === 'hash' ? `,"keyHmac":"${keyHmac(this.protection.secret!, pin)}"` : '';
    return Buffer.from(`${masked}${hmac}`);
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
