import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coalescedChunks } from '../../../sources/partner-api/coalesced-chunks.js';

async function through(pieces: Buffer[], bytes: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const piece of Readable.from(pieces, { objectMode: false }).pipe(coalescedChunks(bytes))) out.push(piece);
  return out;
}

describe('a body in bigger pieces', () => {
  it('keeps every byte in order, each piece at least the size but the last', async () => {
    const pieces = Array.from({ length: 50 }, (_, i) => Buffer.alloc(7 + (i % 5) * 3, i));
    const out = await through(pieces, 64);
    expect(Buffer.concat(out)).toEqual(Buffer.concat(pieces));
    expect(out.slice(0, -1).every((piece) => piece.length >= 64)).toBe(true);
    expect(out.at(-1)!.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThan(pieces.length / 4);
  });

  it('passes a piece already big enough as it is, and gives nothing for an empty body', async () => {
    const big = Buffer.alloc(100, 1);
    const [first] = await through([big], 64);
    expect(first).toBe(big);
    expect(await through([], 64)).toEqual([]);
  });
});
