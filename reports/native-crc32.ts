/**
 * The zip inside a workbook checksums every byte with CRC-32. exceljs's zip (archiver, then crc32-stream) does it
 * with the `crc-32` package in JavaScript: 0.59 s for the 880 MB sales sheet of the 1M month, on the main thread.
 * Node's own zlib.crc32 (Node 20.15 and later) gives the same values in 0.17 s. This points the package's `buf`,
 * the one function crc32-stream calls, at Node's; on an older Node the package stays as it is.
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

interface Crc32Package {
  buf(data: ArrayLike<number>, seed?: unknown): number;
}

/** The packages between exceljs and `crc-32`, in the order each loads the next. */
const zipChain = ['exceljs', 'archiver', 'zip-stream', 'compress-commons', 'crc32-stream', 'crc-32'] as const;

/** A package of exceljs's zip, resolved from the one that loads it: the very module instance the zip calls. */
export function zipPackage(name: (typeof zipChain)[number]): unknown {
  let resolved = import.meta.url;
  for (const step of zipChain.slice(0, zipChain.indexOf(name) + 1)) resolved = createRequire(resolved).resolve(step);
  return createRequire(import.meta.url)(resolved);
}

/** The `crc-32` module instance exceljs's zip uses. */
export function zipCrc32Package(): Crc32Package {
  return zipPackage('crc-32') as Crc32Package;
}

let installed = false;

/** Makes exceljs's zip checksum with zlib.crc32, once a process; the package's results are kept exactly. */
export function useNativeCrc32(): void {
  if (installed || typeof zlib.crc32 !== 'function') return;
  const crc32 = zipCrc32Package();
  const javascript = crc32.buf.bind(crc32);
  // The package returns a signed 32-bit value and reads its seed as `seed ^ -1` would (a Buffer or nothing: 0).
  crc32.buf = (data, seed) =>
    ArrayBuffer.isView(data)
      ? zlib.crc32(data as NodeJS.ArrayBufferView, Number(seed) >>> 0) | 0
      : javascript(data, seed);
  installed = true;
}
