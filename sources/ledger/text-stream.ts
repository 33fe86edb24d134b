/**
 * A text file read as a stream of decoded chunks, in flat memory: UTF-8 (a BOM is dropped), Latin-1 or
 * Windows-1252. A UTF-8 byte-order mark decides the encoding whatever the config says (it cannot be a
 * Latin-1 file's first three characters in practice). A multi-byte character split between two chunks is
 * decoded whole (`TextDecoder` in stream mode). Stream mode matters for Latin-1 too: Node's decoder reads
 * "latin1" and "windows-1252" as Windows-1252 (0x80 is €) only in stream mode, as ISO-8859-1 otherwise; so
 * every decoding of ledger text goes through here.
 */
import { createReadStream, statSync } from 'node:fs';
import { TextDecoder } from 'node:util';
import type { LedgerReadSettings, ProgressCallback } from './types.js';

const chunkBytes = 1024 * 1024;

export async function* readTextChunks(
  file: string,
  encoding: LedgerReadSettings['encoding'],
  onProgress?: ProgressCallback,
): AsyncGenerator<string> {
  const total = statSync(file).size;
  let decoder: TextDecoder | undefined;
  let done = 0;
  const stream = createReadStream(file, { highWaterMark: chunkBytes });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (!decoder) {
        const hasUtf8Bom = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
        decoder = new TextDecoder(hasUtf8Bom ? 'utf-8' : encoding);
      }
      done += chunk.length;
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
      onProgress?.(done, total);
    }
    const rest = decoder?.decode() ?? '';
    if (rest) yield rest;
  } finally {
    stream.destroy();
  }
}

/**
 * Bytes of one line of a file (not its start) decoded exactly as readTextChunks decodes them: a BOM there is
 * a character of the line (two files joined), kept, as the file's one decoder keeps it mid-file.
 */
export function decodeText(bytes: Uint8Array, encoding: LedgerReadSettings['encoding']): string {
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  return decoder.decode(bytes, { stream: true }) + decoder.decode();
}
