/**
 * `pinrecon identity create` (issue 28): a new Ed25519 key pair for one person — FILE, the private key (PKCS#8
 * PEM, mode 0600, encrypted when a passphrase is given) and FILE.pub (SPKI PEM) — and the `people` entry to add
 * to the config. Existing files are never overwritten: a key lost to an overwrite cannot sign again.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { UsageError } from '../../core/errors.js';
import { createKeyPair } from '../../core/signatures.js';
import type { PersonRole } from '../../config/schema.js';

export interface CreatedIdentity {
  name: string;
  privateFile: string;
  publicFile: string;
  /** SHA-256 of the public key's DER, hex: what an auditor compares out of band. */
  fingerprint: string;
  encrypted: boolean;
  /** The entry to add to `people` in the config (roles to be chosen). */
  person: { name: string; publicKey: string; roles: PersonRole[] };
}

export function createIdentity(
  options: { name: string; out: string; roles?: PersonRole[] },
  passphrase?: string,
): CreatedIdentity {
  const name = options.name.trim();
  if (name === '') throw new UsageError('--name must name the person the key is for.');
  const publicFile = `${options.out}.pub`;
  for (const file of [options.out, publicFile]) {
    if (existsSync(file)) {
      throw new UsageError(`${file} exists: pinrecon never overwrites a key. Choose another --out, or move it away.`);
    }
  }
  const keys = createKeyPair(passphrase || undefined);
  writeExclusive(options.out, keys.privatePem, 0o600);
  writeExclusive(publicFile, keys.publicPem, 0o644);
  const roles = options.roles ?? ['preparer'];
  return {
    name,
    privateFile: options.out,
    publicFile,
    fingerprint: keys.fingerprint,
    encrypted: Boolean(passphrase),
    person: { name, publicKey: keys.publicPem, roles },
  };
}

/** Creates `file` (never an existing one, never through a symlink planted there) with `mode`, and writes `text`. */
function writeExclusive(file: string, text: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: cannot create it (${code ?? 'error'}): check the folder exists and is writable.`);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
