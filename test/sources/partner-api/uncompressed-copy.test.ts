/**
 * The download's uncompressed copy (sources/partner-api/uncompressed-copy.ts): every byte passes on unchanged
 * whatever happens to the copy; the copy is the whole body or nothing at all.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { UncompressedCopy, uncompressedCopyPath } from '../../../sources/partner-api/uncompressed-copy.js';

/** `bytes` in 64 KiB pieces, each piece a different fill so order shows. */
function pieces(bytes: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, n = 0; at < bytes; at += 65_536, n++) out.push(Buffer.alloc(Math.min(65_536, bytes - at), n % 251));
  return out;
}

/** Runs `chunks` through `copy` into memory; returns what came out. */
async function through(chunks: Buffer[], copy: UncompressedCopy): Promise<Buffer> {
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk);
      done();
    },
  });
  await pipeline(Readable.from(chunks), copy, sink);
  return Buffer.concat(received);
}

describe('UncompressedCopy', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-copy-'));

  it('is named after the gzip file, as a temporary of this process', () => {
    expect(uncompressedCopyPath('/landing/sales/2026-10/paid_x.json.gz')).toBe(
      `/landing/sales/2026-10/paid_x.json.tmp-${process.pid}`,
    );
  });

  it('copies a body of many pieces whole and in order, waiting for the file when it is behind', async () => {
    const chunks = pieces(20 * 2 ** 20 + 123);
    const copy = new UncompressedCopy(path.join(dir, 'whole.json'));
    const out = await through(chunks, copy);
    const body = Buffer.concat(chunks);
    expect(out.equals(body)).toBe(true);
    expect(copy.whole).toBe(true);
    expect(readFileSync(copy.path).equals(body)).toBe(true);
  });

  it('keeps a body of exactly its bound', async () => {
    const chunks = pieces(200_000);
    const copy = new UncompressedCopy(path.join(dir, 'bound.json'), 200_000);
    await through(chunks, copy);
    expect(copy.whole).toBe(true);
    expect(readFileSync(copy.path)).toHaveLength(200_000);
  });

  it('gives the copy up past its bound, removing it, and still passes every byte on', async () => {
    const chunks = pieces(200_001);
    const copy = new UncompressedCopy(path.join(dir, 'over.json'), 200_000);
    const out = await through(chunks, copy);
    expect(out.equals(Buffer.concat(chunks))).toBe(true);
    expect(copy.whole).toBe(false);
    expect(existsSync(copy.path)).toBe(false);
  });

  it('passes the body on without a copy when the copy cannot even be created', async () => {
    const chunks = pieces(100_000);
    const copy = new UncompressedCopy(path.join(dir, 'no-such-folder', 'copy.json'));
    const out = await through(chunks, copy);
    expect(out.equals(Buffer.concat(chunks))).toBe(true);
    expect(copy.whole).toBe(false);
  });

  it('leaves nothing when the body fails', async () => {
    const copy = new UncompressedCopy(path.join(dir, 'failed.json'));
    async function* failing() {
      yield Buffer.from('[{"transactionId":1}');
      throw new Error('connection reset');
    }
    await expect(
      pipeline(Readable.from(failing()), copy, new Writable({ write: (_c, _e, done) => done() })),
    ).rejects.toThrow('connection reset');
    expect(copy.whole).toBe(false);
    expect(existsSync(copy.path)).toBe(false);
  });
});
