/**
 * The masking thread gives the bytes the inline masker gives, in order, whatever the chunks: an answer of many
 * records cut at odd sizes (PINs split across chunks), in hash and drop mode, several streams at once on the one
 * worker, and more chunks than it takes in flight (the stream waits for replies instead of buffering without end);
 * the worker stops once idle, and the next stream starts another.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, test } from 'vitest';
import { keyMaskingThreadStream, maskingThreadRunning } from '../../core/key-masker-thread.js';
import { KeyMasker, type KeyProtection } from '../../core/key-protection.js';

const hash: KeyProtection = { mode: 'hash', secret: Buffer.from('thread-test-secret') };
const drop: KeyProtection = { mode: 'drop' };

/** A sales answer of `n` records, each with a PIN, one in 7 a number and one in 11 escaped. */
function answer(n: number, seed: number): Buffer {
  const records = Array.from({ length: n }, (_, i) => ({
    transactionId: seed * 1_000_000 + i,
    key: i % 7 === 0 ? 1_000_000 + i : i % 11 === 0 ? `PIN\\"${i}` : `PIN-${seed}-${String(i).padStart(8, '0')}`,
    productName: `Game ${i % 13}`,
  }));
  return Buffer.from(
    JSON.stringify(records).replaceAll('"key"', (m) => (seed % 2 ? m : '"k\\u0065y"')),
    'utf8',
  );
}

function chunks(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, n = 0; at < bytes.length; n++) {
    const size = sizes[n % sizes.length]!;
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

/** The pieces through a masking-thread stream; `opened` runs once the stream has its worker. */
async function throughThread(pieces: Buffer[], protection: KeyProtection, opened = () => {}): Promise<Buffer> {
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk);
      callback();
    },
  });
  const masking = keyMaskingThreadStream(protection);
  opened();
  await pipeline(Readable.from(pieces), masking, sink);
  return Buffer.concat(received);
}

function inline(bytes: Buffer, protection: KeyProtection): Buffer {
  return new KeyMasker(protection).push(bytes);
}

describe('the key-masking thread', () => {
  test.each([
    ['hash', hash],
    ['drop', drop],
  ])('gives the inline masker’s bytes in %s mode, with chunks cut anywhere', async (_mode, protection) => {
    const bytes = answer(5_000, 1);
    const expected = inline(bytes, protection);
    // Odd sizes split PINs, names and escapes; far more chunks than are taken in flight.
    const out = await throughThread(chunks(bytes, [1, 7, 64, 3, 1000, 13]), protection);
    expect(out.equals(expected)).toBe(true);
    expect(out.includes('PIN-1-')).toBe(false);
  });

  test('serves several streams at once, each in its own order', async () => {
    const answers = [2, 3, 4].map((seed) => answer(3_000, seed));
    const outs = await Promise.all(answers.map((bytes, i) => throughThread(chunks(bytes, [17 + i, 500]), hash)));
    for (const [i, out] of outs.entries()) expect(out.equals(inline(answers[i]!, hash))).toBe(true);
  });

  test('an empty answer and one chunk holding a whole answer', async () => {
    expect((await throughThread([], hash)).length).toBe(0);
    const bytes = answer(200, 5);
    expect((await throughThread([bytes], drop)).equals(inline(bytes, drop))).toBe(true);
  });

  test('stops when no stream is left, and starts again for the next', async () => {
    const bytes = answer(300, 7);
    expect((await throughThread([bytes], hash)).equals(inline(bytes, hash))).toBe(true);
    while (maskingThreadRunning()) await new Promise((resolve) => setTimeout(resolve, 100));
    // Asked while the stream is open: once it has closed, the worker may already be idle long enough to stop.
    let running = false;
    const out = await throughThread([bytes], hash, () => {
      running = maskingThreadRunning();
    });
    expect(out.equals(inline(bytes, hash))).toBe(true);
    expect(running).toBe(true);
  });
});
