/**
 * The seal's statement (issue 28) and the audit pack's CSV: the statement's bytes are one canonical JSON in a fixed
 * key order (what the signature and the email's sha256 cover), read back or refused; the pack's CSV keeps a NULL
 * and an empty text apart and survives quotes, commas and line breaks, as verify.mjs reads it.
 */
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { auditVerifierPath } from '../../../pipelines/close/audit-pack.js';
import { parseSeal, sealSha256, sealText, sealVersion } from '../../../pipelines/close/seal.js';

const seal = {
  version: sealVersion,
  period: '2024-03',
  signoff_id: 's1',
  signed_by: 'Bruno Costa',
  signed_at: '2024-04-10T12:00:00.123000Z',
  content_sha256: 'a'.repeat(64),
  decision_chain_head: { position: 3, sha256: 'b'.repeat(64) },
  action_event_chain_head: { position: 0, sha256: null },
  manifest_sha256: 'c'.repeat(64),
};

test('the seal is one canonical JSON in a fixed key order, read back, and its sha256 is over those bytes', () => {
  const text = sealText(seal);
  expect(text).toBe(
    `{"version":"pinrecon.seal.v1","period":"2024-03","signoff_id":"s1","signed_by":"Bruno Costa",` +
      `"signed_at":"2024-04-10T12:00:00.123000Z","content_sha256":"${'a'.repeat(64)}",` +
      `"decision_chain_head":{"position":3,"sha256":"${'b'.repeat(64)}"},` +
      `"action_event_chain_head":{"position":0,"sha256":null},"manifest_sha256":"${'c'.repeat(64)}"}`,
  );
  // The same statement written with its keys in another order is the same seal once made canonical.
  const shuffled = JSON.stringify({ ...seal, period: seal.period, version: seal.version });
  expect(sealText(parseSeal(shuffled))).toBe(text);
  expect(sealSha256(text)).toMatch(/^[0-9a-f]{64}$/);
  expect(() => parseSeal('{"version":"pinrecon.seal.v0"}')).toThrow(/not a pinrecon\.seal\.v1 statement/);
  expect(() => parseSeal(JSON.stringify({ ...seal, decision_chain_head: undefined }))).toThrow(/chain heads/);
  expect(() => parseSeal('not json')).toThrow(/not JSON/);
});

test("the pack's CSV keeps NULL and an empty text apart through quotes, commas and line breaks", async () => {
  const pack = (await import(pathToFileURL(auditVerifierPath()).href)) as {
    csvText(header: string[], rows: (string | null)[][]): string;
    parseCsv(text: string, member: string): (string | null)[][];
    sealCanonical(value: unknown): string;
  };
  const rows = [
    ['a', null, ''],
    ['say "hi", then\nleave', '=HYPERLINK("x")', ' spaced '],
  ];
  const text = pack.csvText(['x', 'y', 'z'], rows);
  expect(text.split('\n')[1]).toBe('a,,""');
  expect(pack.parseCsv(text, 'test.csv')).toEqual([['x', 'y', 'z'], ...rows]);
  expect(() => pack.parseCsv('a,b', 'test.csv')).toThrow(/test\.csv .*complete line/);
  expect(() => pack.parseCsv('a,b"c"\n', 'test.csv')).toThrow(/a quote inside a field/);
  // verify.mjs's canonical seal is pinrecon's.
  expect(pack.sealCanonical(seal)).toBe(sealText(seal));
});
