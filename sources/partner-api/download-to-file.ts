/**
 * A 2xx body streamed to a file as it arrives: decoded when it came gzip-encoded (content-encoding.ts), checked
 * to be one whole JSON array, its lone surrogates made text,
 * optionally rewritten (the PINs masked), gzip-compressed, written under a temporary name and renamed once
 * complete; optionally also written uncompressed for the load (uncompressed-copy.ts). A body cut short is an
 * AttemptFailure (retried); a local file-system failure is not.
 */
import { createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import { createExclusive, temporaryFor } from '../../core/file-modes.js';
import { AttemptFailure, isFileSystemError } from './attempt-failure.js';
import { coalescedChunks } from './coalesced-chunks.js';
import { contentDecoding } from './content-encoding.js';
import { JsonArrayCheck } from './json-array-check.js';
import { loneSurrogateStream } from './lone-surrogates.js';
import { UncompressedCopy, uncompressedCopyPath } from './uncompressed-copy.js';

/** Where a 2xx body is streamed, and an optional stage that rewrites it on the way (a fresh one per attempt). */
export interface DownloadTarget {
  filePath: string;
  rewrite?: () => Transform;
  /** Also write the body, as rewritten, uncompressed to a temporary beside the file (for the load to read). */
  uncompressedCopy?: boolean;
}

export interface DownloadResult {
  /** Bytes of the body (decoded, when it came gzip-encoded). */
  bytes: number;
  /** Bytes of the gzip file. */
  fileBytes: number;
  /** Elements of the JSON array. */
  records: number;
  fetchedAt: Date;
  /** The uncompressed copy, when one was asked and holds the whole body; the caller removes it. */
  uncompressedCopy?: string;
}

export async function downloadToFile(
  response: IncomingMessage,
  target: DownloadTarget,
  fetchedAt: Date,
): Promise<DownloadResult> {
  const filePath = target.filePath;
  // Before any file is made: an answer in an encoding not asked for is refused (http.ts lets its connection go).
  const decode = contentDecoding(response);
  if (!decode) {
    const encoding = String(response.headers['content-encoding']);
    throw new AttemptFailure('dropped', `the answer is encoded "${encoding}", which was not asked for (only gzip is)`);
  }
  mkdirSync(path.dirname(filePath), { recursive: true, mode: 0o700 });
  // This process's temporary (`<file>.tmp-<pid>`): one a killed run leaves is removed by the next download beside it.
  const temporary = temporaryFor(filePath);
  const check = new JsonArrayCheck();
  // Created exclusively and private (O_EXCL, O_NOFOLLOW, 0600): a link planted at the name is never followed.
  const file = createWriteStream(temporary, { fd: createExclusive(temporary) });
  let copy: UncompressedCopy | undefined;
  try {
    // The rewrite (security.keys: masking the PINs) runs before the gzip: its input never reaches the disk.
    // Level 1: a month-end lands ~1.5 GB of JSON; the default level 6 costs 50 % more CPU for ~15 % smaller files.
    const gzip = () => createGzip({ level: constants.Z_BEST_SPEED });
    // Lone surrogate escapes made text first: DuckDB would refuse the whole file for one record (issue 34).
    const guard = loneSurrogateStream();
    // Bigger pieces than the socket's: every stage after it costs per piece.
    const body = coalescedChunks();
    // And the gzip's output, ~11 KiB a piece at level 1, written in pieces as large: one file write each.
    const compressed = coalescedChunks();
    const stages: Transform[] = [...decode, body, check, guard, ...(target.rewrite ? [target.rewrite()] : [])];
    if (target.uncompressedCopy) stages.push((copy = new UncompressedCopy(uncompressedCopyPath(filePath))));
    await pipeline([response, ...stages, gzip(), compressed, file]);
    renameSync(temporary, filePath);
  } catch (error) {
    if (copy) rmSync(copy.path, { force: true });
    // The file may still be opening when the body fails: remove it only once it is closed.
    if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
    rmSync(temporary, { force: true });
    // A body cut short (or never a JSON array) is retried; a local file-system failure is not.
    if (error instanceof AttemptFailure || isFileSystemError(error)) throw error;
    throw new AttemptFailure(
      'dropped',
      `download incomplete: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    bytes: check.bytes,
    fileBytes: statSync(filePath).size,
    records: check.elements,
    fetchedAt,
    ...(copy?.whole && { uncompressedCopy: copy.path }),
  };
}
