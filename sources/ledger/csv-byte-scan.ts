/**
 * What the CSV bulk reader (csv-bulk.ts) must know of a file's bytes before DuckDB reads it: its lines, the
 * longest, lone CRs, control bytes, a BOM, Windows-1252 bytes, and a sample of lines to check DuckDB's rows
 * against. Gathered chunk by chunk while the import reads the file once for its hash.
 */

/** The longest line the streaming reader reads as a line (longer ones are rejected and skipped there). */
export const maxLineBytes = 1024 * 1024;

export interface ByteFacts {
  size: number;
  /** Physical lines: line breaks, plus a last line without one. */
  lines: number;
  longestLineBytes: number;
  /** A CR not followed by LF: an old-Mac file, or a CR inside a line. */
  loneCarriageReturn: boolean;
  /** NUL or \x01: DuckDB would not read the line whole. */
  controlBytes: boolean;
  utf8Bom: boolean;
  /** Bytes 0x80-0x9F (looked for only when the file is read as Latin-1 or Windows-1252). */
  windows1252Bytes: boolean;
  /** Every sampleEvery-th line's bytes (without its line break), by line number: to check DuckDB's rows against. */
  samples: Map<number, Buffer>;
}

/** Lines sampled: enough to catch rows out of order or decoded differently, cheap to compare. */
const sampleEvery = 4096;

/**
 * What the bulk reader must know of a file's bytes, gathered chunk by chunk as the import reads the file
 * once for its hash (indexOf, and 4 bytes at a time: no string made of the chunk).
 */
export class CsvByteScan {
  private readonly facts: ByteFacts = {
    size: 0,
    lines: 0,
    longestLineBytes: 0,
    loneCarriageReturn: false,
    controlBytes: false,
    utf8Bom: false,
    windows1252Bytes: false,
    samples: new Map(),
  };
  private offset = 0;
  private lineStart = 0;
  private crAtChunkEnd = false;
  /** The start of a sampled line that began in an earlier chunk. */
  private pending: Buffer | undefined;

  /** `singleByte`: the file is read as Latin-1 or Windows-1252 (unless it starts with a UTF-8 BOM). */
  constructor(private readonly singleByte: boolean) {}

  /** Takes the next chunk; keeps no reference to it (what it keeps is copied): the caller reuses its buffer. */
  push(chunk: Buffer): void {
    const facts = this.facts;
    if (this.offset === 0) facts.utf8Bom = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
    if (this.crAtChunkEnd && chunk[0] !== 0x0a) facts.loneCarriageReturn = true;
    for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) {
      facts.lines++;
      facts.longestLineBytes = Math.max(facts.longestLineBytes, this.offset + i - this.lineStart);
      if (sampled(facts.lines))
        facts.samples.set(facts.lines, sampledLine(this.pending, chunk, this.lineStart - this.offset, i));
      this.pending = undefined;
      this.lineStart = this.offset + i + 1;
    }
    // (A line over the limit is not read in bulk at all: its sample need not be whole.)
    if (sampled(facts.lines + 1) && (this.pending?.length ?? 0) <= maxLineBytes) {
      this.pending = Buffer.concat([
        this.pending ?? Buffer.alloc(0),
        chunk.subarray(Math.max(0, this.lineStart - this.offset)),
      ]);
    }
    for (let i = chunk.indexOf(0x0d); i >= 0 && !facts.loneCarriageReturn; i = chunk.indexOf(0x0d, i + 1)) {
      if (i + 1 < chunk.length && chunk[i + 1] !== 0x0a) facts.loneCarriageReturn = true;
    }
    this.crAtChunkEnd = chunk[chunk.length - 1] === 0x0d;
    facts.controlBytes ||= chunk.includes(0x00) || chunk.includes(0x01);
    if (this.singleByte && !facts.windows1252Bytes) facts.windows1252Bytes = holdsC1Byte(chunk);
    this.offset += chunk.length;
  }

  end(): ByteFacts {
    const facts = this.facts;
    if (this.crAtChunkEnd) facts.loneCarriageReturn = true;
    if (this.offset > this.lineStart) {
      facts.lines++;
      if (this.pending) facts.samples.set(facts.lines, this.pending);
    }
    facts.longestLineBytes = Math.max(facts.longestLineBytes, this.offset - this.lineStart);
    facts.size = this.offset;
    return facts;
  }
}

/** The lines sampled: the first data line after a one-line header, then every sampleEvery-th. */
function sampled(line: number): boolean {
  return line === 2 || line % sampleEvery === 0;
}

/** A sampled line's bytes from `start` (negative: it began in `pending`) to the LF at `end`, without CR or LF. */
function sampledLine(pending: Buffer | undefined, chunk: Buffer, start: number, end: number): Buffer {
  const line = pending ? Buffer.concat([pending, chunk.subarray(0, end)]) : chunk.subarray(Math.max(0, start), end);
  return Buffer.from(line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line);
}

/**
 * Whether the chunk holds a byte 0x80-0x9F, read 4 bytes at a time: a word without its high bits set is
 * skipped whole (most of a Latin-1 ledger is ASCII), so a 66 MB file is not turned into a string to search.
 */
export function holdsC1Byte(chunk: Buffer): boolean {
  const isC1 = (byte: number) => (byte & 0xe0) === 0x80;
  // Bytes before the first 4-byte boundary, and after the last whole word, one at a time.
  const head = Math.min(chunk.length, (4 - (chunk.byteOffset % 4)) % 4);
  const wordCount = (chunk.length - head) >> 2;
  const tail = head + wordCount * 4;
  for (let i = 0; i < head; i++) if (isC1(chunk[i]!)) return true;
  for (let i = tail; i < chunk.length; i++) if (isC1(chunk[i]!)) return true;
  if (wordCount === 0) return false;
  const words = new Uint32Array(chunk.buffer, chunk.byteOffset + head, wordCount);
  for (let w = 0; w < wordCount; w++) {
    if ((words[w]! & 0x80808080) === 0) continue;
    const at = head + w * 4;
    if (isC1(chunk[at]!) || isC1(chunk[at + 1]!) || isC1(chunk[at + 2]!) || isC1(chunk[at + 3]!)) return true;
  }
  return false;
}
