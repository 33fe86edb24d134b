/**
 * Rewriting one gzip file (a landed response) with its whole keys protected. Shared by `keys protect` and
 * `extract --from-landing`, so it lives below both.
 */
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { KeyMasker, keyMaskingStream, type KeyProtection } from './key-protection.js';

/** Rewrites one landed gzip file with its keys protected, if it holds any whole key; returns the keys masked. */
export async function protectLandingFile(file: string, protection: KeyProtection, write = true): Promise<number> {
  const masker = new KeyMasker(protection);
  const temporary = `${file}.protect-${process.pid}`;
  try {
    const sink = write ? createWriteStream(temporary) : nullSink();
    await pipeline(createReadStream(file), createGunzip(), keyMaskingStream(protection, masker), createGzip(), sink);
    if (write && masker.masked > 0) renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
  return masker.masked;
}

/** Where a dry run's rewritten bytes go: nowhere. */
function nullSink(): Writable {
  return new Writable({ write: (_chunk, _encoding, callback) => callback() });
}
