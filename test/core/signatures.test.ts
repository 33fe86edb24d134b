/**
 * core/signatures.ts (issue 28): Ed25519 key pairs (plain and encrypted PKCS#8), the fingerprint as the SHA-256
 * of the public key's DER, signatures over canonical text that any change breaks, a key of another type refused,
 * and the one comparison of typed names (NFKC, case, every kind of white space).
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { expect, test } from 'vitest';
import {
  canonicalPublicKeyPem,
  createKeyPair,
  identityFromPrivatePem,
  keyFingerprint,
  normalisedName,
  sameName,
  signCanonical,
  verifyCanonical,
} from '../../core/signatures.js';

test('a key pair signs canonical text; any change, or another key, fails; the fingerprint is sha256 of the DER', () => {
  const keys = createKeyPair();
  const identity = identityFromPrivatePem(keys.privatePem);
  const der = createPublicKey(keys.publicPem).export({ type: 'spki', format: 'der' });
  expect(keys.fingerprint).toBe(createHash('sha256').update(der).digest('hex'));
  expect(identity.fingerprint).toBe(keys.fingerprint);
  expect(canonicalPublicKeyPem(`\n${keys.publicPem}\n`)).toBe(identity.publicKeyPem);
  const text = JSON.stringify(['pinrecon.decision.v1', '2026-01', 1, 'f', 'claim', 'Ana Lima']);
  const signature = signCanonical(identity.privateKey, text);
  expect(Buffer.from(signature, 'base64')).toHaveLength(64);
  expect(verifyCanonical(keys.publicPem, text, signature)).toBe(true);
  expect(verifyCanonical(keys.publicPem, text.replace('claim', 'write_off'), signature)).toBe(false);
  expect(verifyCanonical(createKeyPair().publicPem, text, signature)).toBe(false);
  expect(verifyCanonical(keys.publicPem, text, 'not base64 at all')).toBe(false);
  expect(keyFingerprint(keys.publicPem)).toBe(keys.fingerprint);
});

test('an encrypted key needs its passphrase; a key of another type is refused', () => {
  const keys = createKeyPair('correct horse');
  expect(keys.privatePem).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
  expect(identityFromPrivatePem(keys.privatePem, 'correct horse').fingerprint).toBe(keys.fingerprint);
  expect(() => identityFromPrivatePem(keys.privatePem, 'wrong')).toThrow();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  expect(() => identityFromPrivatePem(rsa as string)).toThrow(/the key is rsa, not Ed25519/);
});

test('typed names compare after NFKC, case folding and collapsing every kind of white space', () => {
  expect(normalisedName('  Ana \u00a0 Lima\t')).toBe('ana lima');
  for (const other of ['Ana  Lima', 'ana lima', 'ANA LIMA', 'Ａｎａ Lima', 'Ana\u2003Lima', ' Ana Lima '])
    expect(sameName('Ana Lima', other)).toBe(true);
  expect(sameName('Ana Lima', 'Ana Lim')).toBe(false);
  expect(sameName('Ana Lima', null)).toBe(false);
  expect(sameName(undefined, 'Ana Lima')).toBe(false);
});
