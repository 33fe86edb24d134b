import { describe, expect, it } from 'vitest';
import { useNativeCrc32, zipCrc32Package, zipPackage } from '../../reports/native-crc32.js';

/** CRC-32 bit by bit, as the `crc-32` package answers: signed, continuing from `seed`. */
function crc32Reference(bytes: Uint8Array, seed = 0): number {
  let crc = ~seed;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc | 0;
}

function pieces(): Buffer[] {
  const bytes = Buffer.alloc(70_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + (i >> 9)) & 255;
  return [bytes.subarray(0, 1), bytes.subarray(1, 65_537), Buffer.alloc(0), bytes.subarray(65_537)];
}

/** crc32-stream's DeflateCRC32Stream, the instance exceljs's zip loads. */
function zipDeflateStream(): NodeJS.ReadWriteStream & { digest(): Buffer } {
  const { DeflateCRC32Stream } = zipPackage('crc32-stream') as { DeflateCRC32Stream: new () => never };
  return new DeflateCRC32Stream();
}

describe("the zip's CRC-32", () => {
  it("is the package's value for every piece, seed and roll", () => {
    useNativeCrc32();
    const crc32 = zipCrc32Package();
    for (const [i, piece] of pieces().entries()) {
      expect(crc32.buf(piece)).toBe(crc32Reference(piece));
      expect(crc32.buf(piece, i * 0x9e3779b9)).toBe(crc32Reference(piece, i * 0x9e3779b9));
      // crc32-stream's first seed is a Buffer of four zero bytes, which the package reads as 0
      expect(crc32.buf(piece, Buffer.alloc(4))).toBe(crc32Reference(piece));
    }
    const rolled = pieces().reduce((seed: number, piece) => crc32.buf(piece, seed), 0);
    expect(rolled).toBe(crc32Reference(Buffer.concat(pieces())));
    // Node's at work: the package's JavaScript reads bytes by index, which a DataView has not (it would answer 0)
    const view = new DataView(pieces()[1].buffer, pieces()[1].byteOffset, 1000);
    expect(crc32.buf(view as unknown as Uint8Array)).toBe(crc32Reference(pieces()[1].subarray(0, 1000)));
    // a plain array is not bytes Node checksums: the package's own code answers it
    expect(crc32.buf([1, 2, 3])).toBe(crc32Reference(Uint8Array.from([1, 2, 3])));
  });

  it("is the function the zip's deflate stream calls, and its digest is the content's", async () => {
    useNativeCrc32();
    const crc32 = zipCrc32Package();
    const installed = crc32.buf;
    let calls = 0;
    crc32.buf = (data, seed) => {
      calls++;
      return installed(data, seed);
    };
    try {
      const stream = zipDeflateStream();
      const ended = new Promise((resolve) => stream.on('end', resolve));
      stream.resume();
      for (const piece of pieces()) stream.write(piece);
      stream.end();
      await ended;
      expect(calls).toBeGreaterThan(0);
      expect(stream.digest().readInt32BE(0)).toBe(crc32Reference(Buffer.concat(pieces())));
    } finally {
      crc32.buf = installed;
    }
  });
});
