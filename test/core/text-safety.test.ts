/**
 * Issue 34 item 8: a direction override (U+202E) or another direction control never reaches the console raw —
 * shown as its code point in text, escaped in JSON (which still reads back to the same value) — and the invisible
 * characters of a reference are named.
 */
import { expect, test } from 'vitest';
import { escapeHtml, invisibleIn, printable, printableJson } from '../../core/text-safety.js';

const bidi = ['\u202e', '\u202a', '\u202d', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c'];

test('direction controls are shown as their code point, never printed raw', () => {
  expect(printable('invoice \u202etxt.exe')).toBe('invoice <U+202E>txt.exe');
  for (const c of bidi) expect(printable(`a${c}b`)).not.toContain(c);
  const json = printableJson({ reference: 'PO-\u202e1', list: bidi.join('') });
  for (const c of bidi) expect(json).not.toContain(c);
  expect(JSON.parse(json)).toEqual({ reference: 'PO-\u202e1', list: bidi.join('') });
});

test('invisible characters are found and named; visible text, accents and the plain space are not', () => {
  expect(invisibleIn('PO-\u200b1')).toEqual({ at: 4, what: 'U+200B ZERO WIDTH SPACE' });
  expect(invisibleIn('\u00a0PO')).toEqual({ at: 1, what: 'U+00A0 NO-BREAK SPACE' });
  expect(invisibleIn('P\u2029')).toEqual({ at: 2, what: 'U+2029 PARAGRAPH SEPARATOR' });
  expect(invisibleIn('x\u2003')?.what).toBe('U+2003');
  for (const visible of ['PO 123', 'São Paulo Nº 3', 'Ü-ß', '日本-1', '=1+2'])
    expect(invisibleIn(visible)).toBeUndefined();
});

test("HTML's five special characters are escaped, & first so an entity is not escaped twice", () => {
  expect(escapeHtml(`<b title="x">Tom's & Jerry's</b>`)).toBe(
    '&lt;b title=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&#39;s&lt;/b&gt;',
  );
  expect(escapeHtml('&amp;')).toBe('&amp;amp;');
});
