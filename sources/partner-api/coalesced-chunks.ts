/**
 * A response body in pieces of at least `bytes` (the last may be shorter), for the stages after it. A socket hands
 * a body over in pieces of ~13 KB (the 1M window: 28,000 of them), and each stage pays per piece: a message to the
 * masking thread and back, a job for the gzip's thread. 64 KiB, not more: two 10M windows extracted took 3,186 MiB
 * in 256 KiB pieces against 2,179 MiB in 64 KiB pieces (2,151 in the socket's), and 277/292 s against 320 s. Not
 * proven why: a likely cause is glibc, which serves blocks over 128 KiB apart and may keep them.
 */
import { Transform, type TransformCallback } from 'node:stream';

export const coalescedChunkBytes = 64 * 1024;

export function coalescedChunks(bytes = coalescedChunkBytes): Transform {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const release = (stream: Transform) => {
    stream.push(held.length === 1 ? held[0] : Buffer.concat(held, heldBytes));
    held = [];
    heldBytes = 0;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes >= bytes) release(this);
      done();
    },
    flush(done: TransformCallback) {
      if (heldBytes > 0) release(this);
      done();
    },
  });
}
