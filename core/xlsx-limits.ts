/**
 * A hostile or broken XLSX (a "zip bomb": a few MB that inflate to gigabytes of shared strings) is refused
 * before a workbook reader sees it: the one guard of every XLSX pinrecon reads (a ledger, a workbook of
 * decisions). The ZIP's declared sizes are checked first (instant), then every
 * part is inflated once as a stream, counting what really comes out (declared sizes may lie) and the
 * shared strings' count and length, so nothing is held in memory and the check stops at the first excess.
 */
import { createReadStream } from 'node:fs';
import { createInflateRaw } from 'node:zlib';
import { zipEntries, type ZipEntry } from './zip-entries.js';

/** The workbook passes a limit (other errors are a damaged archive, said as such by the reader). */
export class XlsxLimitExceeded extends Error {
  override name = 'XlsxLimitExceeded';
}

export interface XlsxLimits {
  /** All parts together, inflated. */
  maxUncompressedBytes: number;
  /** Inflated ÷ compressed bytes of one part (spreadsheet XML compresses 5–30×; bombs 1000×). */
  maxCompressionRatio: number;
  /** Entries of `xl/sharedStrings.xml`. */
  maxSharedStrings: number;
  /**
   * XML characters of one shared string: Excel holds 32,767 characters in a cell, escaped and formatted at most ~8×
   * that.
   */
  maxSharedStringBytes: number;
}

export const defaultXlsxLimits: XlsxLimits = {
  maxUncompressedBytes: 2 * 1024 ** 3,
  maxCompressionRatio: 200,
  maxSharedStrings: 5_000_000,
  maxSharedStringBytes: 8 * 32_767,
};

/** Parts smaller than this are never judged by their ratio (a tiny part of repeated text compresses very well). */
const ratioFloorBytes = 1024 * 1024;
const sharedStringsPart = 'xl/sharedStrings.xml';

/**
 * Throws XlsxLimitExceeded saying which limit the workbook passes (the caller adds the file and what to do),
 * or an Error when the file is not a readable ZIP.
 */
export async function checkXlsxLimits(file: string, limits: XlsxLimits = defaultXlsxLimits): Promise<void> {
  const entries = [...zipEntries(file).values()];
  let declared = 0;
  for (const entry of entries) {
    declared += entry.uncompressedSize;
    checkRatio(entry, entry.uncompressedSize, limits);
  }
  if (declared > limits.maxUncompressedBytes) throw new XlsxLimitExceeded(tooLarge(declared, limits));
  let inflated = 0;
  for (const entry of entries) {
    if (entry.method !== 8 && entry.method !== 0) continue; // the reader says which method it cannot read
    inflated = await inflateCounting(file, entry, inflated, limits);
  }
}

function tooLarge(bytes: number, limits: XlsxLimits): string {
  const limit = formatBytes(limits.maxUncompressedBytes);
  return (
    `it inflates to ${formatBytes(bytes)} or more, over the ${limit} any ledger or report workbook needs: ` +
    `it may be a zip bomb`
  );
}

function checkRatio(entry: ZipEntry, bytes: number, limits: XlsxLimits): void {
  if (bytes < ratioFloorBytes || entry.method === 0) return;
  const ratio = bytes / Math.max(1, entry.compressedSize);
  if (ratio > limits.maxCompressionRatio) {
    throw new XlsxLimitExceeded(
      `its part ${entry.name} inflates ${Math.round(ratio)}× ` +
        `(${formatBytes(entry.compressedSize)} to ${formatBytes(bytes)}` +
        `${bytes > entry.uncompressedSize ? ' or more, more than the archive declares' : ''}), ` +
        `over the ${limits.maxCompressionRatio}× a spreadsheet reaches: it is a zip bomb or damaged`,
    );
  }
}

/** Inflates one part as a stream, counting bytes (and shared strings); returns the running total. */
async function inflateCounting(file: string, entry: ZipEntry, before: number, limits: XlsxLimits): Promise<number> {
  if (entry.compressedSize === 0) return before;
  const source = createReadStream(file, { start: entry.dataOffset, end: entry.dataOffset + entry.compressedSize - 1 });
  const stream = entry.method === 8 ? source.pipe(createInflateRaw()) : source;
  const strings = entry.name === sharedStringsPart ? new SharedStringCounter(limits) : undefined;
  let bytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (before + bytes > limits.maxUncompressedBytes) throw new XlsxLimitExceeded(tooLarge(before + bytes, limits));
      checkRatio(entry, bytes, limits);
      strings?.push(chunk);
    }
    strings?.end();
  } finally {
    source.destroy();
    stream.destroy();
  }
  return before + bytes;
}

/** Counts `<si>` elements of the shared strings part across chunk boundaries, and the length of each. */
class SharedStringCounter {
  private count = 0;
  private offset = 0;
  private lastStart = -1;
  private carry = '';

  constructor(private readonly limits: XlsxLimits) {}

  push(chunk: Buffer): void {
    // latin1 keeps one character per byte, so offsets are byte offsets; the markup searched is ASCII.
    const text = this.carry + chunk.toString('latin1');
    const base = this.offset - this.carry.length;
    for (const match of text.matchAll(/<(?:\w+:)?si[\s>/]/g)) {
      const at = base + match.index;
      if (at < this.lastStart + 1) continue; // seen in the previous carry
      this.checkLength(at);
      this.lastStart = at;
      if (++this.count > this.limits.maxSharedStrings) {
        const limit = this.limits.maxSharedStrings.toLocaleString('en-US');
        throw new XlsxLimitExceeded(
          `its shared strings number more than ${limit}, more than any ledger or report workbook holds: it may be a ` +
            `zip bomb`,
        );
      }
    }
    this.offset += chunk.length;
    this.carry = text.slice(-8);
    this.checkLength(this.offset);
  }

  end(): void {
    this.checkLength(this.offset);
  }

  /** The string that started at lastStart is still open at `at`. */
  private checkLength(at: number): void {
    if (this.lastStart >= 0 && at - this.lastStart > this.limits.maxSharedStringBytes) {
      throw new XlsxLimitExceeded(
        `its shared string number ${this.count} is longer than ` +
          `${this.limits.maxSharedStringBytes.toLocaleString('en-US')} bytes of XML, ` +
          `more than the 32,767 characters an Excel cell holds`,
      );
    }
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}
