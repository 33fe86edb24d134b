/**
 * The streaming PIN masker, fed the same answer cut into chunks at every kind of boundary (inside a PIN, inside
 * an escape, between `"key"` and its colon): the result must not depend on where the chunks end, and must mean
 * exactly the received records with each key replaced by its kept form.
 */
import { describe, expect, test } from 'vitest';
import { keyHmac, KeyMasker, type KeyProtection } from '../../core/key-protection.js';
import { maskPin } from '../../core/masking.js';

const secret = Buffer.from('test-secret-of-the-hmac');
const hash: KeyProtection = { mode: 'hash', secret };

/** Records with the strings a scanner can trip on: escaped quotes and backslashes, "key" as a value, nesting. */
const records = [
  { transactionId: 1, key: 'ABCD-EFGH-1234', productName: 'Gift "key" card', status: 'Redeemed by Client' },
  { transactionId: 2, productName: 'ends with a backslash \\', key: 'Q\\"W\\\\E-9876', note: 'key' },
  {
    transactionId: 3,
    key: null,
    productName: 'no key here',
    extra: { key: 'NESTED-KEY-5555', list: ['"key"', 'k\\'] },
  },
  { transactionId: 4, 'key ': 'not the key member', key: '  SPACED-KEY-4321  ', unicode: 'ação ✓ \u0001' },
  { transactionId: 5, key: 'abc', keyish: 'xyz', k: 'key' },
  // Its masked form keeps a quote and a backslash: written again as JSON when protected a second time.
  { transactionId: 6, key: 'WXYZ-a"\\b' },
];

/** The same text a few ways: compact, pretty-printed (whitespace around colons), and with a space before a colon. */
const texts = [
  JSON.stringify(records),
  JSON.stringify(records, null, 2),
  JSON.stringify(records).replace(/"key":/g, '"key" :\n '),
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

/** What a record means after masking: each `key` string member masked, with its HMAC beside it. */
function expectedMeaning(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expectedMeaning);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    if (name === 'key' && typeof member === 'string') {
      out.key = maskPin(member.trim());
      out.keyHmac = keyHmac(secret, member);
    } else out[name] = expectedMeaning(member);
  }
  return out;
}

describe('KeyMasker', () => {
  for (const [t, text] of texts.entries()) {
    test(`text ${t}: every chunking gives the same bytes, which mean the records with their keys masked`, () => {
      const bytes = Buffer.from(text, 'utf8');
      const outputs = chunkings.map((sizes) => {
        const masker = new KeyMasker(hash);
        return Buffer.concat(chunked(bytes, sizes).map((chunk) => masker.push(chunk))).toString('utf8');
      });
      for (const output of outputs) expect(output).toBe(outputs[0]);
      expect(JSON.parse(outputs[0]!)).toEqual(expectedMeaning(records));
      for (const pin of ['ABCD-EFGH-1234', 'NESTED-KEY-5555', 'SPACED-KEY-4321']) expect(outputs[0]).not.toContain(pin);
    });
  }

  test(
    'a key already masked is left as it is (protecting twice changes nothing), ' +
      'and store mode passes bytes through',
    () => {
      const once = new KeyMasker({ mode: 'drop' }).push(Buffer.from(texts[0]!)).toString('utf8');
      const again = new KeyMasker({ mode: 'drop' });
      expect(again.push(Buffer.from(once)).toString('utf8')).toBe(once);
      expect(again.masked).toBe(0);
      const bytes = Buffer.from(texts[1]!);
      expect(new KeyMasker({ mode: 'store' }).push(bytes)).toBe(bytes);
    },
  );
});

/**
 * Issue 34: a hostile provider spells the member `key` escaped or in another case, or sends the PIN as a number, an
 * array or an object. Every JSON reader (DuckDB's included) decodes the name, so each must be masked or dropped.
 */
describe('KeyMasker against a hostile provider', () => {
  const pins = ['ESCAPED-PIN-0001', 'UPPER-PIN-0002', 'MIXED-PIN-0003', 'ARRAY-PIN-0004', 'OBJECT-PIN-0005'];
  const text = `[
    {"transactionId": 1, "k\\u0065y": "ESCAPED-PIN-0001", "status": "ok"},
    {"transactionId": 2, "KEY" : "UPPER-PIN-0002"},
    {"transactionId": 3, "\\u006B\\u0045\\u0059": "MIXED-PIN-0003", "k\\u0065ys": "not the key"},
    {"transactionId": 4, "key": 123456789012345678, "next": "kept"},
    {"transactionId": 5, "Key": ["ARRAY-PIN-0004", {"key": "x]\\\\"}], "next": "kept"},
    {"transactionId": 6, "key": {"pin": "OBJECT-PIN-0005", "n": [1, [2]]}, "next": "kept"},
    {"transactionId": 7, "key": true, "note": "k\\u0065y"},
    {"transactionId": 8, "key": -42.5e3},
    {"transactionId": 9, "key": null}
  ]`;

  test('escaped names, any case, and non-string values: masked or dropped, whatever the chunking', () => {
    const bytes = Buffer.from(text, 'utf8');
    const outputs = chunkings.map((sizes) => {
      const masker = new KeyMasker(hash);
      const output = Buffer.concat(chunked(bytes, sizes).map((chunk) => masker.push(chunk))).toString('utf8');
      expect(masker.notStrings).toBe(5);
      return output;
    });
    for (const output of outputs) expect(output).toBe(outputs[0]);
    for (const pin of [...pins, '123456789012345678']) expect(outputs[0]).not.toContain(pin);
    const records = JSON.parse(outputs[0]!) as Record<string, unknown>[];
    const keyOf = (r: Record<string, unknown>) => Object.entries(r).find(([name]) => name.toLowerCase() === 'key')?.[1];
    expect(records.map(keyOf)).toEqual([
      maskPin('ESCAPED-PIN-0001'),
      maskPin('UPPER-PIN-0002'),
      maskPin('MIXED-PIN-0003'),
      maskPin('123456789012345678'),
      null,
      null,
      null,
      maskPin('-42.5e3'),
      null,
    ]);
    expect(records[0]!.keyHmac).toBe(keyHmac(secret, 'ESCAPED-PIN-0001'));
    expect(records[3]!.keyHmac).toBe(keyHmac(secret, '123456789012345678'));
    expect(records[2]!.keys).toBe('not the key');
    for (const i of [3, 4, 5]) expect(records[i]!.next).toBe('kept');
    expect(records[6]!.note).toBe('key');
  });
});

test(
  'keyHmac is HMAC-SHA256 of the trimmed key (RFC 4231 vectors: ' +
    'a short, a long and a block-size-exceeding secret)',
  () => {
    const vectors: [Buffer, string, string][] = [
      [Buffer.alloc(20, 0x0b), 'Hi There', 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
      [
        Buffer.from('Jefe'),
        'what do ya want for nothing?',
        '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      ],
      [
        Buffer.alloc(131, 0xaa),
        'Test Using Larger Than Block-Size Key - Hash Key First',
        '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      ],
    ];
    for (const [key, data, expected] of vectors) {
      expect(keyHmac(key, data)).toBe(expected);
      expect(keyHmac(key, `  ${data}\t`)).toBe(expected);
    }
  },
);
