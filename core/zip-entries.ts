/**
 * Reading the parts of a ZIP archive (an .xlsx) one at a time, in any order, without loading the archive:
 * the central directory at the end of the file says where each entry is; an entry is streamed through
 * node:zlib's raw inflate. Streaming readers that walk the archive front to back depend on the order
 * writers store the parts in (exceljs's loses parts stored after the worksheets), so this reads by name.
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';

/** An entry of a ZIP archive as its central directory describes it (sizes as declared: a hostile file may lie). */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the entry's compressed bytes start (after its local header). */
  dataOffset: number;
}

/** The archive's entries by name; throws an Error saying what is wrong when it is not a readable ZIP. */
export function zipEntries(file: string): Map<string, ZipEntry> {
  const size = statSync(file).size;
  const descriptor = openSync(file, 'r');
  const read = (position: number, length: number): Buffer => {
    if (position < 0 || length < 0 || position + length > size) throw new Error('the ZIP archive is truncated');
    const buffer = Buffer.alloc(length);
    readSync(descriptor, buffer, 0, length, position);
    return buffer;
  };
  try {
    const directory = centralDirectory(read, size);
    const entries = new Map<string, ZipEntry>();
    let at = 0;
    while (at + 46 <= directory.length && directory.readUInt32LE(at) === 0x02014b50) {
      const nameLength = directory.readUInt16LE(at + 28);
      const extraLength = directory.readUInt16LE(at + 30);
      const commentLength = directory.readUInt16LE(at + 32);
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
      // ZIP64: sizes and offset that do not fit in 32 bits are in the extra field 0x0001, in this order.
      const zip64 = extraField(directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), 0x0001);
      let next = 0;
      const take = (): number => {
        if (!zip64 || next + 8 > zip64.length) throw new Error('a damaged ZIP64 archive');
        next += 8;
        return Number(zip64.readBigUInt64LE(next - 8));
      };
      let compressedSize = directory.readUInt32LE(at + 20);
      let uncompressedSize = directory.readUInt32LE(at + 24);
      let localOffset = directory.readUInt32LE(at + 42);
      if (uncompressedSize === 0xffffffff) uncompressedSize = take();
      if (compressedSize === 0xffffffff) compressedSize = take();
      if (localOffset === 0xffffffff) localOffset = take();
      const local = read(localOffset, 30);
      if (local.readUInt32LE(0) !== 0x04034b50) throw new Error(`the ZIP entry ${name} is damaged`);
      const dataOffset = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      entries.set(name.replace(/^\//, ''), {
        name,
        method: directory.readUInt16LE(at + 10),
        compressedSize,
        uncompressedSize,
        dataOffset,
      });
      at += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    closeSync(descriptor);
  }
}

/** The entry's uncompressed bytes as a stream. */
export function openZipEntry(file: string, entry: ZipEntry): Readable {
  if (entry.method !== 0 && entry.method !== 8)
    throw new Error(`${entry.name} is compressed with ZIP method ${entry.method}, which spreadsheets do not write`);
  const raw = createReadStream(file, {
    start: entry.dataOffset,
    end: entry.dataOffset + Math.max(0, entry.compressedSize - 1),
    highWaterMark: 1024 * 1024,
  });
  if (entry.compressedSize === 0) raw.destroy();
  return entry.method === 0 ? raw : raw.pipe(createInflateRaw());
}

/** The entry's whole text (for the small parts: workbook.xml, relationships, shared strings). */
export async function readZipText(file: string, entry: ZipEntry): Promise<string> {
  if (entry.compressedSize === 0) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of openZipEntry(file, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The central directory's bytes, found from the end-of-central-directory record (ZIP64 too). */
function centralDirectory(read: (position: number, length: number) => Buffer, size: number): Buffer {
  // The end record is 22 bytes plus a comment of up to 64 KiB, at the very end of the file.
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = read(size - tailLength, tailLength);
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('no ZIP central directory (the file is not a ZIP archive, or is truncated)');
  let directorySize = tail.readUInt32LE(end + 12);
  let directoryOffset = tail.readUInt32LE(end + 16);
  if (directoryOffset === 0xffffffff || directorySize === 0xffffffff) {
    const locator = end - 20;
    if (locator < 0 || tail.readUInt32LE(locator) !== 0x07064b50) throw new Error('a damaged ZIP64 archive');
    const record = read(Number(tail.readBigUInt64LE(locator + 8)), 56);
    if (record.readUInt32LE(0) !== 0x06064b50) throw new Error('a damaged ZIP64 archive');
    directorySize = Number(record.readBigUInt64LE(40));
    directoryOffset = Number(record.readBigUInt64LE(48));
  }
  return read(directoryOffset, directorySize);
}

function extraField(extra: Buffer, id: number): Buffer | undefined {
  for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
    if (extra.readUInt16LE(at) === id) return extra.subarray(at + 4, at + 4 + extra.readUInt16LE(at + 2));
  }
  return undefined;
}
