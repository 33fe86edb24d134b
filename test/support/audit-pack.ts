/**
 * For the tests of `pinrecon audit-pack`: the pack unzipped into a folder as an auditor would, and its own
 * verify.mjs run there by node, with nothing of pinrecon's beside it and only PATH from this environment.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';

/** Writes every file of the ZIP `zipFile` into `dir` (made if absent). */
export async function unzipInto(dir: string, zipFile: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const zip = await JSZip.loadAsync(readFileSync(zipFile));
  for (const [name, entry] of Object.entries(zip.files))
    writeFileSync(path.join(dir, name), await entry.async('nodebuffer'));
}

/** `node verify.mjs` in an unzipped pack: its exit status and console. */
export const runVerifyMjs = (dir: string) =>
  spawnSync(process.execPath, ['verify.mjs'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH } });
