/**
 * What an XLSX workbook says about itself in `xl/workbook.xml`: its sheets in tab order and its date
 * system. The streaming reader meets the sheets in the order their parts sit in the ZIP archive, which is
 * not the tab order (LibreOffice and other writers store them in any order), so "the first sheet" is read
 * from here. Only that one small part is read: the ZIP's central directory says where it is, and it is
 * inflated alone (node:zlib), so the workbook is never loaded whole.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface WorkbookIndex {
  /** Sheet names, in tab order. */
  sheets: string[];
  /** The 1904 date system (old Mac workbooks): date serials count from 1904-01-01 instead of 1900. */
  date1904: boolean;
}

const workbookPart = 'xl/workbook.xml';
/** `xl/workbook.xml` is a few KiB; a bigger one is not a workbook we can trust. */
const maxPartBytes = 16 * 1024 * 1024;

/** Throws an Error saying what is wrong when the file is not a readable ZIP holding `xl/workbook.xml`. */
export function readWorkbookIndex(file: string): WorkbookIndex {
  const xml = readZipEntry(file, workbookPart).toString('utf8');
  const sheets = [...xml.matchAll(/<(?:\w+:)?sheet\b([^>]*)>/g)].map((match) => {
    const name = /\bname\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(match[1]!);
    if (!name) throw new Error(`a <sheet> of ${workbookPart} has no name`);
    return decodeXml(name[1] ?? name[2]!);
  });
  const date1904 = /<(?:\w+:)?workbookPr\b[^>]*\bdate1904\s*=\s*["'](?:1|true)["']/.test(xml);
  return { sheets, date1904 };
}

/** An entry of a ZIP archive as its central directory describes it (sizes as declared: a hostile file may lie). */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the entry's data starts (after its local header). */
  dataOffset: number;
}

/** Every entry of the archive, from its central directory (ZIP64 too). */
export function listZipEntries(file: string): ZipEntry[] {
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
    const entries: ZipEntry[] = [];
    let at = 0;
    while (at + 46 <= directory.length && directory.readUInt32LE(at) === 0x02014b50) {
      const method = directory.readUInt16LE(at + 10);
      let compressedSize = directory.readUInt32LE(at + 20);
      let uncompressedSize = directory.readUInt32LE(at + 24);
      const nameLength = directory.readUInt16LE(at + 28);
      const extraLength = directory.readUInt16LE(at + 30);
      const commentLength = directory.readUInt16LE(at + 32);
      let localOffset = directory.readUInt32LE(at + 42);
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
      // ZIP64: sizes and offset that do not fit in 32 bits are in the extra field 0x0001, in this order.
      const zip64 = extraField(directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), 0x0001);
      let next = 0;
      const take = (): number => {
        if (!zip64 || next + 8 > zip64.length) throw new Error('a damaged ZIP64 archive');
        next += 8;
        return Number(zip64.readBigUInt64LE(next - 8));
      };
      if (uncompressedSize === 0xffffffff) uncompressedSize = take();
      if (compressedSize === 0xffffffff) compressedSize = take();
      if (localOffset === 0xffffffff) localOffset = take();
      const local = read(localOffset, 30);
      if (local.readUInt32LE(0) !== 0x04034b50) throw new Error(`the ZIP entry ${name} is damaged`);
      const dataOffset = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      entries.push({ name, method, compressedSize, uncompressedSize, dataOffset });
      at += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    closeSync(descriptor);
  }
}

/** One entry of a ZIP archive (stored or deflated), located through the central directory. */
function readZipEntry(file: string, entryName: string): Buffer {
  const entry = listZipEntries(file).find((candidate) => candidate.name === entryName);
  if (!entry) throw new Error(`the archive holds no ${entryName} (it is a ZIP file, but not an Excel workbook)`);
  if (entry.compressedSize > maxPartBytes) throw new Error(`${entryName} is implausibly large (${entry.compressedSize} bytes)`);
  const descriptor = openSync(file, 'r');
  let data: Buffer;
  try {
    if (entry.dataOffset + entry.compressedSize > statSync(file).size) throw new Error('the ZIP archive is truncated');
    data = Buffer.alloc(entry.compressedSize);
    readSync(descriptor, data, 0, entry.compressedSize, entry.dataOffset);
  } finally {
    closeSync(descriptor);
  }
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxPartBytes });
  throw new Error(`${entryName} is compressed with ZIP method ${entry.method}, which Excel does not write`);
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
  if (end < 0) throw new Error('no ZIP central directory (the file is truncated)');
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

function decodeXml(text: string): string {
  return text.replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g, (_, hex: string, decimal: string, named: string) => {
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    if (decimal) return String.fromCodePoint(parseInt(decimal, 10));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[named]!;
  });
}
