/**
 * For the tests of keys at rest: every whole key of a set found in the files under a folder, read as
 * `grep -r` reads them, and also decompressed when gzip (the landing files), so compression hides nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Files under `root` holding any of `keys`, with the keys' last 4 characters (never a whole key in a message). */
export function wholeKeysUnder(root: string, keys: Set<string>): string[] {
  const lengths = [...new Set([...keys].map((key) => key.length))];
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (statSync(file).size === 0) continue;
    const raw = readFileSync(file);
    const texts = [raw.toString('latin1')];
    if (file.endsWith('.gz')) texts.push(gunzipSync(raw).toString('latin1'));
    for (const text of texts) {
      for (const token of text.matchAll(/[A-Za-z0-9-]{4,}/g)) {
        const word = token[0];
        for (const length of lengths) {
          for (let start = 0; start + length <= word.length; start++) {
            const candidate = word.slice(start, start + length);
            if (keys.has(candidate)) found.push(`${file} (…${candidate.slice(-4)})`);
          }
        }
      }
    }
  }
  return found;
}
