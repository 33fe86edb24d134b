/**
 * The lone-surrogate guard (issue 34) fed one text cut at every boundary: a lone high or low surrogate escape gets
 * its backslash doubled (text), a valid pair, an escaped backslash before `u` and other escapes pass unchanged.
 */
import { expect, test } from 'vitest';
import { guardLoneSurrogates, LoneSurrogateGuard } from '../../../sources/partner-api/lone-surrogates.js';

const input = String.raw`["ok", "lone \ud800 high", "lone \uDC01 low", "pair \ud83d\ude00", "\\ud800 text",
  "high then other \ud800\u0041", "end \udbff", "slash \/ \n \"", "high at end \ud800"]`;

test('lone surrogates become text whatever the chunking; everything else passes as it is', () => {
  const expected = String.raw`["ok", "lone \\ud800 high", "lone \\uDC01 low", "pair \ud83d\ude00", "\\ud800 text",
  "high then other \\ud800\u0041", "end \\udbff", "slash \/ \n \"", "high at end \\ud800"]`;
  const bytes = Buffer.from(input);
  for (const size of [1, 2, 3, 5, 7, 11, 13, 1000]) {
    const guard = new LoneSurrogateGuard();
    const out: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) out.push(guard.push(bytes.subarray(at, at + size)));
    out.push(guard.push(Buffer.alloc(0), true));
    expect(Buffer.concat(out).toString()).toBe(expected);
    expect(guard.guarded).toBe(5);
  }
  // The result is JSON every reader takes, the lone surrogates kept as their six characters.
  expect((JSON.parse(guardLoneSurrogates(input)) as string[])[1]).toBe(String.raw`lone \ud800 high`);
  expect(guardLoneSurrogates('["no escapes"]')).toBe('["no escapes"]');
});
