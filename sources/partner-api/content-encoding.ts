/**
 * An answer's Content-Encoding, undone. A window's download asks for gzip (http.ts), and a provider that compresses
 * its sales may compress its error answers too: both are read decoded. Identity passes as it is; any other encoding
 * was never asked for.
 */
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** The stages that decode the answer's body (none for identity), or undefined for an encoding not asked for. */
export function contentDecoding(response: IncomingMessage): Transform[] | undefined {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return [createGunzip()];
  if (encoding === 'identity' || encoding === '') return [];
  return undefined;
}
