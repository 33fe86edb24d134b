/**
 * What the CSV bulk reader learns of a file's bytes while the import hashes it (CsvByteScan): the same facts
 * whatever the chunk boundaries, so a CR, a line or a sampled line split between two chunks is seen whole.
 * The bulk reader as a whole is held to the streaming reader by test/pipelines/ledger/import-bulk.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CsvByteScan, holdsC1Byte, type ByteFacts } from '../../../sources/ledger/csv-byte-scan.js';

function scan(bytes: Buffer, chunkSize = bytes.length, singleByte = true): ByteFacts {
  const scanner = new CsvByteScan(singleByte);
  for (let i = 0; i < bytes.length; i += chunkSize) scanner.push(bytes.subarray(i, i + chunkSize));
  return scanner.end();
}

const text = (facts: ByteFacts) => ({
  ...facts,
  samples: [...facts.samples].map(([line, bytes]) => [line, bytes.toString('latin1')]),
});

describe('CsvByteScan', () => {
  const lines = Array.from({ length: 9000 }, (_, i) => `R-${i};${'x'.repeat(i % 50)}`);
  const crlf = Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');

  it('counts lines, finds the longest, and samples lines 2, 4096 and 8192 without their line break', () => {
    const facts = scan(crlf);
    expect(facts).toMatchObject({
      size: crlf.length,
      lines: 9000,
      loneCarriageReturn: false,
      controlBytes: false,
      utf8Bom: false,
      windows1252Bytes: false,
    });
    expect(facts.longestLineBytes).toBe(Math.max(...lines.map((l) => l.length + 1)));
    expect(text(facts).samples).toEqual([
      [2, lines[1]],
      [4096, lines[4095]],
      [8192, lines[8191]],
    ]);
  });

  it('gives the same facts whatever the chunk boundaries', () => {
    const whole = text(scan(crlf));
    for (const size of [1, 2, 7, 64, 4099]) expect(text(scan(crlf, size))).toEqual(whole);
  });

  it('keeps nothing of a chunk after push: the same facts when each chunk is read into one reused buffer', () => {
    const whole = text(scan(crlf));
    for (const size of [7, 4099]) {
      const scanner = new CsvByteScan(true);
      const reused = Buffer.alloc(size);
      for (let i = 0; i < crlf.length; i += size) {
        const length = crlf.copy(reused, 0, i, i + size);
        scanner.push(reused.subarray(0, length));
        reused.fill(0x3f);
      }
      expect(text(scanner.end())).toEqual(whole);
    }
  });

  it('counts a last line without a line break, and samples it', () => {
    const facts = scan(Buffer.from('header\nlast line'), 3);
    expect(facts.lines).toBe(2);
    expect(text(facts).samples).toEqual([[2, 'last line']]);
  });

  it('sees a lone CR, also at a chunk boundary or at the very end, and not the CR of a CRLF', () => {
    expect(scan(Buffer.from('a\r\nb\r\n'), 2).loneCarriageReturn).toBe(false);
    expect(scan(Buffer.from('a\rb\n'), 2).loneCarriageReturn).toBe(true);
    expect(scan(Buffer.from('ab\rcd\n'), 3).loneCarriageReturn).toBe(true);
    expect(scan(Buffer.from('a\nb\r')).loneCarriageReturn).toBe(true);
  });

  it(
    'sees NUL and \\x01 bytes, a UTF-8 BOM, and bytes 0x80-0x9F ' +
      'only when the file is read as one byte per character',
    () => {
      expect(scan(Buffer.from('a\u0000b\n')).controlBytes).toBe(true);
      expect(scan(Buffer.from('a\u0001b\n')).controlBytes).toBe(true);
      expect(scan(Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0a])).utf8Bom).toBe(true);
      const euro = Buffer.from([0x61, 0x80, 0x0a]);
      expect(scan(euro).windows1252Bytes).toBe(true);
      expect(scan(euro, euro.length, false).windows1252Bytes).toBe(false);
      expect(scan(Buffer.from('São\n', 'latin1')).windows1252Bytes).toBe(false);
    },
  );

  it('finds a byte 0x80-0x9F at any position and alignment, and no other byte value', () => {
    const backing = Buffer.alloc(64, 0x61);
    for (let byte = 0; byte < 256; byte++) {
      for (const start of [0, 1, 2, 3]) {
        for (const length of [0, 1, 5, 13, 23]) {
          for (let at = 0; at < length; at++) {
            backing.fill(0x61);
            const chunk = backing.subarray(start, start + length);
            chunk[at] = byte;
            expect(holdsC1Byte(chunk), `byte 0x${byte.toString(16)} at ${at} of ${length}, start ${start}`).toBe(
              byte >= 0x80 && byte <= 0x9f,
            );
          }
        }
      }
    }
  });
});
