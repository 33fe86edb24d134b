/**
 * The public keys `verify` and `audit-pack` check signatures with (issue 28): the config's `people`, or the PEM
 * keys of a file (`--public-keys FILE`, concatenated SPKI PEM blocks), each named by the person holding it when
 * the config knows it. A key an auditor brings is how a copied database is checked without trusting its config.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';
import { canonicalPublicKeyPem, keyFingerprint } from '../../core/signatures.js';
import type { KnownKey } from './verify-chains.js';

/** The registered keys of `people` (empty when none are configured: unattested). */
export function registeredKeys(config: Pick<Config, 'people'>): KnownKey[] {
  return config.people.map((p) => ({
    name: p.name,
    publicKeyPem: canonicalPublicKeyPem(p.publicKey),
    fingerprint: keyFingerprint(p.publicKey),
  }));
}

/** Every PEM public key block of a text, in order. */
export function pemBlocks(text: string): string[] {
  return text.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
}

/** The keys of a PEM file (`--public-keys`); a usage error names a file with none, or a block that is no key. */
export function keysFromFile(file: string, config: Pick<Config, 'people'>): KnownKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--public-keys ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}).`,
    );
  }
  const blocks = pemBlocks(text);
  if (blocks.length === 0) throw new UsageError(`--public-keys ${file} holds no "-----BEGIN PUBLIC KEY-----" block.`);
  const names = new Map(registeredKeys(config).map((k) => [k.fingerprint, k.name]));
  return blocks.map((block, index) => {
    try {
      const fingerprint = keyFingerprint(block);
      return { name: names.get(fingerprint) ?? null, publicKeyPem: canonicalPublicKeyPem(block), fingerprint };
    } catch (error) {
      throw new UsageError(
        `--public-keys ${file}: key ${index + 1} is not a public key (${(error as Error).message}).`,
      );
    }
  });
}
