/**
 * The streaming check that an answer is one complete JSON array, fed answers cut into chunks at every kind of
 * boundary: its count must not depend on where the chunks end, and a body cut short must fail it.
 */
import { describe, expect, test } from 'vitest';
import { JsonArrayCheck } from '../../../sources/partner-api/json-array-check.js';

const records = [
  { transactionId: 1, key: 'ABCD-EFGH-1234', productName: 'Gift "key" card', status: 'Redeemed by Client' },
  { transactionId: 2, productName: 'ends with a backslash \\', key: 'Q\\"W\\\\E-9876', note: 'key' },
  {
    transactionId: 3,
    key: null,
    productName: 'no key here',
    extra: { key: 'NESTED-KEY-5555', list: ['"key"', 'k\\'] },
  },
];

/** Cuts a text's bytes at the given lengths (cycled), as a network would deliver it. */
function chunked(bytes: Buffer, sizes: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0, n = 0; at < bytes.length; n++) {
    const size = sizes[n % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const chunkings = [[1], [2], [3], [7], [13, 1, 5], [64], [1_000_000]];

describe('JsonArrayCheck', () => {
  async function check(bytes: Buffer, sizes: number[]): Promise<{ elements: number } | Error> {
    const checker = new JsonArrayCheck();
    const done = new Promise<{ elements: number } | Error>((resolve) => {
      checker.on('error', resolve);
      checker.on('finish', () => resolve({ elements: checker.elements }));
    });
    checker.resume();
    for (const chunk of chunked(bytes, sizes)) checker.write(chunk);
    checker.end();
    return done;
  }

  test(
    'counts the elements of a complete array whatever the ' + 'chunking, escapes and brackets inside strings included',
    async () => {
      const tricky = [...records, { text: '] } [ { ,', quote: '\\"', slash: '\\' }];
      for (const text of [JSON.stringify(tricky), JSON.stringify(tricky, null, 1)]) {
        for (const sizes of chunkings)
          expect(await check(Buffer.from(text), sizes)).toEqual({ elements: tricky.length });
      }
    },
  );

  test('a body cut short, inside a string or after an escape, is not a complete array', async () => {
    const text = JSON.stringify(records);
    for (const cut of [text.indexOf('Gift') + 3, text.indexOf('\\\\') + 1, text.length - 1]) {
      for (const sizes of [[1], [5], [1_000_000]]) {
        const result = await check(Buffer.from(text.slice(0, cut)), sizes);
        expect(result).toBeInstanceOf(Error);
        expect((result as Error).message).toMatch(/before its JSON array was complete/);
      }
    }
  });

  test('says where a body stops being one array: not an array, a mismatched bracket, data after the end', async () => {
    const cases = [
      { text: '  {"a": 1}', reason: 'the body is not a JSON array (byte 2 is "{")' },
      { text: '[{"a": "]"}, [1, 2}]', reason: 'mismatched } at byte 18' },
      { text: '[1, "x"] \n [2]', reason: 'unexpected data after the closing ] at byte 11' },
      { text: '[{"k": "\\\\"}]]', reason: 'unexpected data after the closing ] at byte 13' },
    ];
    for (const { text, reason } of cases) {
      for (const sizes of chunkings) {
        const result = await check(Buffer.from(text), sizes);
        expect(result, `${text} in pieces of ${sizes}`).toBeInstanceOf(Error);
        expect((result as Error).message).toBe(reason);
      }
    }
  });

  test('an empty array has no elements; whitespace around the array is allowed', async () => {
    for (const sizes of chunkings) {
      expect(await check(Buffer.from(' \r\n[ ]\t\n'), sizes)).toEqual({ elements: 0 });
      expect(await check(Buffer.from('[[], {}, "", 0]'), sizes)).toEqual({ elements: 4 });
    }
  });
});
