/**
 * How the snapshot's file follows the database (issue 33 item 4): not at all when it already is this checkpoint; else
 * by the spare (the snapshot before it) updated in the blocks whose bytes differ and swapped in, so a small change to
 * a 10M-sales file writes a few 256 KiB blocks, not gigabytes; else, when someone still reads the spare
 * (DuckDB's lock, or a Warehouse of this process) or anything is unusual, by a whole copy, as before.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { duckdb } from './duckdb.js';
import { type FileAccess, hasAccess, temporaryFor } from './file-modes.js';

/** DuckDB's main header and its two database headers: the file's first 12 KiB. */
const headersBytes = 3 * 4096;

/**
 * Whether `target` is already this checkpoint of `database` (issue 33: a command that changed nothing publishes
 * nothing; at 10M sales a copy is gigabytes). DuckDB bumps the iteration in its database headers at every checkpoint
 * that wrote anything and leaves the file untouched otherwise; the snapshot is a byte copy written after it. So the
 * same size and headers, a snapshot no older than the file and the access asked mean there is nothing new to copy.
 */
export function publishedAlready(database: string, target: string, access: FileAccess): boolean {
  const snapshot = lstatSync(target, { throwIfNoEntry: false });
  if (!snapshot?.isFile() || !hasAccess(snapshot, access)) return false;
  const source = statSync(database);
  if (source.size !== snapshot.size || source.size < headersBytes || source.mtimeMs > snapshot.mtimeMs) return false;
  return fileHeaders(database).equals(fileHeaders(target));
}

function fileHeaders(file: string): Buffer {
  const bytes = Buffer.alloc(headersBytes);
  const fd = openSync(file, 'r');
  try {
    readFully(fd, bytes, 0);
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/**
 * The files this process has open through a Warehouse. DuckDB's lock is the operating system's, which does not keep
 * a process from its own files: a page read of the snapshot in `pinrecon serve` still holds the file a later act's
 * publish would otherwise update as the spare (issue 33).
 */
const openFiles = new Map<string, number>();

/** Counts `file` open in this process; returns its id for letGo. */
export function holdOpen(file: string): string | undefined {
  const id = fileIdOf(file);
  if (id !== undefined) openFiles.set(id, (openFiles.get(id) ?? 0) + 1);
  return id;
}

export function letGo(id: string | undefined): void {
  if (id === undefined) return;
  const left = (openFiles.get(id) ?? 1) - 1;
  if (left > 0) openFiles.set(id, left);
  else openFiles.delete(id);
}

function fileIdOf(file: string): string | undefined {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : undefined;
}

/** Whether this process has `file` open through a Warehouse. */
export function openHere(file: string): boolean {
  const id = fileIdOf(file);
  return id !== undefined && openFiles.has(id);
}

/** The block size this reads; a file of another (DuckDB's `block_alloc_size`) is copied whole. */
const blockBytes = 256 * 1024;
/** Where each database header keeps block_alloc_size: after its checksum, iteration, meta block, free list, count. */
const blockSizeOffsets = [4096 + 40, 8192 + 40];

/** The spare beside the snapshot `pinrecon.snapshot.duckdb`: `pinrecon.snapshot-spare.duckdb`. */
export function sparePath(snapshot: string): string {
  return `${snapshot.replace(/\.snapshot\.duckdb$/, '')}.snapshot-spare.duckdb`;
}

export interface SpareUpdate {
  /** Blocks of the database. */
  blocks: number;
  /** Of them, those written into the spare (their bytes differed, or the spare was shorter). */
  written: number;
}

/**
 * Brings `spare` to a byte copy of `database` (checkpointed, no write-ahead log) by its changed blocks; undefined,
 * touching nothing, when the spare cannot be used: missing, not this account's plain file with `access`, open in
 * another process, or a layout this does not read.
 */
export async function updateSpare(
  database: string,
  spare: string,
  access: FileAccess,
): Promise<SpareUpdate | undefined> {
  const stat = lstatSync(spare, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.uid !== process.getuid?.() || !hasAccess(stat, access)) return undefined;
  if (!(await nobodyReads(spare))) return undefined;
  const source = openSync(database, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const size = fstatSync(source).size;
    if (!readsLayout(source, size)) return undefined;
    const target = openSync(spare, constants.O_RDWR | constants.O_NOFOLLOW);
    try {
      const spareSize = fstatSync(target).size;
      if (!readsLayout(target, spareSize)) return undefined;
      const blocks = (size - headersBytes) / blockBytes;
      const spareBlocks = (spareSize - headersBytes) / blockBytes;
      const block = Buffer.alloc(blockBytes);
      // Whole blocks compared, not their 8-byte checksums: at 10M a block differed in two 4 KiB pages under the same
      // checksum, and the snapshot was not the file. Reading both (0.75 s at 1.7 GB, cached) still writes little.
      const theirs = Buffer.alloc(blockBytes);
      let written = 0;
      for (let index = 0; index < blocks; index++) {
        const offset = headersBytes + index * blockBytes;
        readFully(source, block, offset);
        if (index < spareBlocks) {
          readFully(target, theirs, offset);
          if (block.equals(theirs)) continue;
        }
        writeFully(target, block, offset);
        written++;
      }
      // The headers last: they name the checkpoint the blocks above belong to.
      const headers = Buffer.alloc(headersBytes);
      readFully(source, headers, 0);
      writeFully(target, headers, 0);
      ftruncateSync(target, size);
      fsyncSync(target);
      return { blocks, written };
    } finally {
      closeSync(target);
    }
  } finally {
    closeSync(source);
  }
}

/**
 * Replaces the snapshot by `replace` (a rename of the spare, or a whole copy written through a temporary), the
 * replaced snapshot becoming the next spare: each step is a rename, so a reader opening the snapshot meanwhile gets
 * the old one or the new one, whole. The old one is kept only with the access asked for; otherwise it goes, and so
 * does any spare, so no copy with an older, wider access stays behind. A kill between the steps leaves the snapshot
 * whole and a `….tmp-<pid>` link beside the spare, removed at the next start as every temporary of a stopped run.
 */
export function rotateSnapshot(snapshot: string, spare: string, access: FileAccess, replace: () => void): void {
  const held = temporaryFor(spare);
  rmSync(held, { force: true });
  const current = lstatSync(snapshot, { throwIfNoEntry: false });
  let kept = false;
  if (current?.isFile() && hasAccess(current, access)) {
    try {
      linkSync(snapshot, held);
      kept = true;
    } catch {
      // A file system without hard links: the snapshot is replaced all the same, without a spare.
    }
  }
  replace();
  if (kept) renameSync(held, spare);
  else rmSync(spare, { force: true });
}

/** Whether DuckDB can open the file for writing: no other process has it open (DuckDB locks what it opens). */
async function nobodyReads(file: string): Promise<boolean> {
  try {
    const instance = await duckdb.DuckDBInstance.create(file, {
      access_mode: 'READ_WRITE',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    instance.closeSync();
    return true;
  } catch {
    return false;
  }
}

/** Headers then whole blocks of 256 KiB, both database headers saying so. */
function readsLayout(fd: number, size: number): boolean {
  if (size < headersBytes || (size - headersBytes) % blockBytes !== 0) return false;
  const value = Buffer.alloc(8);
  return blockSizeOffsets.every((offset) => {
    readFully(fd, value, offset);
    return value.readBigUInt64LE(0) === BigInt(blockBytes);
  });
}

function readFully(fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += read;
  }
}

function writeFully(fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done, position + done);
}
