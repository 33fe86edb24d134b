/**
 * Lone surrogate escapes (`"\ud800"`) in an answer, made readable (issue 34): DuckDB refuses a whole file for one,
 * so a hostile or broken record made the month unextractable. Its backslash is doubled (the string then holds the
 * six characters `\ud800` as text), and the loader quarantines that record alone (pipelines/extract/load.ts).
 */
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

/** The text an escaped lone surrogate becomes, as the loader looks for it in a record's raw JSON. */
export const guardedSurrogatePattern = '\\\\\\\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}';

function hexAt(data: Buffer, at: number): number {
  const text = data.toString('latin1', at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(text) ? Number.parseInt(text, 16) : -1;
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Rewrites a JSON text chunk by chunk; only bytes at a backslash are looked at (found natively). */
export class LoneSurrogateGuard {
  /** Bytes from a backslash at the end of the last chunk, until the escape (or pair) is whole. */
  private carry: Buffer | undefined;
  /** Lone surrogates made text so far. */
  guarded = 0;

  push(chunk: Buffer, last = false): Buffer {
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    const pieces: Buffer[] = [];
    let from = 0;
    let end = data.length;
    for (let i = data.indexOf(BACKSLASH); i !== -1; ) {
      if (data[i + 1] !== LOWER_U) {
        if (i + 1 >= data.length && !last) {
          end = i;
          break;
        }
        // Any other escape (an escaped backslash included) is two bytes.
        i = data.indexOf(BACKSLASH, i + 2);
        continue;
      }
      const code = i + 6 <= data.length ? hexAt(data, i + 2) : -2;
      const pairKnown = i + 12 <= data.length || last;
      if ((code === -2 || (isHigh(code) && !pairKnown)) && !last) {
        end = i;
        break;
      }
      const paired = isHigh(code) && data[i + 6] === BACKSLASH && data[i + 7] === LOWER_U && isLow(hexAt(data, i + 8));
      if (paired) {
        i = data.indexOf(BACKSLASH, i + 12);
        continue;
      }
      if (isHigh(code) || isLow(code)) {
        pieces.push(data.subarray(from, i), Buffer.from([BACKSLASH]));
        from = i;
        this.guarded++;
      }
      i = data.indexOf(BACKSLASH, i + 6);
    }
    if (end < data.length) this.carry = Buffer.from(data.subarray(end));
    if (pieces.length === 0) return from === 0 && end === data.length ? data : data.subarray(from, end);
    pieces.push(data.subarray(from, end));
    return Buffer.concat(pieces);
  }
}

/** The guard as a stream stage (between the network and the landing file). */
export function loneSurrogateStream(guard = new LoneSurrogateGuard()): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      callback(null, guard.push(chunk));
    },
    flush(callback: TransformCallback) {
      callback(null, guard.push(Buffer.alloc(0), true));
    },
  });
}

/** A whole JSON text with its lone surrogates made text. */
export function guardLoneSurrogates(text: string): string {
  if (!text.includes('\\')) return text;
  return new LoneSurrogateGuard().push(Buffer.from(text, 'utf8'), true).toString('utf8');
}

/** Rewrites a landed gzip file with its lone surrogates made text, if it holds any; returns how many. */
export async function guardGzipFile(file: string): Promise<number> {
  const guard = new LoneSurrogateGuard();
  const temporary = `${file}.surrogates-${process.pid}`;
  try {
    await pipeline(
      createReadStream(file),
      createGunzip(),
      loneSurrogateStream(guard),
      createGzip(),
      createWriteStream(temporary, { mode: 0o600 }),
    );
    if (guard.guarded > 0) renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
  return guard.guarded;
}
