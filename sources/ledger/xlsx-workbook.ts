/**
 * What an XLSX workbook says about itself in `xl/workbook.xml`: its sheets in tab order and its date
 * system, read synchronously for the import's choice of sheet and its messages before any row is read (the rows
 * come from core/xlsx-sheet-rows.ts, which reads the same part). Only that one small part is read: the ZIP's
 * central directory says where it is, and it is inflated alone (node:zlib), so the workbook is never loaded whole.
 * Its XML is read by the same saxes parser as the rows' (`workbookIndexParser`), not by patterns of its own.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { zipEntries } from '../../core/zip-entries.js';
import { workbookIndexParser } from '../../core/xlsx-sheet-rows.js';

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
  const { parser, index } = workbookIndexParser();
  parser.write(readZipEntry(file, workbookPart).toString('utf8')).close();
  if (index.sheets.some(({ name }) => name === '')) throw new Error(`a <sheet> of ${workbookPart} has no name`);
  return { sheets: index.sheets.map(({ name }) => name), date1904: index.date1904 };
}

/** One entry of a ZIP archive (stored or deflated), located through the central directory. */
function readZipEntry(file: string, entryName: string): Buffer {
  const entry = zipEntries(file).get(entryName);
  if (!entry) throw new Error(`the archive holds no ${entryName} (it is a ZIP file, but not an Excel workbook)`);
  if (entry.compressedSize > maxPartBytes)
    throw new Error(`${entryName} is implausibly large (${entry.compressedSize} bytes)`);
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
