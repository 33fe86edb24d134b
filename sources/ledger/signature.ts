/**
 * A file's first and last bytes, to tell a binary ledger that is not what its extension says (an XLSX
 * that is not a ZIP workbook, a Parquet file without its "PAR1" marks) before a library fails on it with
 * a message that names neither the file nor the cause.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Up to `length` bytes from the start of the file, and up to `length` from its end. */
export function fileEnds(file: string, length: number): { head: Buffer; tail: Buffer } {
  const size = statSync(file).size;
  const descriptor = openSync(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(length, size));
    readSync(descriptor, head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(length, size));
    readSync(descriptor, tail, 0, tail.length, size - tail.length);
    return { head, tail };
  } finally {
    closeSync(descriptor);
  }
}

/** How a file starts, for a message: its first bytes as text when they are printable, else in hex. */
export function describeStart(file: string): string {
  const { head } = fileEnds(file, 16);
  if (head.length === 0) return 'the file is empty';
  const text = head.toString('latin1');
  return /^[\x20-\x7e\t\r\n]+$/.test(text)
    ? `it starts with the text "${text.replace(/\s+/g, ' ').trim()}…"`
    : `it starts with the bytes ${head.subarray(0, 8).toString('hex')}`;
}
